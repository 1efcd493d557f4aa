"""save_checkpoints_secs end to end: the Estimator and its migrations both checkpoint on the clock.

tests/legacy/timed_program.py (RunConfig(save_checkpoints_secs=1), steps of >= 0.3 s) is killed after
the 9th step of its first run and run again, under the real Estimator and as migrated by both targets.
Which steps a clock picks is not deterministic, so the comparison is of behaviour: a checkpoint made on
time alone (after step 0, no later than the kill) is there to resume from, and the re-run ends at
max_steps.
"""

from __future__ import annotations

import signal

import pytest

from migrate.demo import checkpoint_step
from tests.conftest import MODERN_PYTHON, ROOT, migrate_file, run

pytestmark = [pytest.mark.slow, pytest.mark.legacy]
PROGRAM = ROOT / "tests" / "legacy" / "timed_program.py"


def kill_and_resume(python, program, model_dir, step_dir) -> tuple[int, int]:
    """(step of the checkpoint the kill left, final step after the re-run)."""
    flags = ["--model_dir", model_dir, "--max_steps", "12"]
    run([python, program, *flags, "--interrupt_at", "8"], check_codes=(-signal.SIGKILL,))
    saved = checkpoint_step(step_dir)
    run([python, program, *flags])
    return saved, checkpoint_step(model_dir)


def test_estimator_checkpoints_on_the_clock(legacy_python, tmp_path):
    saved, final = kill_and_resume(legacy_python, PROGRAM, tmp_path / "model", tmp_path / "model")
    assert 0 < saved <= 9 and final == 12


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_migrated_program_checkpoints_on_the_clock(target, tmp_path):
    program = migrate_file(PROGRAM, tmp_path / "migrated", target)
    emitted = {"keras": "TimedBackupAndRestore(", "loop": "time.monotonic() - classifier_saved_at >= 1"}[target]
    assert emitted in program.read_text()
    model_dir = tmp_path / "model"
    step_dir = model_dir / "backup" / "chief" if target == "keras" else model_dir
    saved, final = kill_and_resume(MODERN_PYTHON, program, model_dir, step_dir)
    assert 0 < saved <= 9 and final == 12
