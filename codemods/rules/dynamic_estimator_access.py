"""`tf.estimator` used as a value (`getattr(tf.estimator, name)`, `hasattr(tf.estimator, "BestExporter")`) ->
kept, with a TODO.

The rewrite follows names: `tf.estimator.DNNClassifier(...)` is a construct it migrates or speaks for. The
module itself handed to code (an estimator class picked by a flag, a version test) names nothing it can
follow, and TensorFlow >= 2.16 has no `tf.estimator`: that line would fail when run, with no word from the
rewrite. Where a project keeps its estimators TF1, its `tf.estimator` stays by design and says nothing here.
"""

import libcst as cst

from codemods.registry import Rule, register
from codemods.syntax import fast_visit

MESSAGE = ("tf.estimator used as a value (TensorFlow >= 2.16 has none): name the class or function it reaches "
           "(compat.estimator_training, compat.canned, compat.estimator_export have the migrated ones), or drop "
           "the test for it")


class _AttributeValues(cst.CSTVisitor):
    def __init__(self):
        self.ids: set[int] = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.ids.add(id(node.value))


@register
class DynamicEstimatorAccessRule(Rule):
    rule_id = "estimator-value"
    node_types = (cst.Attribute,)

    def leave(self, original: cst.Attribute, updated: cst.Attribute, ctx):
        if original.attr.value != "estimator" or ctx.facts.runtime.blocked_by:
            return updated
        api = ctx.resolver.api(original)
        if api is None or api.path != "estimator" or id(original) in self._attribute_values(ctx):
            return updated
        statement = ctx.current_statement
        if isinstance(statement, cst.SimpleStatementLine) and any(
                isinstance(small, cst.Assign) and small.value is original for small in statement.body):
            return updated  # `tf_estimator = tf.estimator`: an alias, whose uses codemods/api.py follows
        ctx.todo(original, self.rule_id, MESSAGE)
        return updated

    @staticmethod
    def _attribute_values(ctx) -> set[int]:
        """Ids of the module's nodes read an attribute of (`x` of `x.name`), once per module."""
        if ctx.attribute_values is None:
            visitor = _AttributeValues()
            fast_visit(ctx.module, visitor)
            ctx.attribute_values = visitor.ids
        return ctx.attribute_values
