"""A MonitoredTrainingSession training loop, for tests/test_monitored_session.py: run as it is under TF 2.15
(TF1 graph mode) and, rewritten by `migrate rewrite`, under the newest TensorFlow.

Usage: monitored_session_program.py CHECKPOINT_DIR LAST_STEP SAVE_STEPS [--epochs N] [--runs N] [--nan_at_step N]
Batches are the same on every run (no shuffling); without --epochs the input repeats forever. With --runs
the session also has a hook of the program's own, requesting a stop after that many steps of this process.
"""

import argparse
import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
tf.logging.set_verbosity(tf.logging.INFO)  # LoggingTensorHook logs at INFO
tf.set_random_seed(7)  # the same start on every run

CHECKPOINT_DIR, LAST_STEP, SAVE_STEPS, EPOCHS, RUNS, NAN_AT_STEP = "runs/monitored", 20, 7, None, None, None


class StopAfterRuns(tf.train.SessionRunHook):
    """Requests a stop after `runs` steps of this process."""

    def __init__(self, runs):
        self.runs = runs

    def begin(self):
        self.done = 0

    def after_run(self, run_context, run_values):
        self.done += 1
        if self.done >= self.runs:
            run_context.request_stop()


def input_fn():
    features = np.random.RandomState(0).rand(640, 8).astype(np.float32)
    labels = (features.sum(axis=1) * 3).astype(np.int64) % 4
    if NAN_AT_STEP:  # that step's batch (of the first epoch) is NaN
        features[(NAN_AT_STEP - 1) * 32 : NAN_AT_STEP * 32] = np.nan
    return tf.data.Dataset.from_tensor_slices((features, labels)).repeat(EPOCHS).batch(32)


def train():
    global_step = tf.train.get_or_create_global_step()
    images, classes = tf.data.make_one_shot_iterator(input_fn()).get_next()
    hidden = tf.layers.dense(images, 16, activation=tf.nn.tanh)
    logits = tf.layers.dense(hidden, 4, name="logits")
    loss = tf.losses.sparse_softmax_cross_entropy(labels=classes, logits=logits)
    optimizer = tf.train.AdamOptimizer(learning_rate=0.01)
    train_op = optimizer.minimize(loss, global_step=global_step)
    hooks = [tf.train.StopAtStepHook(last_step=LAST_STEP), tf.train.NanTensorHook(loss)]
    with tf.train.MonitoredTrainingSession(
        checkpoint_dir=CHECKPOINT_DIR, save_checkpoint_steps=SAVE_STEPS, hooks=hooks, log_step_count_steps=None
    ) as sess:
        while not sess.should_stop():
            sess.run(train_op)


def train_with_hook():
    """The same with a hook of the program's own (the migrated loop then runs a step per call) and the loss
    logged every 3 steps, fetching each step's loss and appending the run's to losses.jsonl in the
    checkpoint_dir."""
    global_step = tf.train.get_or_create_global_step()
    images, classes = tf.data.make_one_shot_iterator(input_fn()).get_next()
    hidden = tf.layers.dense(images, 16, activation=tf.nn.tanh)
    logits = tf.layers.dense(hidden, 4, name="logits")
    loss = tf.losses.sparse_softmax_cross_entropy(labels=classes, logits=logits)
    optimizer = tf.train.AdamOptimizer(learning_rate=0.01)
    train_op = optimizer.minimize(loss, global_step=global_step)
    hooks = [
        tf.train.StopAtStepHook(last_step=LAST_STEP),
        tf.train.NanTensorHook(loss),
        StopAfterRuns(RUNS),
        tf.train.LoggingTensorHook({"loss": loss}, every_n_iter=3),
    ]
    losses = []
    with tf.train.MonitoredTrainingSession(
        checkpoint_dir=CHECKPOINT_DIR, save_checkpoint_steps=SAVE_STEPS, hooks=hooks, log_step_count_steps=None
    ) as sess:
        while not sess.should_stop():
            _, loss_value = sess.run([train_op, loss])
            losses.append(float(loss_value))
    with open(os.path.join(CHECKPOINT_DIR, "losses.jsonl"), "a") as log:
        log.write(json.dumps(losses) + "\n")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("checkpoint_dir")
    parser.add_argument("last_step", type=int)
    parser.add_argument("save_steps", type=int)
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--runs", type=int, help="train with the program's own hook, stopping after N steps")
    parser.add_argument("--nan_at_step", type=int, help="the loss of that step is NaN")
    args = parser.parse_args()
    CHECKPOINT_DIR, LAST_STEP, SAVE_STEPS = args.checkpoint_dir, args.last_step, args.save_steps
    EPOCHS, RUNS, NAN_AT_STEP = args.epochs, args.runs, args.nan_at_step
    if RUNS is None:
        train()
    else:
        train_with_hook()
