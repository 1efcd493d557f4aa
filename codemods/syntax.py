"""Reading LibCST nodes the way the rules need: call arguments by name, `name = value` statements, method calls."""

from __future__ import annotations

from collections import Counter

import libcst as cst


def is_none(node: cst.BaseExpression | None) -> bool:
    """Whether `node` is the literal None."""
    return isinstance(node, cst.Name) and node.value == "None"


def keyword_args(call: cst.Call) -> tuple[dict[str, cst.BaseExpression], list[str]]:
    """The call's keyword arguments, and problems for what is not a plain keyword argument."""
    kwargs, problems = {}, []
    for arg in call.args:
        if arg.keyword is None:
            problems.append("positional or */** arguments are not followed; pass them by keyword")
        else:
            kwargs[arg.keyword.value] = arg.value
    return kwargs, problems


def call_arguments(call: cst.Call, parameters: tuple[str, ...]) -> tuple[dict[str, cst.BaseExpression], list[str]]:
    """The call's arguments by parameter name (positional ones matched to `parameters`), and problems."""
    arguments, problems = {}, []
    for index, arg in enumerate(call.args):
        if arg.star:
            problems.append("*/** arguments are not followed; pass the arguments by name")
        elif arg.keyword is not None:
            arguments[arg.keyword.value] = arg.value
        elif index < len(parameters):
            arguments[parameters[index]] = arg.value
        else:
            problems.append("more positional arguments than the function takes")
    return arguments, problems


def single_assignment(statement: cst.CSTNode) -> tuple[str, cst.BaseExpression] | None:
    """`name = value` as (name, value), for a statement line holding exactly that."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
    ):
        return small.targets[0].target.value, small.value
    return None


def method_call(call: cst.Call, method: str) -> str | None:
    """The receiver's name, for a call `<name>.<method>(...)`."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == method and isinstance(func.value, cst.Name):
        return func.value.value
    return None


class _Names(cst.CSTVisitor):
    def __init__(self):
        self.counts: Counter[str] = Counter()

    def visit_Name(self, node: cst.Name) -> None:
        self.counts[node.value] += 1

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)  # `x.attr`: x is a name here, attr is not
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)  # `f(key=value)`: key names a parameter
        return False


def name_counts(node: cst.CSTNode) -> Counter[str]:
    """How often each name occurs in `node` (read or bound), attribute names and keywords excluded."""
    finder = _Names()
    node.visit(finder)
    return finder.counts

