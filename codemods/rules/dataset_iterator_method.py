"""`dataset.make_one_shot_iterator()` / `dataset.make_initializable_iterator()` ->
`tf.compat.v1.data.make_one_shot_iterator(dataset)` / `tf.compat.v1.data.make_initializable_iterator(dataset)`.

TensorFlow 1.x datasets had these methods; TF2's `tf.data.Dataset` has not (AttributeError), while the
`tf.compat.v1.data` functions make the same iterator in a TF1 graph and in TF2 (tf_upgrade_v2 makes the same
change). An input_fn ending with such an iterator's `get_next()` then runs where it is called: in the graph
compat.graph_input reads it in, as Estimator did, or in a TF1 session loop kept as it is. No other object has
methods of these names that take no argument, so the call is taken for a dataset's.
"""

import libcst as cst

from codemods.registry import Rule, register

ITERATOR_METHODS = ("make_one_shot_iterator", "make_initializable_iterator")


@register
class DatasetIteratorMethodRule(Rule):
    rule_id = "dataset-iterator-method"
    node_types = (cst.Call,)

    def leave(self, original: cst.Call, updated: cst.Call, ctx):
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
