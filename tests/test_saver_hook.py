"""A CheckpointSaverHook in train(hooks=...) replaced the Estimator's own saver: its save_steps, not the
RunConfig's, set the cadence. tests/legacy/saver_hook_program.py (hook every 7 steps, RunConfig 100) runs
under the real Estimator and as migrated by both targets: uninterrupted, both leave the
Estimator's checkpoint steps; SIGKILLed after the 18th step and run again, both resume from the step the
Estimator resumed from (its last save, 14) and end at max_steps.
"""

from __future__ import annotations

import signal

import pytest
import tensorflow as tf

from migrate.demo import checkpoint_step
from tests.conftest import MODERN_PYTHON, ROOT, migrate_file, run

# On one xdist worker (--dist loadgroup): the module's reference runs (module fixtures) are made once.
pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("saver_hook")]
PROGRAM = ROOT / "tests" / "legacy" / "saver_hook_program.py"
MAX_STEPS, INTERRUPT_AT = 30, 17


def checkpoint_steps(model_dir) -> list[int]:
    state = tf.train.get_checkpoint_state(str(model_dir))
    return sorted(int(path.rsplit("-", 1)[1]) for path in state.all_model_checkpoint_paths)


def kill_and_resume(python, program, model_dir, step_dir) -> tuple[int, int]:
    """(step of the last save before the kill, final step after the re-run)."""
    flags = ["--model_dir", model_dir, "--max_steps", MAX_STEPS]
    run([python, program, *flags, "--interrupt_at", INTERRUPT_AT], check_codes=(-signal.SIGKILL,))
    saved = checkpoint_step(step_dir)
    run([python, program, *flags])
    return saved, checkpoint_step(model_dir)


@pytest.fixture(scope="module")
def estimator_runs(legacy_python, tmp_path_factory):
    """The Estimator's checkpoint steps uninterrupted, and (saved, final) when killed and re-run."""
    straight = tmp_path_factory.mktemp("straight") / "model"
    run([legacy_python, PROGRAM, "--model_dir", straight, "--max_steps", MAX_STEPS])
    killed = tmp_path_factory.mktemp("killed") / "model"
    return checkpoint_steps(straight), kill_and_resume(legacy_python, PROGRAM, killed, killed)


def test_the_estimator_saves_at_the_hooks_cadence(estimator_runs):
    steps, (saved, final) = estimator_runs
    assert steps == [0, 7, 14, 21, 28, 30]  # not the RunConfig's 100
    assert (saved, final) == (14, MAX_STEPS)


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_migrated_program_saves_at_the_hooks_cadence(target, estimator_runs, tmp_path):
    program = migrate_file(PROGRAM, tmp_path / "migrated", target)
    source = program.read_text()
    assert "CheckpointSaverHook(" not in source
    assert {"keras": "save_steps=7", "loop": "checkpoint_interval=7"}[target] in source
    steps, resumed = estimator_runs
    straight = tmp_path / "straight"  # model_dir keeps the checkpoints of the hook's steps (keras: kept_checkpoints)
    run([MODERN_PYTHON, program, "--model_dir", straight, "--max_steps", MAX_STEPS])
    assert checkpoint_steps(straight) == steps
    model_dir = tmp_path / "model"
    step_dir = model_dir / "backup" / "chief" if target == "keras" else model_dir
    assert kill_and_resume(MODERN_PYTHON, program, model_dir, step_dir) == resumed
