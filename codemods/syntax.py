"""Reading LibCST nodes the way the rules need: call arguments by name, `name = value` statements, method calls."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections import Counter
from collections.abc import Callable, Collection

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
            problems.append(f"only the first {len(parameters)} arguments are followed by position; name the rest")
    return arguments, problems


def with_keywords(call: cst.Call, parameters: tuple[str, ...]) -> cst.Call:
    """`call` with its leading positional arguments given by the names of `parameters` (*/** arguments and those
    past `parameters` kept as they are)."""
    args = []
    for index, arg in enumerate(call.args):
        if arg.keyword is None and not arg.star and index < len(parameters):
            arg = arg.with_changes(keyword=cst.Name(parameters[index]), equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
        args.append(arg)
    return call.with_changes(args=args)


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


def name_counts(node: cst.CSTNode) -> Counter[str]:
    """How often each name occurs in `node` (read or bound), attribute names and keywords excluded.

    A walk of the nodes' fields rather than a CSTVisitor: the rules and facts ask this of every statement
    they read, and LibCST's visitor machinery rebuilds each node it passes (several times slower)."""
    counts: Counter[str] = Counter()
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.Name:
            counts[current.value] += 1
        elif type(current) is cst.Attribute or type(current) is cst.Arg:
            stack.append(current.value)  # `x.attr`: attr is no name here; `f(key=value)`: key names a parameter
        else:
            stack.extend(_children(current))
    return counts


def fast_visit(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """Run a read-only CSTVisitor's visit_*/leave_* methods over `node` and its descendants, walking the
    nodes' fields: LibCST's own `node.visit(visitor)` rebuilds every node it passes and calls its attribute
    hooks, several times slower. Children come in field order, which is source order except for decorators
    (after the body): for visitors that collect, not for those that depend on the order."""
    visit, leave = _hooks(type(visitor), type(node))
    if visit is None or visit(visitor, node) is not False:
        for child in _children(node):
            fast_visit(child, visitor)
    if leave is not None:
        leave(visitor, node)


def field_ids(node: cst.CSTNode, node_type: type, field: str) -> set[int]:
    """The ids of the `field` child of each `node_type` node in `node` (`Call`, "func": every called expression)."""
    found: set[int] = set()

    def collect(current: cst.CSTNode) -> None:
        if type(current) is node_type:
            found.add(id(getattr(current, field)))
        for child in _children(current):
            collect(child)

    collect(node)
    return found


def nodes_of_types(node: cst.CSTNode, node_types: Collection[type]) -> list:
    """`node` and its descendants whose type is one of `node_types` (exact), in field order: a walk with none of
    `m.findall`'s matcher machinery (measured: several times faster)."""
    found: list = []
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) in node_types:
            found.append(current)
        stack.extend(reversed(_children(current)))
    return found


def ids_inside(node: cst.CSTNode, outer_types: Collection[type], node_types: Collection[type]) -> set[int]:
    """The ids of the nodes of `node_types` that lie within a node of `outer_types` (below `node`): one walk, where
    a search below each outer node walks nested ones again."""
    found: set[int] = set()
    stack = [(node, False)]
    while stack:
        current, inside = stack.pop()
        kind = type(current)
        if inside and kind in node_types:
            found.add(id(current))
        inside = inside or kind in outer_types
        stack.extend((child, inside) for child in _children(current))
    return found


def subtrees_containing(node: cst.CSTNode, node_types: Collection[type],
                        wanted: Callable[[cst.CSTNode], bool] = lambda node: True) -> set[int]:
    """The ids of `node` and its descendants whose subtree holds a node of one of `node_types` (by exact type)
    that is `wanted`."""
    found: set[int] = set()

    def holds(current: cst.CSTNode) -> bool:
        held = type(current) in node_types and wanted(current)
        for child in _children(current):
            if holds(child):
                held = True
        if held:
            found.add(id(current))
        return held

    holds(node)
    return found


_CHILDREN: dict[int, tuple[cst.CSTNode, list[cst.CSTNode]]] | None = None  # see children_listed_once


@contextlib.contextmanager
def children_listed_once():
    """Within it, each node's children are listed once however many walks pass it: the facts walk a module
    several times. Each entry keeps its node alive, so no other node can take its id meanwhile."""
    global _CHILDREN
    outer, _CHILDREN = _CHILDREN, {} if _CHILDREN is None else _CHILDREN
    try:
        yield
    finally:
        _CHILDREN = outer


def _children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """`node`'s child nodes, in field order."""
    cache = _CHILDREN
    if cache is not None:
        entry = cache.get(id(node))
        if entry is not None:
            return entry[1]
    children = _field_children(node)
    if cache is not None:
        cache[id(node)] = (node, children)
    return children


def _field_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    children = []
    for name in _node_fields(type(node)):
        value = getattr(node, name)
        kind = _value_kind(type(value))
        if kind is _NODE:
            children.append(value)
        elif kind is _SEQUENCE:
            children.extend(item for item in value if _value_kind(type(item)) is _NODE)
    return children


_NODE, _SEQUENCE, _OTHER = "node", "sequence", "other"


# Nodes that hold no code, only the text around it: whitespace, comments, brackets, separators and operators.
# No walk here asks for them, and they are half a module's nodes (an attribute's Dot holds two whitespace nodes).
_LAYOUT = (cst.BaseParenthesizableWhitespace, cst.Newline, cst.EmptyLine, cst.TrailingWhitespace, cst.Comment,
           cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket, cst.LeftCurlyBrace,
           cst.RightCurlyBrace, cst.Comma, cst.Dot, cst.Colon, cst.Semicolon, cst.AssignEqual, cst.BaseBinaryOp,
           cst.BaseBooleanOp, cst.BaseCompOp, cst.BaseUnaryOp, cst.BaseAugOp)


@functools.cache
def _value_kind(value_type: type) -> str:
    # by type, once: isinstance() against CSTNode, an ABC, cost more than the rest of the walk
    if issubclass(value_type, _LAYOUT):
        return _OTHER
    if issubclass(value_type, cst.CSTNode):
        return _NODE
    return _SEQUENCE if issubclass(value_type, list | tuple) else _OTHER


@functools.cache
@functools.lru_cache(maxsize=4096)  # (classes defined in functions come anew: bounded)
def _hooks(visitor_type: type, node_type: type):
    """The functions fast_visit calls for a node of `node_type` (None: nothing to call): the visitor's own
    on_visit/on_leave when it overrides them, else its visit_<Node>/leave_<Node>, as CSTVisitor dispatches."""
    if visitor_type.on_visit is not cst.CSTVisitor.on_visit:
        visit = visitor_type.on_visit
    else:
        visit = getattr(visitor_type, f"visit_{node_type.__name__}", None)
    if visitor_type.on_leave is not cst.CSTVisitor.on_leave:
        leave = visitor_type.on_leave
    else:
        leave = getattr(visitor_type, f"leave_{node_type.__name__}", None)
    return visit, leave


@functools.cache
def _node_fields(node_type: type) -> tuple[str, ...]:
    return tuple(field.name for field in dataclasses.fields(node_type))

