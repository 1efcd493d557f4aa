"""The checkpoints an Estimator kept in model_dir, kept by the migrated training (compat.kept_checkpoints).

tests/legacy/checkpoint_sweep_program.py (a canned estimator built by a factory: the run-time tier) trains with a
checkpoint every 10 steps and `keep_checkpoint_max=3`, then evaluates each checkpoint model_dir still lists. From the
Estimator's model.ckpt-0, the migrated program (both targets) keeps the checkpoints of the same steps (40, 50, 60)
and evaluates each as the Estimator did (its metrics within 1e-5); killed after a kept checkpoint and run again, it
keeps the last three steps of its run (300 steps there: room for the kill to land mid-run)."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import (
    MODERN_PYTHON,
    ROOT,
    estimator_start,
    listed_checkpoint_steps,
    migrate_file,
    run,
    sigkill_after_save,
)

pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("kept_checkpoints")]

PROGRAM = ROOT / "tests" / "legacy" / "checkpoint_sweep_program.py"


@pytest.fixture(scope="module")
def estimator(legacy_python, tmp_path_factory):
    """The Estimator's model.ckpt-0 (of a one-step run) and its run from there: (start dir, model_dir, results)."""
    work = tmp_path_factory.mktemp("estimator")
    first = work / "first"
    run([legacy_python, PROGRAM, "--model_dir", first, "--max_steps", 1, "--results", work / "first.json"])
    start = estimator_start(first, work / "start")
    model_dir = work / "model"
    shutil.copytree(start, model_dir)
    run([legacy_python, PROGRAM, "--model_dir", model_dir, "--results", work / "results.json"])
    return start, model_dir, json.loads((work / "results.json").read_text())


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_the_migrated_training_keeps_and_evaluates_the_estimators_checkpoints(target, estimator, tmp_path):
    start, estimator_dir, expected = estimator
    assert listed_checkpoint_steps(estimator_dir) == [40, 50, 60] and set(expected["evaluated"]) == {"40", "50", "60"}
    program = migrate_file(PROGRAM, tmp_path / "migrated", target)
    model_dir = tmp_path / "model"
    shutil.copytree(start, model_dir)
    results = tmp_path / "results.json"
    run([MODERN_PYTHON, program, "--model_dir", model_dir, "--results", results])
    migrated = json.loads(results.read_text())
    assert migrated["evaluated"].keys() == expected["evaluated"].keys()
    for step, metrics in expected["evaluated"].items():
        assert migrated["evaluated"][step] == pytest.approx(metrics, rel=1e-5), step
    assert migrated["best"] == expected["best"]

    # (300 steps: the kill must land between two saves of a small model's fast steps, on a loaded machine too)
    killed = tmp_path / "killed"
    shutil.copytree(start, killed)
    command = [MODERN_PYTHON, program, "--model_dir", killed, "--results", tmp_path / "killed.json", "--max_steps", 300]
    assert sigkill_after_save(command, killed, at_least=20) < 300
    run(command)
    assert set(json.loads((tmp_path / "killed.json").read_text())["evaluated"]) == {"280", "290", "300"}
    assert listed_checkpoint_steps(killed) == [280, 290, 300]
