"""No output fails where no TODO says so: every `tf.estimator` name (and `tensorflow_estimator` import) left in a
rewritten module, which TensorFlow >= 2.16 lacks, has a `TODO(migrate)` in the comments right above its statement
or above a definition holding it (codemods/rules/estimator_leftovers.py speaks for what no other rule marked).

Read with Python's `ast`, names resolved through the module's imports: an independent check of the rewrite's
outputs, over every fixture output and over ../shared/corpus rewritten for both targets."""

from __future__ import annotations

import ast

import pytest

from migrate.discovery import discover
from migrate.runner import process_all
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "codemods" / "fixtures"
CORPUS = ROOT.parent / "shared" / "corpus" / "files"
ESTIMATOR_MODULES = ("tensorflow.estimator", "tensorflow.compat.v1.estimator", "tensorflow_estimator")


def _aliases(tree: ast.Module) -> dict[str, str]:
    """Each name the module's imports bind to a module of TensorFlow (or tensorflow_estimator), by its full name."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in ("tensorflow", "tensorflow_estimator"):
                    found[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level \
                and node.module.split(".")[0] in ("tensorflow", "tensorflow_estimator"):
            for alias in node.names:
                found[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return found


def _dotted(node: ast.expr, aliases: dict[str, str]) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id in aliases:
        return ".".join([aliases[node.id], *reversed(parts)])
    return None


def _is_estimator_name(name: str | None) -> bool:
    return name is not None and any(name == module or name.startswith(module + ".") for module in ESTIMATOR_MODULES)


def _todo_above(lines: list[str], first_line: int) -> bool:
    """Whether the comment lines right above line `first_line` (1-based) hold a TODO(migrate)."""
    index = first_line - 2
    while index >= 0 and lines[index].lstrip().startswith("#"):
        if "TODO(migrate)" in lines[index]:
            return True
        index -= 1
    return False


def _first_line(statement: ast.stmt) -> int:
    decorators = getattr(statement, "decorator_list", [])
    return min([statement.lineno, *(decorator.lineno for decorator in decorators)])


def silent_estimator_names(code: str) -> list[tuple[int, str]]:
    """(line, name) of each estimator name of `code` that no TODO covers."""
    tree = ast.parse(code)
    lines, aliases, silent = code.splitlines(), _aliases(tree), []

    def visit(statement: ast.stmt, covered: bool) -> None:
        covered = covered or _todo_above(lines, _first_line(statement))
        children = [child for field in ("body", "orelse", "finalbody", "handlers")
                    for child in getattr(statement, field, []) if isinstance(child, ast.stmt | ast.ExceptHandler)]
        for handler in [child for child in children if isinstance(child, ast.ExceptHandler)]:
            children += handler.body
        inner = {id(node) for child in children for node in ast.walk(child)}
        if not covered:
            nodes = [node for node in ast.walk(statement) if id(node) not in inner]
            within = {id(node.value) for node in nodes if isinstance(node, ast.Attribute)}  # (`tf.estimator` of a chain)
            for node in nodes:
                if id(node) in within:
                    continue
                name = _dotted(node, aliases) if isinstance(node, ast.Attribute) else None
                if isinstance(node, ast.Import | ast.ImportFrom):
                    modules = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module]
                    name = next((module for module in modules if _is_estimator_name(module)), None)
                if _is_estimator_name(name):
                    silent.append((node.lineno, name))
        for child in children:
            if isinstance(child, ast.stmt):
                visit(child, covered)

    for statement in tree.body:
        visit(statement, False)
    return sorted(set(silent))


def test_the_check_finds_an_unmarked_name_and_passes_a_marked_one():
    code = ("import tensorflow as tf\n\n\ndef model_fn(features, labels, mode):\n"
            "    return tf.estimator.EstimatorSpec(mode)\n")
    assert silent_estimator_names(code) == [(5, "tensorflow.estimator.EstimatorSpec")]
    marked = code.replace("def model_fn", "# TODO(migrate): kept\ndef model_fn")
    assert silent_estimator_names(marked) == []


OUTPUTS = sorted(path for path in FIXTURES.glob("*/*.py") if path.name != "input.py")


@pytest.mark.parametrize("output", OUTPUTS, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_no_fixture_output_leaves_an_estimator_name_unmarked(output):
    assert silent_estimator_names(output.read_text()) == []


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not on this machine")
@pytest.mark.parametrize("target", ["keras", "loop"])
def test_no_real_output_leaves_an_estimator_name_unmarked(target):
    silent = {}
    for result in process_all(discover(str(CORPUS)), target, 1):  # (a pool would fork a worker holding TensorFlow)
        if result.file.path.suffix == ".py" and result.status == "changed":
            found = silent_estimator_names(result.new_code)
            if found:
                silent[result.file.relative] = found
    assert silent == {}
