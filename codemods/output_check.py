"""The rewrite's check of its own output: no name TensorFlow 2 lacks is left where no TODO says so.

A rewritten module may keep TF1 code (an estimator with no TensorFlow 2 form, the model_fn of a kept subclass),
but each reference it keeps to an API that TensorFlow >= 2.16 lacks (`tf.estimator.*`, `tensorflow_estimator`,
`tf.contrib.*`, `tf.logging`, `from tensorflow import flags`, ...) must be covered by a `TODO(migrate)`: in the
comments right above its statement or above a statement holding it (a definition kept whole), or above the
import that bound the name it is reached through. Anything else is a half-migrated program that fails where no
TODO says so: a bug of the rewrite, which `migrate_source` raises as `SilentBreakage` rather than write.

Read with Python's `ast` (a fraction of the rewrite's time), names resolved through the module's imports.
"""

from __future__ import annotations

import ast

from codemods.tf1_api import missing_in_tf2

MARK = "TODO(migrate)"
_GONE_MODULES = ("tensorflow_estimator", "tensorflow.estimator", "tensorflow.compat.v1.estimator",
                 "tensorflow.python.estimator", "tensorflow.contrib", "tensorflow.compat.v1.contrib")


class SilentBreakage(Exception):
    """The rewrite left a name TensorFlow 2 lacks with no TODO: (line, name) pairs in `.places`."""

    def __init__(self, places: list[tuple[int, str]]):
        self.places = places
        shown = ", ".join(f"{name} at line {line}" for line, name in places[:3])
        more = f" and {len(places) - 3} more" if len(places) > 3 else ""
        super().__init__(f"the output keeps {shown}{more} with no TODO (TensorFlow >= 2.16 lacks it)")


def gone_from_tf2(name: str) -> bool:
    """Whether TensorFlow 2 lacks the dotted `name` (a module or an object below `tensorflow`)."""
    if any(name == module or name.startswith(module + ".") for module in _GONE_MODULES):
        return True
    if not name.startswith("tensorflow."):
        return False
    parts = name.split(".")[1:]
    return any(missing_in_tf2(".".join(parts[:end])) for end in range(1, len(parts) + 1))


def silent_breakage(code: str) -> list[tuple[int, str]]:
    """(line, name) of each name of `code` that TensorFlow 2 lacks and no TODO covers; [] for code Python cannot
    parse (the rewrite's own parse check speaks for that)."""
    if "tensorflow" not in code:
        return []
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    lines = code.splitlines()
    bound, flagged_imports = _imports(tree, lines)
    silent = []

    def visit(statement: ast.stmt, covered: bool) -> None:
        covered = covered or _todo_above(lines, _first_line(statement))
        children = _child_statements(statement)
        if not covered:
            inner = {id(node) for child in children for node in ast.walk(child)}
            nodes = [node for node in ast.walk(statement) if id(node) not in inner]
            chained = {id(node.value) for node in nodes if isinstance(node, ast.Attribute)}
            for node in nodes:
                if id(node) in chained:
                    continue
                for name, root in _names(node, bound):
                    if gone_from_tf2(name) and root not in flagged_imports:
                        silent.append((node.lineno, name))
        for child in children:
            visit(child, covered)

    for statement in tree.body:
        visit(statement, False)
    return sorted(set(silent))


def _imports(tree: ast.Module, lines: list[str]) -> tuple[dict[str, str], set[str]]:
    """Each name an import binds, by the dotted name it stands for; and those bound by an import with a TODO."""
    bound, flagged = {}, set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            pairs = [(alias.asname or alias.name.split(".")[0], alias.name if alias.asname else alias.name.split(".")[0])
                     for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            pairs = [(alias.asname or alias.name, f"{node.module}.{alias.name}") for alias in node.names]
        else:
            continue
        for local, full in pairs:
            bound[local] = full
            if _todo_above(lines, node.lineno):
                flagged.add(local)
    return bound, flagged


def _names(node: ast.AST, bound: dict[str, str]) -> list[tuple[str, str | None]]:
    """(dotted name, local root name) of what `node` references: an attribute chain or name reached through an
    import, or the modules an import statement names."""
    if isinstance(node, ast.Import):
        return [(alias.name, None) for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        return [(f"{node.module}.{alias.name}", None) for alias in node.names] if node.module and not node.level else []
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id in bound:
        return [(".".join([bound[node.id], *reversed(parts)]), node.id)]
    return []


def _child_statements(statement: ast.stmt) -> list[ast.stmt]:
    children = [child for field in ("body", "orelse", "finalbody") for child in getattr(statement, field, [])
                if isinstance(child, ast.stmt)]
    for handler in getattr(statement, "handlers", []):
        children += handler.body
    for case in getattr(statement, "cases", []):
        children += case.body
    return children


def _first_line(statement: ast.stmt) -> int:
    return min([statement.lineno, *(decorator.lineno for decorator in getattr(statement, "decorator_list", []))])


def _todo_above(lines: list[str], first_line: int) -> bool:
    """Whether the comment lines right above line `first_line` (1-based), or the line itself, hold a TODO."""
    if MARK in lines[first_line - 1]:
        return True
    index = first_line - 2
    while index >= 0 and lines[index].lstrip().startswith("#"):
        if MARK in lines[index]:
            return True
        index -= 1
    return False
