"""`dataset.make_one_shot_iterator()` / `dataset.make_initializable_iterator()` ->
`tf.compat.v1.data.make_one_shot_iterator(dataset)` / `tf.compat.v1.data.make_initializable_iterator(dataset)`.

TensorFlow 1.x datasets had these methods; TF2's `tf.data.Dataset` has not (AttributeError), while the
`tf.compat.v1.data` functions make the same iterator in a TF1 graph and in TF2 (tf_upgrade_v2 makes the same
change). An input_fn ending with such an iterator's `get_next()` then runs where it is called: in the graph
compat.graph_input reads it in, as Estimator did, or in a TF1 session loop kept as it is. No other object has
methods of these names that take no argument, so the call is taken for a dataset's.

`dataset.output_shapes` / `output_types` / `output_classes` (TF 1.x datasets' and iterators' attributes, read
as `ds.padded_batch(25, ds.output_shapes)`) -> `tf.compat.v1.data.get_output_shapes(dataset)` / `get_output_types`
/ `get_output_classes`, the same structures from a dataset or an iterator (tf_upgrade_v2's change too). Not
`self.output_shapes` nor an attribute assigned to: those are a class's own.
"""

import libcst as cst

from codemods.registry import Rule, register
from codemods.syntax import field_ids

ITERATOR_METHODS = ("make_one_shot_iterator", "make_initializable_iterator")
STRUCTURE_ATTRIBUTES = {"output_shapes": "get_output_shapes", "output_types": "get_output_types",
                        "output_classes": "get_output_classes"}


@register
class DatasetIteratorMethodRule(Rule):
    rule_id = "dataset-iterator-method"
    node_types = (cst.Call, cst.Attribute)

    def interested(self, node, ctx) -> bool:
        if isinstance(node, cst.Attribute):
            return node.attr.value in STRUCTURE_ATTRIBUTES
        return isinstance(node.func, cst.Attribute) and node.func.attr.value in ITERATOR_METHODS and not node.args

    def leave(self, original, updated, ctx):
        if isinstance(original, cst.Attribute):
            return self._structure(original, updated, ctx)
        func = updated.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in ITERATOR_METHODS and not updated.args):
            return updated
        if not ctx.imports_tensorflow:
            return updated
        method = func.attr.value
        ctx.record(original, self.rule_id, True, f"dataset.{method}() -> tf.compat.v1.data.{method}(dataset)")
        return updated.with_changes(
            func=cst.parse_expression(f"{ctx.need_tensorflow()}.compat.v1.data.{method}"),
            args=[cst.Arg(func.value)],
        )

    def _structure(self, original: cst.Attribute, updated, ctx):
        if original.attr.value not in STRUCTURE_ATTRIBUTES or not ctx.imports_tensorflow:
            return updated
        if (isinstance(original.value, cst.Name) and original.value.value == "self") \
                or id(original) in self._assigned(ctx):
            return updated
        function = STRUCTURE_ATTRIBUTES[original.attr.value]
        ctx.record(original, self.rule_id, True, f"dataset.{original.attr.value} -> tf.compat.v1.data.{function}(dataset)")
        return cst.Call(func=cst.parse_expression(f"{ctx.need_tensorflow()}.compat.v1.data.{function}"),
                        args=[cst.Arg(updated.value)])

    @staticmethod
    def _assigned(ctx) -> set[int]:
        """Ids of the module's attributes assigned to (`x.output_shapes = ...`)."""
        if ctx.assigned_attributes is None:
            ctx.assigned_attributes = field_ids(ctx.module, cst.AssignTarget, "target") \
                | field_ids(ctx.module, cst.AnnAssign, "target") | field_ids(ctx.module, cst.AugAssign, "target")
        return ctx.assigned_attributes
