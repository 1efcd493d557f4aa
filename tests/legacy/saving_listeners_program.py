"""CheckpointSaverListeners given to train(saving_listeners=...) and TrainSpec(saving_listeners=...), for
tests/test_saving_listeners.py: the input of `migrate rewrite` and, unchanged, the legacy reference run.

A custom model_fn trains to max_steps=25, then to 100 with a listener that asks to stop after its third save
(Estimator stopped at 45); its listener reads the global step through the session it is given, from a tensor
it took in begin(). A canned estimator, in model_dir/canned, trains with train_and_evaluate to 30 with a
listener in its TrainSpec. Every call of every listener is appended to model_dir/saves.txt: what, the step it was
given, the step read (or -1). Fixed batch order; a checkpoint every 10 steps.
"""

import argparse
import os

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits


class SaveLogger(tf.estimator.CheckpointSaverListener):
    """Writes each call; asks to stop once it has seen `stop_after` saves."""

    def __init__(self, path, name, stop_after=None, read_step=False):
        self.path, self.name, self.stop_after, self.read_step = path, name, stop_after, read_step
        self.saves = 0

    def begin(self):
        self.global_step = tf.compat.v1.train.get_global_step() if self.read_step else None
        self._write("begin", -1, -1)

    def before_save(self, session, global_step_value):
        self._write("before_save", global_step_value, self._read(session))

    def after_save(self, session, global_step_value):
        self.saves += 1
        self._write("after_save", global_step_value, self._read(session))
        return self.stop_after is not None and self.saves >= self.stop_after

    def end(self, session, global_step_value):
        self._write("end", global_step_value, self._read(session))

    def _read(self, session):
        return session.run(self.global_step) if self.read_step else -1

    def _write(self, what, step, read):
        with open(self.path, "a") as out:
            out.write(f"{self.name} {what} {int(step)} {int(read)}\n")


def input_fn():
    digits = load_digits()
    x, y = (digits.data / 16.0).astype(np.float32), digits.target.astype(np.int32)
    return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(32)


def model_fn(features, labels, mode):
    logits = tf.compat.v1.layers.dense(features["x"], 10, name="logits",
                                       kernel_initializer=tf.compat.v1.glorot_uniform_initializer(seed=1))
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    args = parser.parse_args()
    saves = os.path.join(args.model_dir, "saves.txt")
    config = tf.estimator.RunConfig(model_dir=args.model_dir, save_checkpoints_steps=10, keep_checkpoint_max=10)
    estimator = tf.estimator.Estimator(model_fn=model_fn, config=config)
    estimator.train(input_fn=input_fn, max_steps=25, saving_listeners=[SaveLogger(saves, "first", read_step=True)])
    estimator.train(input_fn=input_fn, max_steps=100,
                    saving_listeners=[SaveLogger(saves, "second", stop_after=3, read_step=True)])

    canned_config = tf.estimator.RunConfig(model_dir=os.path.join(args.model_dir, "canned"), save_checkpoints_steps=10,
                                           tf_random_seed=3)
    linear = tf.estimator.LinearClassifier(feature_columns=[tf.feature_column.numeric_column("x", shape=[64])],
                                           n_classes=10, config=canned_config)
    train_spec = tf.estimator.TrainSpec(input_fn=input_fn, max_steps=30, saving_listeners=[SaveLogger(saves, "canned")])
    eval_spec = tf.estimator.EvalSpec(input_fn=lambda: input_fn().take(2), steps=None, throttle_secs=0)
    tf.estimator.train_and_evaluate(linear, train_spec, eval_spec)


if __name__ == "__main__":
    main()
