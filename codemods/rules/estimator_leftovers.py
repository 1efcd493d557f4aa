"""A `tf.estimator` name that no rule rewrote and no TODO covers gets a TODO.

TensorFlow >= 2.16 has no `tf.estimator`: a name of it left in the output fails where it runs. What the rewrite
keeps (an estimator with no TensorFlow 2 form, the model_fn of a subclass kept TF1) has its TODOs at the
constructs the rules know; this rule, registered last, speaks for the rest (`return tf.estimator.EstimatorSpec(...)`
in such a model_fn, `mode == tf.estimator.ModeKeys.TRAIN`). In a function or class, one TODO at the outermost
definition names them all, unless a TODO there covers the definition already; at module level, a TODO on the
statement, unless it has one. The output then never fails where no TODO says so.
"""

from __future__ import annotations

import io
import tokenize

import libcst as cst

from codemods.registry import Rule, register

_DEFINITIONS = (cst.FunctionDef, cst.ClassDef)
_COMPOUND = (cst.If, cst.With, cst.For, cst.While, *_DEFINITIONS)
TODO = "# TODO(migrate)"


def _spells_estimator(node: cst.Attribute) -> bool:
    """A cheap test before resolving: `estimator` is a name of the chain (`tf.estimator`, `tfe.estimator.X`)."""
    while isinstance(node, cst.Attribute):
        if node.attr.value == "estimator":
            return True
        node = node.value
    return isinstance(node, cst.Name) and node.value in ("estimator", "tf_estimator")


_TENSORFLOW_ROOTS = ("tensorflow", "tensorflow.compat.v1", "tensorflow.compat.v2")


def _through_either_tensorflow(node: cst.Attribute, ctx) -> str | None:
    """The path below TensorFlow of `tf.estimator[.X]` whose `tf` several imports bind, each to a TensorFlow root
    (`try: import tensorflow.compat.v1 as tf`, `except ImportError: import tensorflow as tf`), which the resolver
    does not resolve; tf.estimator is gone from each of them."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    bindings = ctx.bindings.by_name.get(node.value, ()) if isinstance(node, cst.Name) else ()
    if len(bindings) < 2 or not all(binding.imported in _TENSORFLOW_ROOTS for binding in bindings):
        return None
    parts.reverse()
    return ".".join(parts) if parts[0] == "estimator" else None


def _spelled_in(ctx, statement: cst.CSTNode, whole: bool = False) -> str:
    """The code of `statement` up to its indented block (`whole`: all of it), its tokens joined by spaces, less
    comments: `tf . estimator . RunConfig` where the code names it, not where a comment or a string does."""
    code = ctx.module.code_for_node(statement.with_changes(leading_lines=()))
    if isinstance(statement, _COMPOUND) and not whole:
        body = ctx.module.code_for_node(statement.body)
        if body in code:
            code = code[: code.index(body)]
    try:
        return " ".join(token.string for token in tokenize.generate_tokens(io.StringIO(code).readline)
                        if token.type not in _NOT_CODE)
    except (tokenize.TokenError, SyntaxError):
        return code


_NOT_CODE = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)


def _has_todo(statement: cst.CSTNode) -> bool:
    return any(line.comment is not None and line.comment.value.startswith(TODO)
               for line in getattr(statement, "leading_lines", ()))


@register
class EstimatorLeftoversRule(Rule):
    rule_id = "estimator-api"
    node_types = (cst.Attribute, cst.SimpleStatementLine, *_COMPOUND)

    def interested(self, node, ctx) -> bool:
        return not isinstance(node, cst.Attribute) or ctx.mentions("estimator") and _spells_estimator(node)

    def leave(self, original, updated, ctx):
        if not ctx.mentions("estimator"):
            return updated
        if isinstance(original, cst.Attribute):
            if _spells_estimator(original):
                api = ctx.resolver.api(original)
                path = api.path if api is not None else _through_either_tensorflow(original, ctx)
                if path is not None and (path == "estimator" or path.startswith("estimator.") and path.count(".") == 1):
                    spelled = cst.helpers.get_full_name_for_node(original)
                    ctx.estimator_leftovers.setdefault(id(ctx.current_statement), {})[spelled] = f"tf.{path}"
            return updated
        spelled = ctx.estimator_leftovers.pop(id(original), {})
        if isinstance(original, _DEFINITIONS):  # (its body's, unless its own rewrite took them: its whole code)
            spelled.update(ctx.estimator_leftovers_within.pop(id(original), {}))
        left = set()
        if spelled:
            code = _spelled_in(ctx, updated, whole=isinstance(original, _DEFINITIONS))
            left = {(text, name) for text, name in spelled.items() if text and " . ".join(text.split(".")) in code
                    and not any(other.startswith(text + ".") for other in spelled)}  # (`tf.estimator` of a chain)
        if not left or ctx.pending_todos.get(id(original)) or _has_todo(original):
            return updated  # (a TODO of its own covers it, and a definition's its body)
        definition = next((s for s in reversed(ctx.statement_stack[:-1]) if isinstance(s, _DEFINITIONS)), None)
        if definition is not None:  # said at the outermost definition, unless a TODO covers one on the way
            ctx.estimator_leftovers_within.setdefault(id(definition), {}).update(left)
            return updated
        where = " in this definition" if isinstance(original, _DEFINITIONS) else ""
        ctx.todo(original, self.rule_id, f"{', '.join(sorted({name for _, name in left}))}{where}: TensorFlow >= 2.16 has no tf.estimator; "
                 "this is TF1 code the rewrite kept (see the TODOs of the estimator it serves): migrate it with that "
                 "estimator, or run it with TensorFlow 2.15 and tensorflow-estimator")
        return updated
