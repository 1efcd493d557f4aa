"""Emitting new code: templates are Python text, filled with the source text of the original expressions.

Text (rather than hand-built nodes) keeps emitted code readable and formatted like code a person writes;
expressions are inserted as their own source text, so the user's spelling, comments and flags survive.
Code is written at column 0: LibCST indents statements and bracketed continuation lines to the block
they land in.
"""

from __future__ import annotations

import ast
import operator
import textwrap

import libcst as cst

_MODULE = cst.Module([])


def source(node: cst.CSTNode) -> str:
    """The source text of a node."""
    return _MODULE.code_for_node(node)


# Expressions that bind tighter than any operator a template puts around them.
_ATOMS = (cst.Name, cst.Attribute, cst.Integer, cst.Float, cst.Call, cst.Subscript, cst.SimpleString)


def operand(node: cst.BaseExpression) -> str:
    """The source text of `node` for use inside arithmetic: parenthesized unless it is an atom
    (`args.save_steps or 100` in `{every} // k` must stay one operand)."""
    text = source(node)
    return text if isinstance(node, _ATOMS) or node.lpar else f"({text})"


_INTEGER_OPERATIONS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
                       ast.FloorDiv: operator.floordiv}


def literal_int(code: str) -> int | None:
    """The value of `code` when it is integer arithmetic on literals only (`100`, `(10 * 60)`), else None: the
    rewrite computes such a constant rather than leave the expression for the reader to evaluate."""
    try:
        tree = ast.parse(code.strip(), mode="eval").body
    except SyntaxError:
        return None

    def value(node: ast.AST) -> int | None:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _INTEGER_OPERATIONS:
            left, right = value(node.left), value(node.right)
            if left is None or right is None or (isinstance(node.op, ast.FloorDiv) and right == 0):
                return None
            return _INTEGER_OPERATIONS[type(node.op)](left, right)
        return None

    return value(tree)


def statements(code: str) -> list[cst.BaseStatement]:
    """Parse `code` (a template already filled in) as statements."""
    # A leading `pass` keeps a first comment line attached to the first statement, not the module header.
    body = cst.parse_module("pass\n" + textwrap.dedent(code).strip("\n") + "\n").body[1:]
    return [_without_indented_blank_lines(statement) for statement in body]


def _without_indented_blank_lines(statement: cst.BaseStatement) -> cst.BaseStatement:
    lines = [
        line.with_changes(indent=False) if line.comment is None else line for line in statement.leading_lines
    ]
    return statement.with_changes(leading_lines=lines)


def dataset_expression(input_fn: cst.BaseExpression) -> str:
    """The dataset an input_fn= argument gives: the input_fn called, or the body of an inline lambda."""
    if isinstance(input_fn, cst.Lambda) and not input_fn.params.params:
        return source(input_fn.body)
    return source(input_fn) + "()"
