"""A TensorFlow 1.x model_fn whose hooks fetch the global step with the step, for tests/test_tf1_step_fetch.py: a
LoggingTensorHook of the step and the loss in its training_hooks, and a hook of the program's own fetching the
step variable, the step by its name "global_step:0" and the loss (kept as a SessionRunHook: it fetches more than
the step). TensorFlow 1.x gave such fetches the step after the step (a ref variable's buffer, which the step's
increment had updated). Run by the legacy reference as 1.x ran it (tests/legacy/run_as_tf1.py). Trains to
--max_steps; --results gets what the hook saw at each step and the steps the LoggingTensorHook logged.
"""

import argparse
import json
import logging

import numpy as np
import tensorflow as tf


class Logged(logging.Handler):
    """The LoggingTensorHook's lines, as TensorFlow's logger emitted them."""

    def __init__(self):
        super().__init__()
        self.lines = []

    def emit(self, record):
        if "step = " in record.getMessage():
            self.lines.append(record.getMessage())


class StepAndLoss(tf.train.SessionRunHook):
    def __init__(self, seen):
        self.seen = seen

    def begin(self):
        self.step = tf.train.get_global_step()
        self.loss = tf.get_collection(tf.GraphKeys.LOSSES)[0]

    def before_run(self, run_context):
        return tf.train.SessionRunArgs({"step": self.step, "by_name": "global_step:0", "loss": self.loss})

    def after_run(self, run_context, run_values):
        results = run_values.results
        self.seen.append([int(results["step"]), int(results["by_name"]), float(results["loss"])])


def model_fn(features, labels, mode):
    logits = tf.layers.dense(features["x"], 3, name="logits")
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    step = tf.train.get_global_step()
    train_op = tf.train.AdamOptimizer(0.05).minimize(loss, global_step=step)
    logging_hook = tf.train.LoggingTensorHook({"step": step, "loss": loss}, every_n_iter=3)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, training_hooks=[logging_hook])


def input_fn():
    x = np.linspace(-1, 1, 96, dtype=np.float32).reshape(24, 4)
    return tf.data.Dataset.from_tensor_slices(({"x": x}, np.arange(24) % 3)).repeat().batch(6)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=10)
    parser.add_argument("--results", required=True)
    args = parser.parse_args()
    tf.logging.set_verbosity(tf.logging.INFO)
    logged = Logged()
    logging.getLogger("tensorflow").addHandler(logged)
    estimator = tf.estimator.Estimator(model_fn, model_dir=args.model_dir,
                                       config=tf.estimator.RunConfig(save_checkpoints_steps=5))
    seen = []
    estimator.train(input_fn, max_steps=args.max_steps, hooks=[StepAndLoss(seen)])
    with open(args.results, "w") as out:
        json.dump({"seen": seen, "logged": logged.lines}, out)


if __name__ == "__main__":
    main()
