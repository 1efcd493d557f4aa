"""The tutorials: committed notebooks are the generator's output (no outputs in git), and each one runs
top to bottom in the environment it names and computes what it teaches.

Notebook 4 reads what notebooks 1-3 left in `runs/`, so all of them run in one working directory, in order,
on one xdist worker (`xdist_group`, with `--dist loadgroup` in the Makefile).
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import LEGACY_PYTHON, MODERN_PYTHON, ROOT, run
from tutorials.build_notebooks import NOTEBOOKS, build

TUTORIALS = ROOT / "tutorials"
RUNNER = ROOT / "tests" / "run_notebook.py"
PYTHON = {"legacy": LEGACY_PYTHON, "modern": MODERN_PYTHON}


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_committed_notebook_is_generated_and_has_no_outputs(name):
    committed = (TUTORIALS / name).read_text()
    assert committed == build(name), f"run `python tutorials/build_notebooks.py` after editing the cells of {name}"
    cells = json.loads(committed)["cells"]
    assert all(not cell.get("outputs") for cell in cells)


@pytest.mark.legacy
@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_notebook_run_elsewhere_stops_at_its_first_cell_saying_where_it_runs(name, legacy_python):
    """Each notebook runs where its first code cell says (the tests execute it there); run in the other
    environment that cell stops it with one error naming the environment, before anything else runs."""
    cells = json.loads((TUTORIALS / name).read_text())["cells"]
    first = "".join(next(cell for cell in cells if cell["cell_type"] == "code")["source"])
    elsewhere = MODERN_PYTHON if NOTEBOOKS[name][1] == "legacy" else legacy_python
    completed = run([elsewhere, "-c", first], check_codes=(1,))
    where = ".venv-legacy" if NOTEBOOKS[name][1] == "legacy" else "modern environment, .venv"
    last = completed.stderr.strip().splitlines()[-1]
    assert last.startswith("RuntimeError: ") and "not installed: run this notebook in" in last and where in last


@pytest.fixture(scope="module")
def tutorials_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("tutorials")


_executed: dict[str, dict] = {}


def execute(name: str, work_dir) -> dict:
    """Run a notebook (once per session) in the shared working directory; return what it measured."""
    if name not in _executed:
        environment = NOTEBOOKS[name][1]
        run([PYTHON[environment], RUNNER, TUTORIALS / name, work_dir], timeout=300)
        _executed[name] = json.loads((work_dir / "runs" / "results" / name.replace(".ipynb", ".json")).read_text())
    return _executed[name]


def steps(points, attempt=None):
    return [point[0] for point in points if attempt is None or point[2] == attempt]


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.xdist_group("tutorials")
def test_estimator_tutorial_crashes_and_resumes_from_its_checkpoint(legacy_python, tutorials_dir):
    results = execute("01_estimator.ipynb", tutorials_dir)
    assert results["killed_exit_code"] == -9
    assert results["step_after_kill"] == 3  # saved every 3 steps; killed after step 5
    assert "model.ckpt-3.index" in results["files_after_kill"]
    assert not any(f.startswith("model.ckpt-4") or f.startswith("model.ckpt-5") for f in results["files_after_kill"])
    assert results["final_step"] == 20
    assert steps(results["curves"]["uninterrupted"]) == list(range(1, 21))
    assert steps(results["curves"]["interrupted"])[-17:] == list(range(4, 21))  # the re-run: from step 4
    assert results["max_weight_difference"] > 1e-3  # the input restarted: not the uninterrupted weights


@pytest.mark.slow
@pytest.mark.xdist_group("tutorials")
def test_keras_tutorial_shows_what_backup_and_restore_restores(tutorials_dir):
    results = execute("02_keras_backup_and_restore.ipynb", tutorials_dir)
    assert results["resumed_at"] == {"epoch": 4, "steps": 3}  # end of epoch 1; the last save_freq=3 backup
    assert results["final_step"] == {"epoch": 20, "steps": 20}
    curves = results["curves"]
    assert steps(curves["save_freq=3"], "after the restore") == list(range(4, 21))
    assert steps(curves["save_freq=epoch"], "after the restore") == list(range(5, 21))
    # The data of the resumed epoch restarts, so neither run ends where the uninterrupted one does.
    assert min(results["max_weight_difference"].values()) > 1e-3


@pytest.mark.slow
@pytest.mark.xdist_group("tutorials")
def test_loop_tutorial_resumes_bit_exactly_with_the_iterator_in_the_checkpoint(tutorials_dir):
    results = execute("03_custom_loop_checkpoint_manager.ipynb", tutorials_dir)
    assert results["resumed_at"] == 4  # checkpoints at steps 1, 4, 7, ...: the latest before the crash
    assert results["final_step"] == 20
    assert results["max_weight_difference"] == 0.0
    # The restarted manager saves at its first step (5), then every 3 (..., 17) and at the end (20);
    # max_to_keep=2 keeps the last two.
    assert results["kept_checkpoints"] == ["ckpt-17.index", "ckpt-20.index"]
    uninterrupted = {point[0]: point[1] for point in results["curves"]["uninterrupted"]}
    resumed = [point for point in results["curves"]["interrupted"] if point[2] == "after the restore"]
    assert [point[1] for point in resumed] == [uninterrupted[point[0]] for point in resumed]


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.xdist_group("tutorials")
def test_side_by_side_tutorial_migrates_and_compares(legacy_python, tutorials_dir):
    for earlier in ("01_estimator.ipynb", "02_keras_backup_and_restore.ipynb", "03_custom_loop_checkpoint_manager.ipynb"):
        execute(earlier, tutorials_dir)
    results = execute("04_side_by_side_and_migration.ipynb", tutorials_dir)
    assert results["keras_diff_has"] == {"BackupAndRestore": True, "CheckpointManager": True}
    assert results["loop_diff_has"] == {"CheckpointManager": True, "GradientTape": True}
    assert {"model.keras", "ckpt-3.index", "checkpoint"} <= set(results["converted_files"])
    assert results["migrated_steps"] == list(range(4, 21))  # Keras continued at the Estimator's step + 1
    table = results["table"]
    assert [row["resumed_at"] for row in table.values()] == [3, 4, 3, 4, 3]
    exact = ("Custom loop + CheckpointManager", "Keras ExactBackupAndRestore, save_freq=3")
    for name in exact:
        assert table[name]["max_weight_difference"] == 0.0 and table[name]["max_loss_difference"] == 0.0
    others = [row for name, row in table.items() if name not in exact]
    assert all(row["max_loss_difference"] > 0 for row in others)
    assert (tutorials_dir / "runs" / "results" / "side_by_side.png").stat().st_size > 10_000


@pytest.mark.slow
@pytest.mark.xdist_group("tutorials")
def test_ray_tutorial_restarts_a_killed_trial_bit_exactly_and_trains_on_two_workers(tutorials_dir):
    results = execute("05_ray_tune_and_train.ipynb", tutorials_dir)
    assert results["errors"] == []
    assert results["final_steps"] == {"0.02": 60, "0.05": 60, "0.1": 60}
    failed = results["curves"]["0.05"]
    # killed after its backup at 30 was written but before it was reported: restarted from step 20
    assert [(step, attempt) for step, _, attempt in failed] == [(10, 0), (20, 0), (30, 1), (40, 1), (50, 1)]
    assert all(attempt == 0 for rate in ("0.02", "0.1") for _, _, attempt in results["curves"][rate])
    assert results["twin_difference"] == 0.0  # --exact: the crash changed nothing
    assert results["accuracy"]["0.1"] > results["accuracy"]["0.02"]  # the search tells the rates apart
    # Ray Train: two workers in step, rank 0's model_dir handed over with the final checkpoint
    assert results["workers"]["error"] == "" and results["workers"]["global_step"] == 60
    assert {"checkpoint", "ckpt-60.index"} <= set(results["workers"]["checkpoint_files"])
    assert "backup" not in results["workers"]["checkpoint_files"]  # --exact's backups end with the training
