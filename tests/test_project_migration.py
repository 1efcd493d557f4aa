"""A multi-module Estimator project (tests/projects/factory_trainer: flags in task.py, the RunConfig built in a
function, the estimator returned by model.build_estimator, input_fns through functools.partial, no model_dir
argument) migrated as a tree by the run-time linked tier, for both targets: the migrated program ends at the
Estimator's final step, and a SIGKILL after its first checkpoint and a restart end at the same step.

Known gap, kept visible (strict xfail): on this data the Estimator ends at an accuracy of 0.18-0.32 and the
migrated program at 1.0 (different initial weights; tests/test_canned_equivalence.py finds the same steps from
the same weights, so the cause is still to be found: input handling of train_and_evaluate is the suspect)."""

import json
import shutil

import pytest

from tests.conftest import MIGRATE, MODERN_PYTHON, ROOT, run, sigkill_after_save

PROJECT = ROOT / "tests" / "projects" / "factory_trainer"
MAX_STEPS = 300
pytestmark = [pytest.mark.slow, pytest.mark.legacy]


def _train(python, project, model_dir) -> dict:
    result = run([python, "-m", "trainer.task", "--model-dir", model_dir, "--max-steps", str(MAX_STEPS)],
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


@pytest.mark.xfail(strict=True, reason="known gap: the Estimator's accuracy on this project is far below the "
                   "migrated program's (module docstring)")
def test_migrated_project_accuracy_matches_the_estimator(estimator_result, tmp_path):
    migrated = tmp_path / "project"
    run([MIGRATE, "rewrite", PROJECT, "--out", migrated])
    whole = _train(MODERN_PYTHON, migrated, tmp_path / "whole")
    assert abs(whole["accuracy"] - estimator_result["accuracy"]) <= 0.1, (whole, estimator_result)
