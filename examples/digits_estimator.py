"""The seed-001 fault-tolerance scenario as a TF1 Estimator program, on scikit-learn's digits.

A DNNClassifier checkpoints every step (RunConfig(save_checkpoints_steps=1)); `--interrupt_at N`
makes a hook crash the process at its N-th step (SIGKILL, or RuntimeError with `--interrupt_with raise`).
Run it again with the same arguments and the Estimator resumes from its latest `model.ckpt-N`.

This is the input of `migrate rewrite`: it runs under TensorFlow <= 2.15 with tensorflow-estimator.
"""

import argparse
import os
import signal

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

tf1 = tf.compat.v1


class InterruptHook(tf1.train.SessionRunHook):
    """Interrupts training at the `at_step`-th step of this run (counting from 0), like seed 001."""

    def __init__(self, at_step, how="kill"):
        self._at_step = at_step
        self._how = how

    def begin(self):
        self._step = -1

    def before_run(self, run_context):
        self._step += 1

    def after_run(self, run_context, run_values):
        if self._step == self._at_step:
            if self._how == "raise":
                raise RuntimeError("Interruption")
            os.kill(os.getpid(), signal.SIGKILL)


def load_data():
    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32)
    y = digits.target.astype(np.int32)
    return x, y


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=10)
    parser.add_argument("--interrupt_at", type=int, default=-1)
    parser.add_argument("--interrupt_with", choices=["kill", "raise"], default="kill")
    args = parser.parse_args()

    x_train, y_train = load_data()
    feature_columns = [tf1.feature_column.numeric_column("x", shape=[8, 8])]
    config = tf1.estimator.RunConfig(save_summary_steps=1, save_checkpoints_steps=1)

    classifier = tf1.estimator.DNNClassifier(
        feature_columns=feature_columns,
        hidden_units=[256, 32],
        optimizer=tf1.train.AdamOptimizer(0.001),
        n_classes=10,
        dropout=0.2,
        model_dir=args.model_dir,
        config=config,
    )

    train_input_fn = tf1.estimator.inputs.numpy_input_fn(
        x={"x": x_train},
        y=y_train,
        num_epochs=10,
        batch_size=50,
        shuffle=True,
    )
    classifier.train(
        input_fn=train_input_fn,
        hooks=[InterruptHook(args.interrupt_at, args.interrupt_with)],
        max_steps=args.max_steps,
    )


if __name__ == "__main__":
    main()
