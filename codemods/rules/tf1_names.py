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
from codemods.tf1_api import LAST_NAMES, is_tf1_only, missing_in_tf2


@register
class Tf1NamesRule(Rule):
    rule_id = "tf1-names"
    node_types = (cst.Attribute,)

    def interested(self, node, ctx) -> bool:
        return ctx.tf1_names and node.attr.value in LAST_NAMES

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


@register
class Tf1ImportedModulesRule(Rule):
    """`from tensorflow import flags, gfile, logging, app`: modules TensorFlow 2 lacks (the import stops a
    program at its first line) -> `from tensorflow.compat.v1 import ...`, TF1's own modules, whatever era the
    project's other names are of; the names TensorFlow 2 has stay where they were."""

    rule_id = "tf1-names"
    node_types = (cst.SimpleStatementLine,)

    def leave(self, original: cst.SimpleStatementLine, updated, ctx):
        if not isinstance(updated, cst.SimpleStatementLine) or len(updated.body) != 1:
            return updated
        node = updated.body[0]
        if not isinstance(node, cst.ImportFrom) or node.relative or node.module is None \
                or isinstance(node.names, cst.ImportStar) or cst.helpers.get_full_name_for_node(node.module) != "tensorflow":
            return updated
        moved = [alias for alias in node.names if isinstance(alias.name, cst.Name) and missing_in_tf2(alias.name.value)]
        if not moved:
            return updated
        ctx.record(original, self.rule_id, True, "from tensorflow import "
                   f"{', '.join(alias.name.value for alias in moved)}: modules TensorFlow 2 lacks -> "
                   "from tensorflow.compat.v1 import ... (TF1's own)")
        kept = [alias for alias in node.names if alias not in moved]
        v1 = cst.parse_expression("tensorflow.compat.v1")
        if not kept:
            return updated.with_changes(body=[node.with_changes(module=v1)])
        parenthesized = isinstance(node.lpar, cst.LeftParen)

        def listed(aliases: list[cst.ImportAlias]) -> list[cst.ImportAlias]:
            """`aliases` as one list: in parentheses each keeps its comma (and a comment after it), the last
            taking the statement's last; on one line, `, ` between them."""
            if parenthesized:
                return [*aliases[:-1], aliases[-1].with_changes(comma=_closing(aliases[-1].comma, node.names[-1].comma))]
            return [*(alias.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                      for alias in aliases[:-1]), aliases[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]

        moved_statement = cst.SimpleStatementLine(body=[node.with_changes(module=v1, names=listed(moved))])
        return cst.FlattenSentinel([updated.with_changes(body=[node.with_changes(names=listed(kept))]),
                                    moved_statement])


def _closing(comma, last):
    """`comma` (an import's, which may hold a comment) ending its line as `last`, the list's last comma, did:
    at the closing parenthesis's indentation."""
    if isinstance(comma, cst.Comma) and isinstance(last, cst.Comma) \
            and isinstance(comma.whitespace_after, cst.ParenthesizedWhitespace) \
            and isinstance(last.whitespace_after, cst.ParenthesizedWhitespace):
        return comma.with_changes(whitespace_after=comma.whitespace_after.with_changes(
            indent=last.whitespace_after.indent, last_line=last.whitespace_after.last_line))
    return last


@register
class FlagsErrorRule(Rule):
    """`tf.flags.FlagsError` (TF 1.x's flags re-exported absl's, whose old name for its base error it was) ->
    `Error`, the same class under the name absl and tf.compat.v1.flags have now."""

    rule_id = "tf1-names"
    node_types = (cst.Attribute,)

    def interested(self, node, ctx) -> bool:
        return node.attr.value == "FlagsError"

    def leave(self, original: cst.Attribute, updated: cst.Attribute, ctx):
        if original.attr.value != "FlagsError":
            return updated
        api = ctx.resolver.api(original.value)
        if api is None or api.path not in ("flags", "app.flags", "compat.v1.flags", "compat.v1.app.flags"):
            return updated
        ctx.record_once(original, self.rule_id, True, "tf.flags.FlagsError -> Error (absl's name for that class)")
        return updated.with_changes(attr=cst.Name("Error"))
