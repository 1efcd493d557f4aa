"""A seeded Estimator program, the input of the `migrate rewrite --exact` fault-injection tests.

DNNClassifier with dropout on digits, shuffled numpy_input_fn, RunConfig(tf_random_seed=...) and a
checkpoint every 5 steps; `--interrupt_at N` SIGKILLs (or `--interrupt_with SIGTERM`) the process after
the N-th step of this run. Seeded as Estimator programs are, by tf_random_seed alone: that is what makes two
runs of the migrated program the same. It runs under the legacy environment as written; the tests only run
its migrations.
"""

import argparse
import os
import signal

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits


class KillHook(tf.compat.v1.train.SessionRunHook):
    """Signals the process after the `at_step`-th step of this run (counting from 1): SIGKILL or SIGTERM."""

    def __init__(self, at_step, signum):
        self._at_step = at_step
        self._signum = signum

    def begin(self):
        self._steps = 0

    def after_run(self, run_context, run_values):
        self._steps += 1
        if self._steps == self._at_step:
            os.kill(os.getpid(), self._signum)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=60)
    parser.add_argument("--interrupt_at", type=int, default=-1)
    parser.add_argument("--interrupt_with", choices=["SIGKILL", "SIGTERM"], default="SIGKILL")
    args = parser.parse_args()

    digits = load_digits()
    pixels = (digits.data / 16.0).astype(np.float32)
    labels = digits.target.astype(np.int32)
    config = tf.estimator.RunConfig(tf_random_seed=7, save_checkpoints_steps=5)
    classifier = tf.estimator.DNNClassifier(
        feature_columns=[tf.feature_column.numeric_column("x", shape=[64])],
        hidden_units=[32, 16],
        n_classes=10,
        dropout=0.3,
        model_dir=args.model_dir,
        config=config,
    )
    train_input_fn = tf.compat.v1.estimator.inputs.numpy_input_fn(
        x={"x": pixels}, y=labels, num_epochs=None, batch_size=64, shuffle=True
    )
    classifier.train(input_fn=train_input_fn, hooks=[KillHook(args.interrupt_at, signal.Signals[args.interrupt_with])], max_steps=args.max_steps)


if __name__ == "__main__":
    main()
