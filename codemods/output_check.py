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
import functools

from codemods.tf1_api import missing_in_tf2
from codemods.tf_era import dotted_name

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


@functools.cache
def gone_from_tf2(name: str) -> bool:
    """Whether TensorFlow 2 lacks the dotted `name` (a module or an object below `tensorflow`)."""
    if any(name == module or name.startswith(module + ".") for module in _GONE_MODULES):
        return True
    if not name.startswith("tensorflow."):
        return False
    parts = name.split(".")[1:]
    return any(missing_in_tf2(".".join(parts[:end])) for end in range(1, len(parts) + 1))


def silent_breakage(code: str, tree: ast.Module | None = None) -> list[tuple[int, str]]:
    """(line, name) of each name of `code` (whose tree Python's parser made, if given) that TensorFlow 2 lacks and
    no TODO covers; [] for code Python cannot parse (the rewrite's own parse check speaks for that). One walk of the
    module's tree in source order, which skips what a TODO covers and learns the imports as it meets them."""
    if "tensorflow" not in code:
        return []
    if tree is None:
        try:
            tree = ast.parse(code)
        except SyntaxError:
            return []
    lines = code.splitlines()
    # each name an import binds -> the dotted names it may stand for (`try: import tensorflow.compat.v1 as tf`,
    # `except ImportError: import tensorflow as tf`: either; a name is gone only if gone from each)
    bound: dict[str, tuple[str, ...]] = {}
    flagged: set[str] = set()  # those bound by an import with a TODO (the program stops there, said)
    silent = []
    stack: list = list(reversed(tree.body))
    while stack:
        node = stack.pop()
        if isinstance(node, dict):  # the end of a function whose parameters hid imported names
            bound = node
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            hidden = {argument.arg for argument in ast.walk(node.args) if isinstance(argument, ast.arg)} & bound.keys()
            if hidden:  # (`def build(tf=tf)`: what `tf` holds there is the caller's; not judged)
                stack.append(bound)
                bound = {name: alternatives for name, alternatives in bound.items() if name not in hidden}
        if isinstance(node, ast.stmt) and _todo_above(lines, _first_line(node)):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for local, full in _bound_by(node):
                    _bind(bound, local, full)
                    flagged.add(local)
            continue  # (covered, with all it holds)
        if isinstance(node, ast.Import | ast.ImportFrom):
            silent += [(node.lineno, full) for full in _imported(node) if gone_from_tf2(full)]
            for local, full in _bound_by(node):
                _bind(bound, local, full)
                flagged.discard(local)
            continue
        if isinstance(node, ast.Name | ast.Attribute):
            chain = _chain(node, bound)
            if chain is not None:
                names, root = chain
                if names and root not in flagged and all(map(gone_from_tf2, names)):
                    silent.append((node.lineno, names[-1]))
                continue  # (the chain named whole: not `tf.estimator` of `tf.estimator.RunConfig` again)
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
    return sorted(set(silent))


def _bound_by(node: ast.Import | ast.ImportFrom) -> list[tuple[str, str]]:
    """(the name bound, the dotted name it stands for) of each name an import statement binds."""
    if isinstance(node, ast.Import):
        return [(alias.asname or alias.name.split(".")[0], alias.name if alias.asname else alias.name.split(".")[0])
                for alias in node.names]
    if node.module and not node.level:
        return [(alias.asname or alias.name, f"{node.module}.{alias.name}") for alias in node.names if alias.name != "*"]
    return []


def _imported(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The dotted names an import statement loads."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    return [f"{node.module}.{alias.name}" for alias in node.names] if node.module and not node.level else []


def _bind(bound: dict[str, tuple[str, ...]], local: str, full: str) -> None:
    if full not in bound.get(local, ()):
        bound[local] = (*bound.get(local, ()), full)


def _chain(node: ast.Name | ast.Attribute, bound: dict[str, tuple[str, ...]]) -> tuple[list[str], str] | None:
    """(the dotted names it may stand for, the local name it starts at) of an attribute chain or name, none unless
    reached through an import; None when the chain starts elsewhere (a call's result: its parts are walked)."""
    dotted = dotted_name(node)
    if dotted is None:
        return None
    root, _, rest = dotted.partition(".")
    return [f"{full}.{rest}" if rest else full for full in bound.get(root, ())], root


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
