"""Exact resume under MultiWorkerMirroredStrategy: two worker processes on 127.0.0.1, real signals.

tests/runtime/multiworker_fit.py trains digits (shuffled each epoch, dropout, 2 epochs of 56 steps) with
one process per worker. A worker is SIGKILLed; the other, left waiting in a collective, is killed too
(what a cluster manager does before restarting the job); both are started again. The run must end at the
right step with the weights of an uninterrupted two-worker run, bit for bit.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from estimator_migrate.compat.preemption import PREEMPTED_EXIT_CODE
from tests.conftest import MODERN_PYTHON, QUIET_TF, max_difference

# On one xdist worker (--dist loadgroup): the module's reference runs (module fixtures) are made once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("multiworker")]
TOTAL_STEPS = 112  # 2 epochs x 1797 // 32 (drop_remainder: every global batch splits evenly)


def free_ports(count: int) -> int:
    """A base port with `count` free ports after it (checked by binding them)."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            base = probe.getsockname()[1]
        if base + count < 65536 and all(_free(base + i) for i in range(count)):
            return base
    raise RuntimeError("no free ports on 127.0.0.1")


def _free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def run_workers(directory: Path, flags: dict[int, list] | None = None, mode: str = "exact") -> list[int]:
    """Start both workers; once one exits, give the other 30 s, then SIGKILL it. Returns the exit codes."""
    port = free_ports(2)
    processes = []
    for index in (0, 1):
        command = [MODERN_PYTHON, "-m", "tests.runtime.multiworker_fit", "--index", index, "--port", port]
        command += ["--mode", mode, "--dir", directory / "backup", "--out", directory / "final.npz"]
        command += (flags or {}).get(index, [])
        with open(directory / f"worker{index}.log", "a") as log:
            processes.append(subprocess.Popen([str(c) for c in command], stdout=log, stderr=log, env=QUIET_TF))
    deadline = None
    while any(p.poll() is None for p in processes):
        if deadline is None and any(p.poll() is not None for p in processes):
            deadline = time.monotonic() + 30
        if deadline is not None and time.monotonic() > deadline:
            for p in processes:
                if p.poll() is None:
                    p.send_signal(signal.SIGKILL)
        time.sleep(0.1)
    return [p.returncode for p in processes]


def final_weights(directory: Path) -> dict:
    with np.load(directory / "final.npz") as saved:
        return {name: saved[name] for name in saved.files}


def log(directory: Path, index: int) -> str:
    return (directory / f"worker{index}.log").read_text()


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> dict:
    directory = tmp_path_factory.mktemp("uninterrupted")
    assert run_workers(directory, mode="none") == [0, 0], log(directory, 0)[-3000:]
    weights = final_weights(directory)
    assert int(weights["steps"]) == TOTAL_STEPS
    return weights


def test_kill_one_worker_restart_both_ends_bit_identical(uninterrupted, tmp_path):
    # worker 1 dies in epoch 0 (backup at 30); the chief dies in epoch 1 (backup at 70), so the second
    # resume replays the iterator of an epoch after the first
    codes = run_workers(tmp_path, {1: ["--kill_at", 37]})
    assert codes[1] == -signal.SIGKILL and codes[0] != 0
    codes = run_workers(tmp_path, {0: ["--kill_at", 75]})
    assert codes[0] == -signal.SIGKILL and codes[1] != 0
    assert run_workers(tmp_path) == [0, 0], log(tmp_path, 0)[-3000:]
    # worker 1's steps across the three runs: each run resumed after the last backup (30, then 70)
    steps = [int(line.split()[1]) for line in log(tmp_path, 1).splitlines() if line.startswith("step ")]
    assert steps == [*range(1, 38), *range(31, 76), *range(71, TOTAL_STEPS + 1)]
    weights = final_weights(tmp_path)
    assert int(weights["steps"]) == TOTAL_STEPS
    assert max_difference(weights, uninterrupted) == 0.0


def test_sigterm_to_one_worker_stops_both_at_the_same_step(uninterrupted, tmp_path):
    assert run_workers(tmp_path, {1: ["--sigterm_at", 45]}) == [PREEMPTED_EXIT_CODE, PREEMPTED_EXIT_CODE]
    assert "stopped by signal 15 after step 45" in log(tmp_path, 1)
    assert "stopped by another worker's preemption signal after step 45" in log(tmp_path, 0)
    state = (tmp_path / "backup" / "checkpoint").read_text()
    assert 'model_checkpoint_path: "ckpt-45"' in state  # the cadence is 10: 45 is the preemption save
    assert not list((tmp_path / "backup").glob("workertemp_*"))  # the other worker's copy is discarded
    assert run_workers(tmp_path) == [0, 0]
    weights = final_weights(tmp_path)
    assert int(weights["steps"]) == TOTAL_STEPS
    assert max_difference(weights, uninterrupted) == 0.0
