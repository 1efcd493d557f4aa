"""An import of the Estimator package the migrated module still uses -> kept, with a TODO.

TensorFlow >= 2.16 installs no tensorflow_estimator: `from tensorflow_estimator.python.estimator.export.export
import build_supervised_input_receiver_fn_from_input_fn`, `from tensorflow import estimator` fail when the
module is imported. An import the rewrite left unused is removed (codemods/imports.py), and its TODO with it;
one that code the rewrite kept still needs says so, rather than leave the program to fail in silence.
"""

import libcst as cst

from codemods.api import dotted_name
from codemods.imports import RUNTIME_PACKAGE
from codemods.registry import Rule, register
from codemods.rules.wrapped_model_fn import REPLACEMENTS

# Estimator's values a wrapped model_fn compares and returns, by name -> the compat module with its twin
_TWINS = {path.rsplit(".", 1)[1]: module for path, (module, _) in REPLACEMENTS.items()}

MESSAGE = ("{what}: TensorFlow >= 2.16 installs no tensorflow_estimator, and code the rewrite kept uses this "
           "import ({names}): migrate that code (see its TODOs), or install tensorflow-estimator with TensorFlow "
           "2.15 to run it as it is")


def _estimator_module(module: str) -> bool:
    return module == "tensorflow_estimator" or module.startswith(("tensorflow_estimator.", "tensorflow.estimator",
                                                                  "tensorflow.python.estimator"))


# TensorFlow's private canned head module, which programs copying a canned estimator imported as `head_lib`
# -> compat.canned_head, the head constructors it had (its __all__: tests/test_estimator_heads.py checks they agree)
_HEAD_MODULES = ("tensorflow.python.estimator.canned", "tensorflow_estimator.python.estimator.canned")
HEAD_FUNCTIONS = frozenset({
    "_binary_logistic_head_with_sigmoid_cross_entropy_loss", "_multi_class_head_with_softmax_cross_entropy_loss",
    "_regression_head", "_binary_logistic_or_multi_class_head", "LossSpec",
})


def _attributes_read(module: cst.Module, name: str) -> set[str]:
    """The attributes the module reads of the name `name` (`head_lib._regression_head` -> `_regression_head`);
    "" when it uses the name otherwise (passed on, assigned)."""
    class Reads(cst.CSTVisitor):
        def __init__(self):
            self.found: set[str] = set()

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            if isinstance(node.value, cst.Name) and node.value.value == name:
                self.found.add(node.attr.value)
                return False
            return True

        def visit_Name(self, node: cst.Name) -> None:
            if node.value == name:
                self.found.add("")

        def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
            return False

    reads = Reads()
    module.visit(reads)
    return reads.found


def _migrated_head_import(original: cst.ImportFrom, ctx) -> cst.ImportFrom | None:
    """`from tensorflow.python.estimator.canned import head as head_lib` -> compat.canned_head under the same name,
    when the module reads nothing else of it and its estimators migrate (their model_fns are wrapped)."""
    module = dotted_name(original.module) or ""
    if module not in _HEAD_MODULES or len(original.names) != 1 or ctx.facts.runtime.blocked_by:
        return None
    alias = original.names[0]
    if dotted_name(alias.name) != "head":
        return None
    bound = alias.asname.name.value if alias.asname is not None else "head"
    if not _attributes_read(ctx.module, bound) <= HEAD_FUNCTIONS:
        return None
    return cst.ImportFrom(module=cst.parse_expression(RUNTIME_PACKAGE),
                          names=[cst.ImportAlias(name=cst.Name("canned_head"), asname=cst.AsName(cst.Name(bound)))])


def _migrated_names_import(original: cst.ImportFrom, ctx) -> cst.ImportFrom | None:
    """`from tensorflow.python.estimator.model_fn import ModeKeys as Modes` -> the same names from the compat module
    holding their twins (`estimator_training.ModeKeys`: the same strings), as rules/wrapped_model_fn.py renames
    `tf.estimator.ModeKeys`, when the module's estimators migrate (their model_fns are wrapped)."""
    module = dotted_name(original.module) or ""
    if not _estimator_module(module) or ctx.facts.runtime.blocked_by:
        return None
    twins = {_TWINS.get(dotted_name(alias.name) or "") for alias in original.names}
    if len(twins) != 1 or None in twins:
        return None
    (twin,) = twins
    return original.with_changes(module=cst.parse_expression(f"{RUNTIME_PACKAGE}.{twin}"))


@register
class EstimatorImportsRule(Rule):
    rule_id = "estimator-import"
    node_types = (cst.Import, cst.ImportFrom)

    def leave(self, original, updated, ctx):
        if isinstance(original, cst.Import):
            names = [dotted_name(alias.name) for alias in original.names]
            kept = [name for name in names if name and _estimator_module(name)]
        elif original.relative or original.module is None or isinstance(original.names, cst.ImportStar):
            return updated
        else:
            migrated = _migrated_head_import(original, ctx)
            if migrated is not None:
                ctx.record(original, self.rule_id, True, "TensorFlow's private canned head module -> "
                           "compat.canned_head (its head constructors, TF 1.x's heads: compat.estimator_heads)")
                return migrated
            migrated = _migrated_names_import(original, ctx)
            if migrated is not None:
                ctx.record(original, self.rule_id, True, "Estimator's ModeKeys, EstimatorSpec, ... -> their compat twins "
                           "(the same values; what a wrapped model_fn compares and returns)")
                return migrated
            module = dotted_name(original.module) or ""
            imported = [dotted_name(alias.name) for alias in original.names]
            kept = imported if _estimator_module(module) else \
                [name for name in imported if module in ("tensorflow", "tensorflow.compat.v1") and name == "estimator"]
        if kept:
            ctx.todo(original, self.rule_id, MESSAGE.format(what="tensorflow_estimator", names=", ".join(kept)))
        return updated
