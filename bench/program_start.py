"""Benchmark: how long a short run of a migrated program takes, start-up included, against the original.

    PYTHONPATH=. .venv/bin/python bench/program_start.py [--steps 100] [--repeats 5] [--program estimator|...]

Anchor: the original program under TensorFlow 2.15 + tensorflow-estimator (bench/training_throughput.py's
programs). Each runs `--steps` steps in a fresh model_dir, wall time from process start to exit: Python and
TensorFlow's import, graph building or tracing, the steps, the saves. The migrated programs run as written
(their first line sets TF_USE_LEGACY_KERAS: codemods/keras2_switch.py) and with TF_USE_LEGACY_KERAS=0 in their
environment, which the switch leaves alone: TensorFlow 2.21's import then loads Keras 3 too, as before the switch.
Median of `--repeats`; prints each time and its ratio to the anchor's.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from training_throughput import LEGACY, MODERN, PROGRAMS, original_and_migrated, wall_time  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--program", choices=sorted(PROGRAMS), default="estimator")
    args = parser.parse_args()
    anchor_name = PROGRAMS[args.program][0]
    anchor_label = f"{anchor_name} (TF 2.15)"
    with tempfile.TemporaryDirectory() as directory:
        scratch = Path(directory)
        original, migrated = original_and_migrated(args.program, scratch)
        runs = {anchor_label: (LEGACY, original, {})}
        for target, program in migrated.items():
            runs[f"migrated, {target}"] = (MODERN, program, {})
            runs[f"migrated, {target}, Keras 3 loaded"] = (MODERN, program, {"TF_USE_LEGACY_KERAS": "0"})
        times = {name: [] for name in runs}
        for _ in range(args.repeats):
            for name, (python, program, environment) in runs.items():
                model_dir = Path(tempfile.mkdtemp(dir=scratch)) / "model"
                times[name].append(wall_time(python, program, model_dir, args.steps, environment))
    median = {name: statistics.median(values) for name, values in times.items()}
    anchor = median[anchor_label]
    print(f"{args.program}: {args.steps} steps from process start to exit, median of {args.repeats}")
    for name, value in median.items():
        each = ", ".join(f"{t:.1f}" for t in times[name])
        print(f"  {name:37s} {value:6.1f} s  {value / anchor:5.2f}x the {anchor_name}'s time  (runs: {each})")


if __name__ == "__main__":
    main()
