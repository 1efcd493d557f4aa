"""Benchmark: training steps/s of an Estimator program (legacy env) against its migrations (modern env).

    PYTHONPATH=. .venv/bin/python bench/training_throughput.py [--steps 20000] [--repeats 3]

Anchor: the original Estimator program under TensorFlow 2.15 + tensorflow-estimator. The same program
(DNNClassifier [128, 64] on digits, Adam, batch 32, shuffled, a checkpoint every 200 steps, summaries every
100) is rewritten by `migrate rewrite --target keras` and `--target loop`, and each of the three runs for
100 steps and for 100 + `--steps` steps in fresh model_dirs: steps/s = `--steps` / (difference of the two
wall times), so start-up, graph building and tracing cancel out. Median of `--repeats`; prints the ratios.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODERN = Path(sys.executable)
LEGACY = ROOT / ".venv-legacy" / "bin" / "python"
WARM_UP_STEPS = 100

PROGRAM = '''\
import argparse

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

tf1 = tf.compat.v1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, required=True)
    args = parser.parse_args()
    digits = load_digits()
    columns = [tf1.feature_column.numeric_column("x", shape=[64])]
    config = tf1.estimator.RunConfig(save_checkpoints_steps=200, save_summary_steps=100)
    classifier = tf1.estimator.DNNClassifier(
        feature_columns=columns,
        hidden_units=[128, 64],
        n_classes=10,
        optimizer=tf1.train.AdamOptimizer(0.001),
        model_dir=args.model_dir,
        config=config,
    )
    train_input_fn = tf1.estimator.inputs.numpy_input_fn(
        x={"x": (digits.data / 16.0).astype(np.float32)},
        y=digits.target.astype(np.int32),
        batch_size=32,
        num_epochs=None,
        shuffle=True,
    )
    classifier.train(input_fn=train_input_fn, max_steps=args.max_steps)


if __name__ == "__main__":
    main()
'''


def wall_time(python: Path, program: Path, model_dir: Path, steps: int) -> float:
    start = time.perf_counter()
    subprocess.run(
        [str(python), str(program), "--model_dir", str(model_dir), "--max_steps", str(steps)],
        check=True,
        capture_output=True,
        env={"TF_CPP_MIN_LOG_LEVEL": "2", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )
    return time.perf_counter() - start


def steps_per_second(python: Path, program: Path, scratch: Path, steps: int) -> float:
    short = wall_time(python, program, Path(tempfile.mkdtemp(dir=scratch)) / "model", WARM_UP_STEPS)
    long = wall_time(python, program, Path(tempfile.mkdtemp(dir=scratch)) / "model", WARM_UP_STEPS + steps)
    return steps / (long - short)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        scratch = Path(directory)
        original = scratch / "estimator_program.py"
        original.write_text(PROGRAM)
        programs = {"Estimator (TF 2.15)": (LEGACY, original)}
        for target in ("keras", "loop"):
            out = scratch / target
            subprocess.run(
                [str(MODERN.parent / "migrate"), "rewrite", str(original), "--target", target, "--out", str(out)],
                check=True,
                capture_output=True,
            )
            programs[f"migrated, {target} (TF 2.21)"] = (MODERN, out / original.name)
        rates = {name: [] for name in programs}
        for _ in range(args.repeats):
            for name, (python, program) in programs.items():
                rates[name].append(steps_per_second(python, program, scratch, args.steps))
    median = {name: statistics.median(values) for name, values in rates.items()}
    anchor = median["Estimator (TF 2.15)"]
    print(f"{args.steps} steps timed (after {WARM_UP_STEPS}), median of {args.repeats}")
    for name, value in median.items():
        runs = ", ".join(f"{r:.0f}" for r in rates[name])
        print(f"  {name:24s} {value:7.0f} steps/s  {value / anchor:5.2f}x the Estimator  (runs: {runs})")


if __name__ == "__main__":
    main()
