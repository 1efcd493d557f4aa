"""A multi-module Estimator project (tests/projects/factory_trainer: flags in task.py, the RunConfig built in a
function, the estimator returned by model.build_estimator, input_fns through functools.partial, no model_dir
argument) migrated as a tree by the run-time linked tier, for both targets: the migrated program ends at the
Estimator's final step and close to its accuracy (initial weights differ between the two runs), and a SIGKILL
after its first checkpoint and a restart end at the same step."""

import json
import shutil

import pytest

from compat.convert import convert_checkpoint
from tests.conftest import MIGRATE, MODERN_PYTHON, ROOT, run, sigkill_after_save

PROJECT = ROOT / "tests" / "projects" / "factory_trainer"
MAX_STEPS = 300
# Same initial weights, each its own shuffle: three runs of each measured 0.370-0.376 (Estimator) and
# 0.370-0.378 (migrated) on the held-out examples.
ACCURACY_TOLERANCE = 0.03
pytestmark = [pytest.mark.slow, pytest.mark.legacy]


def _train(python, project, model_dir, max_steps=MAX_STEPS) -> dict:
    result = run([python, "-m", "trainer.task", "--model-dir", model_dir, "--max-steps", str(max_steps)],
                 cwd=project)
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def estimator_result(legacy_python, tmp_path_factory):
    work = tmp_path_factory.mktemp("estimator")
    project = work / "project"
    shutil.copytree(PROJECT, project)
    return _train(legacy_python, project, work / "model")


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_migrated_project_trains_and_resumes_as_the_estimator(estimator_result, target, tmp_path):
    migrated = tmp_path / "project"
    report = tmp_path / "report.json"
    run([MIGRATE, "rewrite", PROJECT, "--target", target, "--out", migrated, "--report", report])
    summary = json.loads(report.read_text())["summary"]
    assert summary["manual"] == 0 and summary["migrated"] == 6, summary

    whole = _train(MODERN_PYTHON, migrated, tmp_path / "whole")
    assert estimator_result["global_step"] == whole["global_step"] == MAX_STEPS

    model_dir = tmp_path / "killed"
    saves = model_dir / "backup" / "chief" if target == "keras" else model_dir  # BackupAndRestore's; the loop's
    first = 1 if target == "keras" else 5  # backups are numbered by save, the loop's checkpoints by step
    command = [MODERN_PYTHON, "-m", "trainer.task", "--model-dir", model_dir, "--max-steps", str(MAX_STEPS)]
    left = sigkill_after_save(command, saves, at_least=first, cwd=migrated)
    assert left >= first
    resumed = _train(MODERN_PYTHON, migrated, model_dir)
    assert resumed["global_step"] == MAX_STEPS


def _estimator_started_at_step_0(legacy_python, project, work):
    """A model_dir holding only the Estimator's step-0 checkpoint (its initial weights), made by a 1-step run."""
    first = work / "first"
    _train(legacy_python, project, first, max_steps=1)
    start = work / "start"
    start.mkdir()
    for file in first.glob("model.ckpt-0.*"):
        shutil.copy(file, start / file.name)
    (start / "checkpoint").write_text('model_checkpoint_path: "model.ckpt-0"\n')
    return start


def test_migrated_project_accuracy_matches_the_estimator(legacy_python, tmp_path):
    """From the Estimator's own initial weights (converted for the migrated program), both train 300 steps on
    their own shuffles and end within ACCURACY_TOLERANCE of each other on the held-out examples."""
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    start = _estimator_started_at_step_0(legacy_python, project, tmp_path)
    estimator_dir = tmp_path / "estimator"
    shutil.copytree(start, estimator_dir)
    estimator = _train(legacy_python, project, estimator_dir, MAX_STEPS)

    migrated = tmp_path / "migrated"
    run([MIGRATE, "rewrite", PROJECT, "--out", migrated])
    migrated_dir = tmp_path / "migrated_model"
    convert_checkpoint(start / "model.ckpt-0", out=migrated_dir)
    whole = _train(MODERN_PYTHON, migrated, migrated_dir, MAX_STEPS)
    assert estimator["global_step"] == whole["global_step"] == MAX_STEPS
    assert abs(whole["accuracy"] - estimator["accuracy"]) <= ACCURACY_TOLERANCE, (whole, estimator)
