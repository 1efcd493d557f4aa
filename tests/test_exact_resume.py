"""Exact resume for `fit` (compat.exact), proven with real processes killed by real signals.

The harness trains tests/runtime/digits_fit.py (shuffled tf.data with reshuffle_each_iteration, dropout,
Adam; 3 epochs of 57 steps) in a subprocess, SIGKILLs it at seeded random steps (some while a checkpoint
is being written: the kill lands once the save's staging directory exists), runs it again after each
kill, and compares the final weights with a plain, uninterrupted `fit`: they must be bit-identical.
The same harness on tf_keras's BackupAndRestore documents the anchor's difference.
"""

from __future__ import annotations

import random
import signal
from pathlib import Path

import numpy as np
import pytest

from estimator_migrate.compat.preemption import PREEMPTED_EXIT_CODE
from tests.conftest import MODERN_PYTHON, max_difference, run

# On one xdist worker (--dist loadgroup): the module's reference runs (module fixtures) are made once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("exact_resume")]
KILLED = -signal.SIGKILL
TOTAL_STEPS = 171  # 3 epochs x ceil(1797 / 32)


def train(directory: Path, *flags, code=0) -> str:
    """One run of the job (backups in directory/backup); returns its stderr."""
    paths = ["--dir", directory / "backup", "--out", directory / "final.npz"]
    return run([MODERN_PYTHON, "-m", "tests.runtime.digits_fit", *paths, *flags], check_codes=(code,)).stderr


def final_weights(directory: Path) -> dict:
    with np.load(directory / "final.npz") as saved:
        return {name: saved[name] for name in saved.files}


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> dict:
    """Plain `fit`, no backup callback: what every interrupted run must end bit-identical to."""
    directory = tmp_path_factory.mktemp("uninterrupted")
    train(directory, "--mode", "none")
    weights = final_weights(directory)
    assert int(weights["steps"]) == TOTAL_STEPS
    return weights


def fault_plan(seed: int, count: int, save_freq: int) -> list[tuple[str, int]]:
    """`count` seeded fault points, spaced so that each run gets past the previous run's kill."""
    rng = random.Random(seed)
    candidates = range(3, TOTAL_STEPS - save_freq - 1, save_freq + 2)
    return [(rng.choice(["kill_at", "kill_during_save_at"]), step) for step in sorted(rng.sample(candidates, count))]


@pytest.mark.parametrize(
    "seed, count, save_freq, flags",
    [
        # four kills each, two or three of them as a save starts (a seed that gives both kinds)
        (3, 4, 10, []),
        (1, 4, 10, ["--async_save"]),
        # 57 steps an epoch = 3 x 19: backups due at an epoch's last step wait for the next epoch's iterator
        (2, 4, 19, []),
    ],
    ids=["sync", "async", "epoch-boundary-saves"],
)
def test_exact_resume_is_bit_identical_after_kills(seed, count, save_freq, flags, uninterrupted, tmp_path):
    flags = ["--mode", "exact", "--save_freq", str(save_freq), *flags]
    plan = fault_plan(seed, count, save_freq)
    during_save = 0
    for kind, step in plan:
        train(tmp_path, *flags, f"--{kind}", step, code=KILLED)
        if kind == "kill_during_save_at":
            assert list(tmp_path.glob("backup/ckpt-*_temp")), f"the kill after step {step} was meant to land mid-save"
            during_save += 1
    train(tmp_path, *flags)
    assert during_save >= 1, plan
    weights = final_weights(tmp_path)
    assert int(weights["steps"]) == TOTAL_STEPS
    assert max_difference(weights, uninterrupted) == 0.0


def test_backup_and_restore_anchor_is_not_exact(uninterrupted, tmp_path):
    """The anchor, documented: tf_keras BackupAndRestore killed once mid-epoch ends elsewhere (the resumed
    epoch restarts its data with a fresh order; dropout's random state is not saved)."""
    train(tmp_path, "--mode", "backup", "--save_freq", "10", "--kill_at", "37", code=KILLED)
    train(tmp_path, "--mode", "backup", "--save_freq", "10")
    weights = final_weights(tmp_path)
    assert int(weights["steps"]) == TOTAL_STEPS
    assert max_difference(weights, uninterrupted) > 1e-2


def test_sigterm_saves_the_finished_step_and_exits_75(uninterrupted, tmp_path):
    stderr = train(tmp_path, "--sigterm_at", "45", code=PREEMPTED_EXIT_CODE)
    assert "stopped by signal 15 after step 44" in stderr
    state = (tmp_path / "backup" / "checkpoint").read_text()
    assert 'model_checkpoint_path: "ckpt-44"' in state  # the save cadence is 10: 44 is the preemption save
    train(tmp_path)
    assert max_difference(final_weights(tmp_path), uninterrupted) == 0.0


def test_corrupt_newest_backup_falls_back_with_one_warning(uninterrupted, tmp_path):
    train(tmp_path, "--kill_at", "47", code=KILLED)
    newest = tmp_path / "backup" / "ckpt-40.data-00000-of-00001"
    data = bytearray(newest.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one flipped byte: caught by the tensor's CRC32C
    newest.write_bytes(bytes(data))
    stderr = train(tmp_path)
    warnings = [line for line in stderr.splitlines() if "CorruptCheckpointWarning" in line]
    assert len(warnings) == 1 and "ckpt-40" in warnings[0] and "resuming from" in warnings[0]
    assert warnings[0].rstrip().endswith("ckpt-30")
    assert max_difference(final_weights(tmp_path), uninterrupted) == 0.0
