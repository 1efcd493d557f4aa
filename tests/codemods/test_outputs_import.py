"""Every migrated fixture output with nothing left to do by hand imports on today's TensorFlow (no
`tf.estimator`, no `tensorflow_estimator`): its module-level imports are run here, in the modern env."""

import ast

import pytest

from tests.codemods.test_fixtures import FIXTURES

OUTPUTS = sorted(
    path
    for path in FIXTURES.glob("*/*.py")
    if path.name != "input.py" and "TODO(migrate)" not in path.read_text()
)


@pytest.mark.parametrize("path", OUTPUTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_migrated_module_imports(path):
    tree = ast.parse(path.read_text())
    imports = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
    assert imports
    exec(compile(ast.Module(body=imports, type_ignores=[]), str(path), "exec"), {})


def test_annotations_naming_estimator_apis_are_evaluated_and_the_program_trains(tmp_path, monkeypatch):
    """fixtures/estimator_annotations: its defs' annotations name tf.estimator APIs, which fail the written module's
    import here; the migrated modules define every function (their annotations evaluated) and train."""
    # The migrated modules set it (codemods/keras2_switch.py): undone after the test, for the processes others start.
    monkeypatch.setenv("TF_USE_LEGACY_KERAS", "1")
    case = FIXTURES / "estimator_annotations"
    with pytest.raises(AttributeError, match="estimator"):
        exec(compile((case / "input.py").read_text(), "input.py", "exec"), {})
    for target in ("keras", "loop"):
        namespace = {}
        exec(compile((case / f"{target}.py").read_text(), f"{target}.py", "exec"), namespace)
        model = namespace["build"](str(tmp_path / target))
        namespace["train"](model, steps=3)
        assert int(model.optimizer.iterations) == 3
