"""Benchmark: a short program run of the test suite through its zygote, against the same run in a new interpreter.

    PYTHONPATH=. .venv/bin/python bench/suite_runs.py [--steps 20] [--repeats 5]

Anchor: the original Estimator program (bench/training_throughput.py's, TensorFlow 2.15 + tensorflow-estimator) run
as the suite ran every program before tests/zygote.py: a new interpreter, `import tensorflow` included. Then the same
run forked from the legacy environment's zygote server, and the migrated program (keras and loop targets) in a new
interpreter and forked from the modern one's. `--steps` steps in a fresh model_dir each, wall time from the request to
the exit code (conftest.run's view: its stdout and stderr read in full). The servers are started once, before
timing, as the suite starts each at its first run. Median of `--repeats`; prints each time, and each zygote run's
ratio to the same program's new interpreter, and each run's to the anchor's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from training_throughput import LEGACY, MODERN, original_and_migrated  # noqa: E402

from tests.zygote import Zygotes  # noqa: E402

ENVIRONMENT = {"TF_CPP_MIN_LOG_LEVEL": "2", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}


def timed(run, command: list, model_dir: Path) -> float:
    start = time.perf_counter()
    completed = run(command)
    seconds = time.perf_counter() - start
    if completed.returncode != 0:
        raise SystemExit(f"{command} exited {completed.returncode}:\n{completed.stderr[-2000:]}")
    if not any(model_dir.iterdir()):
        raise SystemExit(f"{command} wrote nothing in {model_dir}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    zygotes = Zygotes(LEGACY, MODERN, ENVIRONMENT)
    try:
        with tempfile.TemporaryDirectory() as directory:
            scratch = Path(directory)
            original, migrated = original_and_migrated("estimator", scratch)
            programs = {"Estimator (TF 2.15)": (LEGACY, original)}
            programs.update({f"migrated, {target}": (MODERN, path) for target, path in migrated.items()})
            for python, program in programs.values():  # start both servers, outside the timing
                assert zygotes.takes([python, program], {}, ENVIRONMENT), f"the zygote does not take {program}"
                (scratch / "warm").mkdir(exist_ok=True)
                zygotes.run([python, program, "--model_dir", scratch / "warm", "--max_steps", "1"], ENVIRONMENT)
            ways = {"new interpreter": lambda command: subprocess.run(
                        [str(c) for c in command], capture_output=True, text=True, env=ENVIRONMENT),
                    "zygote": lambda command: zygotes.run(command, ENVIRONMENT)}
            times: dict[tuple[str, str], list[float]] = {(name, way): [] for name in programs for way in ways}
            for _ in range(args.repeats):  # rounds: a slow spell of the machine spreads over all of them
                for name, (python, program) in programs.items():
                    for way, run in ways.items():
                        model_dir = scratch / f"{len(times[name, way])}-{way}-{name}".replace(" ", "_")
                        model_dir.mkdir()
                        command = [python, program, "--model_dir", model_dir, "--max_steps", str(args.steps)]
                        times[name, way].append(timed(run, command, model_dir))
    finally:
        zygotes.close()
    anchor = statistics.median(times["Estimator (TF 2.15)", "new interpreter"])
    print(f"{args.steps} steps, median of {args.repeats}, {os.cpu_count()} cores; anchor: the Estimator program "
          f"in a new interpreter, {anchor:.2f} s")
    for name in programs:
        fresh = statistics.median(times[name, "new interpreter"])
        for way in ways:
            seconds = statistics.median(times[name, way])
            versus = f", {seconds / fresh:.2f}x its new interpreter's" if way == "zygote" else ""
            print(f"  {name:<22} {way:<16} {seconds:6.2f} s  {seconds / anchor:.2f}x the anchor{versus}")


if __name__ == "__main__":
    main()
