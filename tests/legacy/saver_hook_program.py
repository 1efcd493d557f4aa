"""An Estimator program whose checkpoints come from a CheckpointSaverHook in train(hooks=...): every 7 steps,
while the RunConfig says 100 (the hook replaced the Estimator's own saver). `--interrupt_at N` SIGKILLs the
process after the N-th step of the run (counting from 0). Runs under the legacy environment;
tests/test_saver_hook.py also runs what `migrate rewrite` makes of it.
"""

import argparse
import os
import signal

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

tf1 = tf.compat.v1


class InterruptHook(tf1.train.SessionRunHook):
    def __init__(self, at_step):
        self._at_step = at_step

    def begin(self):
        self._step = -1

    def before_run(self, run_context):
        self._step += 1

    def after_run(self, run_context, run_values):
        if self._step == self._at_step:
            os.kill(os.getpid(), signal.SIGKILL)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=30)
    parser.add_argument("--interrupt_at", type=int, default=-1)
    args = parser.parse_args()

    digits = load_digits()
    config = tf1.estimator.RunConfig(save_checkpoints_steps=100, keep_checkpoint_max=100)
    classifier = tf1.estimator.DNNClassifier(
        feature_columns=[tf1.feature_column.numeric_column("x", shape=[8, 8])],
        hidden_units=[16],
        n_classes=10,
        model_dir=args.model_dir,
        config=config,
    )
    train_input_fn = tf1.estimator.inputs.numpy_input_fn(
        x={"x": (digits.images / 16.0).astype(np.float32)},
        y=digits.target.astype(np.int32),
        num_epochs=None,
        batch_size=32,
        shuffle=True,
    )
    classifier.train(
        input_fn=train_input_fn,
        hooks=[tf1.train.CheckpointSaverHook(args.model_dir, save_steps=7), InterruptHook(args.interrupt_at)],
        max_steps=args.max_steps,
    )


if __name__ == "__main__":
    main()
