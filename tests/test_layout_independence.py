"""One program's rewrite does not depend on the programs beside it (codemods/project/graph.py): a module gets the
same output whether its tree is rewritten whole, one project at a time, one script (with the helpers it imports)
at a time, or with the module given alone, as pre-commit passes files.

Shapes: tests/projects (a folder of scripts, one keeping an Estimator subclass TF1; trainer packages run with
`python -m`, whose task.py trains what another module's factory returns), and ../shared/corpus/files, real code of
many repositories, rewritten as one tree and as one tree per repository."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from migrate.discovery import discover
from migrate.runner import process_all
from tests.conftest import ROOT

PROJECTS = ROOT / "tests" / "projects"
CORPUS = ROOT.parent / "shared" / "corpus" / "files"


def _outputs(path: Path, target: str = "keras") -> dict[str, str]:
    """Each Python module under `path` (or `path` itself) and what rewriting `path` makes of it, by path from `path`.
    In this process (one job): a pool would fork a test worker that may have imported TensorFlow, which crashes."""
    files = discover(str(path))
    results = process_all(files, target, 1)
    return {result.file.relative: result.new_code if result.status == "changed" else result.file.path.read_text()
            for result in results if result.file.path.suffix == ".py" and result.status in ("changed", "unchanged")}


def _rewritten(path: Path) -> str:
    (result,) = process_all(discover(str(path)), "keras", 1)
    return result.new_code if result.status == "changed" else path.read_text()


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_each_script_of_a_folder_gets_what_it_gets_alone_with_its_helper(target, tmp_path):
    folder = PROJECTS / "scripts_folder"
    whole = _outputs(folder, target)
    for script in ("linear_train.py", "custom_train.py", "pinned_train.py"):
        alone = tmp_path / script.removesuffix(".py")
        alone.mkdir()
        for name in (script, "data.py"):
            shutil.copyfile(folder / name, alone / name)
        assert _outputs(alone, target)[script] == whole[script], script
    assert "TODO(migrate)" not in whole["linear_train.py"] + whole["custom_train.py"]
    assert "TODO(migrate)" in whole["pinned_train.py"]


@pytest.mark.parametrize("project", ["scripts_folder", "factory_trainer", "wide_deep"])
def test_a_module_given_alone_gets_what_its_tree_gets(project, tmp_path):
    """The index reads the module's import root from disk: task.py, given alone, still knows that
    model.build_estimator returns an estimator, and the scripts that the subclass beside them is not theirs."""
    tree = shutil.copytree(PROJECTS / project, tmp_path / project)
    whole = _outputs(tree)
    changed = [relative for relative, code in whole.items() if code != (tree / relative).read_text()]
    assert changed
    for relative in changed:
        assert _rewritten(tree / relative) == whole[relative], relative


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not on this machine")
def test_real_code_rewritten_as_one_tree_or_one_tree_per_repository_is_the_same():
    whole = _outputs(CORPUS)
    for repository in sorted(path for path in CORPUS.iterdir() if path.is_dir()):
        alone = _outputs(repository)
        for relative, code in alone.items():
            assert whole[f"{repository.name}/{relative}"] == code, f"{repository.name}/{relative}"


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not on this machine")
def test_real_modules_side_by_side_in_one_folder_get_what_each_gets_alone(tmp_path):
    """Every module of the corpus, copied into one folder (named after its path, so none imports another)."""
    flat = tmp_path / "flat"
    flat.mkdir()
    for path in sorted(CORPUS.glob("**/*.py")):
        shutil.copyfile(path, flat / path.relative_to(CORPUS).as_posix().replace("/", "__"))
    whole = _outputs(flat)
    for name, code in whole.items():
        alone = tmp_path / "alone" / name.removesuffix(".py")
        alone.mkdir(parents=True)
        shutil.copyfile(flat / name, alone / name)
        assert _outputs(alone)[name] == code, name
