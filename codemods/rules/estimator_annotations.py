"""Type annotations naming tf.estimator or tf.contrib APIs -> what the migrated code passes there, in both targets.

An annotation is evaluated when its `def` runs (without `from __future__ import annotations`), so
`def train(estimator: tf.estimator.Estimator)` fails the module's import on TensorFlow >= 2.16, which has no
tf.estimator (nor tf.contrib). An estimator class becomes `tf_keras.Model` (every migrated estimator is one),
`RunConfig` / `TrainSpec` / `EvalSpec` their compat.estimator_training counterparts; any other such API in an
annotation (after the other rules renamed theirs: ModeKeys, EstimatorSpec, hooks) puts the annotation in quotes,
as written: it documents the same type and is no longer evaluated.
"""

import libcst as cst

from codemods.registry import Rule, register
from codemods.templates import source

_GONE = ("estimator.", "contrib.")
_ESTIMATOR_CLASS_ENDINGS = ("Estimator", "Classifier", "Regressor")
_COMPAT_TYPES = {
    "estimator.RunConfig": "TrainingConfig", "estimator.TrainSpec": "TrainSpec", "estimator.EvalSpec": "EvalSpec",
}


@register
class EstimatorAnnotationsRule(Rule):
    rule_id = "estimator-annotations"
    node_types = (cst.Annotation,)

    def leave(self, original: cst.Annotation, updated: cst.Annotation, ctx):
        gone = [node for node in _outermost_attributes(original.annotation)
                if (api := ctx.resolver.api(node)) is not None and api.path.startswith(_GONE)]
        remaining = [node for node in gone if _still_written(node, updated)]
        if not remaining:
            return updated
        replaced = updated.annotation
        for node in remaining:
            path = ctx.resolver.api(node).path
            name = path.rsplit(".", 1)[1]
            if path.startswith("estimator.") and name.endswith(_ESTIMATOR_CLASS_ENDINGS):
                ctx.need_import("tf_keras")
                replacement = "tf_keras.Model"
            elif path in _COMPAT_TYPES:
                ctx.need_compat("estimator_training")
                replacement = f"estimator_training.{_COMPAT_TYPES[path]}"
            else:
                written = source(updated.annotation)
                quote = "'" if '"' in written else '"'
                ctx.record(original, self.rule_id, True, f"annotation {written} quoted: {path} is gone from "
                           "TensorFlow >= 2.16, and an annotation is evaluated when its def runs")
                return updated.with_changes(annotation=cst.SimpleString(f"{quote}{written}{quote}"))
            replaced = replaced.deep_replace(_same_written(replaced, node), cst.parse_expression(replacement))
            ctx.record(original, self.rule_id, True, f"annotation {source(node)} -> {replacement} (what the migrated "
                       "code passes there; TensorFlow >= 2.16 has no tf.estimator)")
        return updated.with_changes(annotation=replaced)


def _outermost_attributes(node: cst.CSTNode) -> list[cst.Attribute]:
    found = []

    class Collect(cst.CSTVisitor):
        def visit_Attribute(self, attribute: cst.Attribute) -> bool:
            found.append(attribute)
            return False

        def visit_SimpleString(self, string) -> bool:
            return False

    node.visit(Collect())
    return found


def _same_written(tree: cst.CSTNode, original: cst.Attribute) -> cst.Attribute | None:
    """The attribute of `tree` written as `original` is (other rules left it as it was)."""
    written = source(original)
    return next((node for node in _outermost_attributes(tree) if source(node) == written), None)


def _still_written(original: cst.Attribute, updated: cst.Annotation) -> bool:
    return _same_written(updated.annotation, original) is not None
