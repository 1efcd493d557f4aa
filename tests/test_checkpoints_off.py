"""Checkpointing switched off (`RunConfig(save_checkpoints_steps=0, save_summary_steps=0)`, or both cadences None):
Estimator made no CheckpointSaverHook, so a training saved nothing and a later call started from model_dir's
latest checkpoint, or from a fresh initialization. tests/legacy/checkpoints_off_program.py (TF 1.x code, its loss
logged every step) under the real Estimator and migrated for both targets, each from the Estimator's model.ckpt-0:
the same losses step by step, no checkpoint saved, and the same evaluation (of model.ckpt-0). Evaluating after such
a training with no checkpoint at all (Estimator: a fresh initialization) is one error."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import (
    MIGRATE,
    MODERN_PYTHON,
    ROOT,
    estimator_start,
    migrate_file,
    respelled,
    run,
    wrapped_reference,
)

PROGRAM = ROOT / "tests" / "legacy" / "checkpoints_off_program.py"
RUN_AS_TF1 = ROOT / "tests" / "legacy" / "run_as_tf1.py"
STEPS = 10
# LoggingTensorHook's lines ("loss = 0.35", then "loss = 0.65 (0.002 sec)"), not Estimator's "loss = .., step = 1"
# nor the evaluation's "Saving dict for global step 0: ..., loss = 0.66"
LOGGED_LOSS = re.compile(r"(?:^|:)loss = ([-+\d.e]+)(?: \([\d.]+ sec\))?$", re.M)


def saved(model_dir) -> list[str]:
    """The checkpoints in model_dir (and below it: a backup is one too)."""
    return sorted(path.name for path in model_dir.rglob("*.index"))


def logged_losses(stderr: str) -> list[float]:
    return [float(value) for value in LOGGED_LOSS.findall(stderr)]


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.parametrize("target", ["keras", "loop"])
def test_a_training_with_checkpointing_off_saves_nothing_and_takes_the_estimators_steps(target, legacy_python,
                                                                                        tmp_path):
    saving = respelled(PROGRAM, {"save_checkpoints_steps=0": "save_checkpoints_steps=100"}, tmp_path / "saving.py")
    start = wrapped_reference(legacy_python, saving, tmp_path / "start", STEPS, as_tf1=True)
    reference_dir = estimator_start(start, tmp_path / "estimator")
    estimator = run([legacy_python, RUN_AS_TF1, PROGRAM, "--model_dir", reference_dir, "--max_steps", STEPS,
                     "--results", tmp_path / "estimator.json"])
    expected = logged_losses(estimator.stderr)
    assert len(expected) == STEPS
    assert saved(reference_dir) == ["model.ckpt-0.index"]  # nothing of the training saved

    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    model_dir = estimator_start(start, tmp_path / "model")
    completed = run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--max_steps", STEPS,
                     "--results", tmp_path / "migrated.json"])
    assert logged_losses(completed.stderr) == pytest.approx(expected, abs=1e-5)
    assert saved(model_dir) == ["model.ckpt-0.index"]
    assert not (model_dir / "backup").exists()
    got, want = (json.loads((tmp_path / name).read_text()) for name in ("migrated.json", "estimator.json"))
    assert want["metrics"]["global_step"] == 0  # Estimator evaluated model.ckpt-0, the latest in model_dir
    assert got["metrics"] == pytest.approx(want["metrics"], rel=1e-5)


@pytest.mark.slow
def test_evaluating_after_a_training_with_checkpointing_off_and_no_checkpoint_is_one_error(tmp_path):
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", "keras")
    completed = run([MODERN_PYTHON, migrated, "--model_dir", tmp_path / "model", "--max_steps", 3,
                     "--results", tmp_path / "results.json"], check_codes=(1,))
    assert "ValueError: evaluate after a training with checkpointing off" in completed.stderr
    assert not (tmp_path / "results.json").exists()


def test_checkpointing_off_goes_to_the_run_time_tier(tmp_path):
    report = tmp_path / "report.json"
    run([MIGRATE, "rewrite", PROGRAM, "--out", tmp_path / "out", "--report", report])
    findings = json.loads(report.read_text())["files"][0]["findings"]
    assert all(finding["migrated"] for finding in findings)
    assert "estimator_training.TrainingConfig(save_checkpoints_steps=0, save_summary_steps=0" in (
        tmp_path / "out" / PROGRAM.name).read_text()
