"""Python 2 modules become Python 3 before they are migrated: TF 1.x ran on Python 2.7, TensorFlow 2 does not.

The conversion is 2to3's, from its maintained fork fissix (the standard library's lib2to3 is gone from
Python 3.13): print statements, xrange, `except E, e`, dict views, `.next()`, ... with 2to3's default fixers
except `import`, which makes `import model` of a sibling module relative, and a relative import fails in a
module run as a script (Cloud ML's `python trainer/task.py`, most TF1 programs).

2to3 leaves two changes of meaning in silence; here they are made explicit, so the converted program
computes what it did:
- `/` (and `/=`) without `from __future__ import division` floored integers: they call
  `python2.classic_division` (`classic_inplace_division`), which decides when the program runs. Division by
  a float literal or `float(...)`, true division in both Pythons, stays `/`; of two integer literals, `//`.
- the builtin `round` rounded half away from zero and returned a float: `python2.classic_round`.
A `/=` on a target that cannot be evaluated twice without side effects (`x[f()] /= 2`) keeps a TODO.

Line numbers of the findings are those of the converted module (2to3 adds a line per import it needs).
"""

from __future__ import annotations

import ast
import functools
import io
import tokenize

import libcst as cst

from codemods.findings import Finding, todo_comment
from codemods.imports import RUNTIME_PACKAGE, NeededImport, add_imports

RULE = "python2"
HELPERS = "python2"  # the module of estimator_migrate.compat the converted code calls
_SKIPPED_FIXERS = {"fissix.fixes.fix_import"}
_INPLACE_TODO = (
    "`/=` of a target with side effects: Python 2 floored integers here, Python 3 does not; write "
    "`target = python2.classic_inplace_division(target, value)` with the target evaluated once"
)


class NotPython2(Exception):
    """The module does not parse as Python 2 either (or cannot be converted without a name clash)."""


def to_python3(source: str, name: str = "<module>") -> tuple[str, list[Finding]]:
    """`source`, a Python 2 module, converted to Python 3 with Python 2's meaning kept, and the findings
    saying so. Raises NotPython2 when `source` does not parse as Python 2."""
    code, findings = _converted(source, name)
    return code, list(findings)


# A rewrite converts each Python 2 module twice, in one process with --jobs 1: to index it, then to migrate it
@functools.lru_cache(maxsize=4)
def _converted(source: str, name: str) -> tuple[str, tuple[Finding, ...]]:
    from fissix import refactor  # imported here: only modules that fail to parse as Python 3 need it
    from fissix.pgen2.parse import ParseError
    from fissix.pgen2.tokenize import TokenError

    future = refactor._detect_future_features(source)  # fix_future drops the `__future__` imports
    tool = _refactoring_tool("print_function" in future)
    source = source if source.endswith("\n") else source + "\n"
    for attempt in (source, python2_indentation(source)):
        try:
            converted = str(tool.refactor_string(attempt, name))
        except (ParseError, TokenError, IndentationError, SyntaxError) as error:
            raise NotPython2(f"does not parse as Python 2 either: {error}") from error
        try:
            module = cst.parse_module(converted)
            break
        except cst.ParserSyntaxError as error:
            if "inconsistent mixing of tabs and spaces" not in error.message or attempt is not source:
                raise NotPython2(f"2to3's conversion does not parse as Python 3: {error.message}") from error
    if HELPERS in _bound_names(converted):
        raise NotPython2(f"the module binds the name `{HELPERS}`, which the converted code would import")
    meaning = _KeepPython2Meaning(classic_division="division" not in future, builtin_round="round" not in _bound_names(converted))
    module = module.visit(meaning)
    if meaning.helpers_used:
        module = add_imports(module, [NeededImport(RUNTIME_PACKAGE, HELPERS)])
    message = "converted from Python 2 to Python 3 (2to3's fixers)"
    if meaning.helpers_used:
        kept = ", ".join(sorted(meaning.helpers_used))
        message += f"; Python 2's meaning kept for {kept} (estimator_migrate.compat.python2)"
    code = module.code
    todo = todo_comment(RULE, _INPLACE_TODO)
    findings = [Finding(RULE, 1, 0, True, message)]
    findings += [
        Finding(RULE, number + 1, 0, False, _INPLACE_TODO)
        for number, line in enumerate(code.splitlines(), start=1)
        if line.strip() == todo
    ]
    return code, tuple(findings)


def python2_indentation(source: str) -> str:
    """`source` with the tabs of its indentation read as Python 2 read them (to the next multiple of 8 columns)
    and written as spaces: Python 3 refuses a module mixing tabs and spaces that Python 2 ran. Lines inside a
    string literal keep their text."""
    inside_strings: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.STRING and token.end[0] > token.start[0]:
                inside_strings.update(range(token.start[0] + 1, token.end[0] + 1))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return source
    lines = source.splitlines(keepends=True)
    for number, line in enumerate(lines, start=1):
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        if "\t" in indent and number not in inside_strings:
            lines[number - 1] = indent.expandtabs(8) + line[len(indent):]
    return "".join(lines)


@functools.cache
def _refactoring_tool(print_function: bool):
    """2to3's tool, made once per process: compiling its fixers' patterns costs ten conversions."""
    from fissix import refactor

    fixers = [fixer for fixer in refactor.get_fixers_from_package("fissix.fixes") if fixer not in _SKIPPED_FIXERS]
    return refactor.RefactoringTool(fixers, {"print_function": print_function})


def python3_tree(source: str, name: str = "<module>") -> ast.Module | None:
    """The `ast` of `source` if it parses as Python 3, else of its conversion from Python 2, else None: what
    the project index reads."""
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        pass
    try:
        return ast.parse(to_python3(source, name)[0])
    except NotPython2:
        return None


def _bound_names(code: str) -> set[str]:
    """Names the module binds anywhere (assigned, defined, imported, parameters)."""
    bound = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return bound


def _helper(name: str, *args: cst.BaseExpression) -> cst.Call:
    return cst.Call(
        cst.Attribute(cst.Name(HELPERS), cst.Name(name)), [cst.Arg(arg) for arg in args]
    )


def _truly_float(node: cst.BaseExpression) -> bool:
    """An operand that makes `/` true division in Python 2 as in 3: a float literal or `float(...)`."""
    while isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    if isinstance(node, cst.Float):
        return True
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "float"


def _integer_literal(node: cst.BaseExpression) -> bool:
    while isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    return isinstance(node, cst.Integer)


def _evaluates_without_effects(node: cst.BaseExpression) -> bool:
    """Whether evaluating `node` twice is the same as once: names, attributes and simple subscripts of them."""
    if isinstance(node, cst.Name):
        return True
    if isinstance(node, cst.Attribute):
        return _evaluates_without_effects(node.value)
    if isinstance(node, cst.Subscript):
        return _evaluates_without_effects(node.value) and all(
            isinstance(element.slice, cst.Index)
            and isinstance(element.slice.value, (cst.Integer, cst.SimpleString))
            or isinstance(element.slice, cst.Index) and _evaluates_without_effects(element.slice.value)
            for element in node.slice
        )
    return False


class _KeepPython2Meaning(cst.CSTTransformer):
    """`/`, `/=` and `round(...)` rewritten to compute what Python 2 computed."""

    METADATA_DEPENDENCIES = ()

    def __init__(self, classic_division: bool, builtin_round: bool):
        super().__init__()
        self.classic_division, self.builtin_round = classic_division, builtin_round
        self.helpers_used: set[str] = set()
        self._statement_todo = False

    def leave_BinaryOperation(self, original, updated):
        if not self.classic_division or not isinstance(updated.operator, cst.Divide):
            return updated
        if _truly_float(updated.left) or _truly_float(updated.right):
            return updated
        if _integer_literal(updated.left) and _integer_literal(updated.right):
            return updated.with_changes(operator=cst.FloorDivide(
                whitespace_before=updated.operator.whitespace_before,
                whitespace_after=updated.operator.whitespace_after,
            ))
        self.helpers_used.add("`/` of integers")
        call = _helper("classic_division", updated.left, updated.right)
        return call.with_changes(lpar=updated.lpar, rpar=updated.rpar)

    def leave_Call(self, original, updated):
        if self.builtin_round and isinstance(updated.func, cst.Name) and updated.func.value == "round":
            self.helpers_used.add("round()")
            return updated.with_changes(func=cst.Attribute(cst.Name(HELPERS), cst.Name("classic_round")))
        return updated

    def leave_AugAssign(self, original, updated):
        if not self.classic_division or not isinstance(updated.operator, cst.DivideAssign):
            return updated
        if _truly_float(updated.value):
            return updated
        if not _evaluates_without_effects(updated.target):
            self._statement_todo = True
            return updated
        self.helpers_used.add("`/=` of integers")
        return cst.Assign(
            [cst.AssignTarget(updated.target)],
            _helper("classic_inplace_division", updated.target, updated.value),
        )

    def leave_SimpleStatementLine(self, original, updated):
        if not self._statement_todo:
            return updated
        self._statement_todo = False
        comment = cst.EmptyLine(comment=cst.Comment(todo_comment(RULE, _INPLACE_TODO)))
        return updated.with_changes(leading_lines=(*updated.leading_lines, comment))
