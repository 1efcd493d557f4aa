"""TensorFlow 1.x names -> `tf.compat.v1.<the same path>`, in a project written for TensorFlow 1.x.

`tf.train.AdamOptimizer`, `tf.logging.info`, `tf.placeholder` do not exist in TensorFlow 2, and
`tf.nn.dropout(x, keep_prob)`, `tf.summary.scalar(name, tensor)` name other functions there (`rate`, a step
and a default writer): a project that names something TensorFlow 2 lacks was written for 1.x
(codemods/tf_era.uses_tf1_names), and keeps its meaning only through `tf.compat.v1`, which holds TF1's own
objects. codemods/tf1_api.py says which paths those are; each
reference to one is spelled `tf.compat.v1.<path>` (a module TensorFlow 2 lacks, once, at the module:
`tf.logging.info` -> `tf.compat.v1.logging.info`). Names TensorFlow 2 kept as they were stay as written. A
reference another rule rewrote is that rule's (a kept hook's base class, a migrated call).
"""

import libcst as cst

from codemods.registry import Rule, register
from codemods.tf1_api import LAST_NAMES, is_tf1_only


@register
class Tf1NamesRule(Rule):
    rule_id = "tf1-names"
    node_types = (cst.Attribute,)

    def leave(self, original: cst.Attribute, updated: cst.Attribute, ctx):
        return _respelled_attribute(original, updated, ctx)


def _respelled_attribute(original: cst.Attribute, updated: cst.Attribute, ctx) -> cst.BaseExpression:
    if original.attr.value not in LAST_NAMES or not ctx.tf1_names:
        return updated
    if not updated.deep_equals(original):
        return updated  # another rule's (or a name below one already spelled compat.v1)
    api = ctx.resolver.api(original)
    if api is None or api.v1 or not is_tf1_only(api.path):
        return updated
    ctx.record_once(original, Tf1NamesRule.rule_id, True, "TensorFlow 1.x names TensorFlow 2 lacks or changed -> "
                    "tf.compat.v1.<name> (TF1's own: tf.nn.dropout(x, keep_prob), tf.logging, tf.layers, ...)")
    return cst.parse_expression(f"{ctx.need_tensorflow()}.compat.v1.{api.path}")


def respelled(statement: cst.CSTNode, ctx) -> cst.CSTNode:
    """`statement` with its TF1 names spelled as the rule spells them: for code a rule moves out of the
    traversal's reach (a session's graph kept as written in a nested model_fn)."""

    class Respeller(cst.CSTTransformer):
        def leave_Attribute(self, original, updated):
            return _respelled_attribute(original, updated, ctx)

    return statement.visit(Respeller()) if ctx.tf1_names else statement
