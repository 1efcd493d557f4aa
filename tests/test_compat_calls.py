"""What the rewrite emits calls `estimator_migrate.compat` as it is: every `<compat module>.<name>` it writes
exists, and every call of one passes only keywords its signature takes and no more positional arguments than
it has. A mismatch is a program that fails when it runs, which no fixture's text comparison shows. Checked on
the codemod fixtures' outputs and, where ../shared/corpus exists, on the rewrite of that real code (both
targets); entity_networks' `evaluate(input_fn=..., metrics=...)` (tf.contrib.learn's) was one such call."""

from __future__ import annotations

import ast
import importlib
import inspect
import json
from pathlib import Path

import pytest

from tests.codemods.test_fixtures import FIXTURES
from tests.conftest import MIGRATE, ROOT, run

CORPUS = ROOT.parent / "shared" / "corpus" / "files"
COMPAT = "estimator_migrate.compat"


def _code_of(path: Path) -> str:
    if path.suffix != ".ipynb":
        return path.read_text()
    cells = json.loads(path.read_text())["cells"]
    sources = ("".join(cell["source"]) for cell in cells if cell["cell_type"] == "code")
    return "\n".join(source for source in sources if not source.lstrip().startswith(("%", "!")))


def _signature(target) -> inspect.Signature | None:
    try:
        return inspect.signature(target)
    except (TypeError, ValueError):
        return None


def _call_problems(call: ast.Call, target, where: str) -> list[str]:
    signature = _signature(target)
    if signature is None:
        return []
    parameters = signature.parameters.values()
    if not any(p.kind == p.VAR_KEYWORD for p in parameters):
        names = {p.name for p in parameters if p.kind != p.POSITIONAL_ONLY}
        problems = [f"{where}({k.arg}=...): not a parameter" for k in call.keywords if k.arg and k.arg not in names]
    else:
        problems = []
    if not any(p.kind == p.VAR_POSITIONAL for p in parameters):
        room = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)
        given = sum(not isinstance(a, ast.Starred) for a in call.args)
        if given > room:
            problems.append(f"{where}: {given} positional arguments, takes {room}")
    return problems


def compat_call_problems(path: Path) -> list[str]:
    """What in `path` (a migrated module or notebook) names a missing compat attribute or calls one wrongly."""
    try:
        tree = ast.parse(_code_of(path))
    except SyntaxError:  # (a corpus file the rewrite leaves alone: Python 2)
        return []
    modules = {alias.asname or alias.name: alias.name for node in ast.walk(tree)
               if isinstance(node, ast.ImportFrom) and node.module == COMPAT for alias in node.names}
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules:
            module = importlib.import_module(f"{COMPAT}.{modules[node.value.id]}")
            where = f"{path.name}:{node.lineno}: {modules[node.value.id]}.{node.attr}"
            if not hasattr(module, node.attr):
                problems.append(f"{where}: no such name")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id in modules:
            module = importlib.import_module(f"{COMPAT}.{modules[node.func.value.id]}")
            target = getattr(module, node.func.attr, None)
            if target is not None:
                problems += _call_problems(node, target, f"{path.name}:{node.lineno}: {modules[node.func.value.id]}.{node.func.attr}")
    return problems


def test_the_checker_finds_a_wrong_keyword_and_a_missing_name(tmp_path):
    program = tmp_path / "program.py"
    program.write_text("from estimator_migrate.compat import estimator_training\n"
                       "estimator_training.evaluate(model, input_fn=f, metrics=m)\n"
                       "estimator_training.no_such_function(model)\n")
    assert compat_call_problems(program) == [
        "program.py:2: estimator_training.evaluate(metrics=...): not a parameter",
        "program.py:3: estimator_training.no_such_function: no such name",
    ]


def test_fixture_outputs_call_compat_as_it_is():
    outputs = sorted(path for path in FIXTURES.glob("*/*.py") if path.name != "input.py")
    assert outputs
    assert [problem for path in outputs for problem in compat_call_problems(path)] == []


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not on this machine")
@pytest.mark.parametrize("target", ["keras", "loop"])
def test_the_corpus_rewrite_calls_compat_as_it_is(target, tmp_path):
    report = tmp_path / "report.json"
    run([MIGRATE, "rewrite", CORPUS, "--out", tmp_path / "out", "--target", target, "--quiet", "--report", report],
        check_codes=(0, 1))
    # every real file is read and rewritten (a notebook cell the rewrite would break is an error: ageron's
    # `try: %tensorflow_version 1.x` once was)
    assert {f["path"]: f["error"] for f in json.loads(report.read_text())["files"] if f["status"] == "error"} == {}
    outputs = sorted(p for p in (tmp_path / "out").rglob("*") if p.suffix in (".py", ".ipynb"))
    assert len(outputs) > 50
    assert [problem for path in outputs for problem in compat_call_problems(path)] == []
