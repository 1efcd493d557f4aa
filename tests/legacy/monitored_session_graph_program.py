"""MonitoredTrainingSession loops whose graph is TF1 code no Keras class holds (variable scopes, get_variable,
an L2 penalty over the trainable variables, gradients clipped between compute_gradients and apply_gradients,
the function's arguments read), for tests/test_monitored_session_graph.py: run as it is under TF 2.15 (TF1 graph
mode) and, rewritten by `migrate rewrite` (tier 2: the graph kept as written in a nested model_fn), under the
newest TensorFlow.

Usage: monitored_session_graph_program.py CHECKPOINT_DIR LAST_STEP SAVE_STEPS [--runs N]
Batches are the same on every run (no shuffling). With --runs, the session has a hook of the program's own
requesting a stop after that many steps of this process, and the loss each step fetched with train_op is
appended, run by run, to losses.jsonl in the checkpoint_dir.
"""

import argparse
import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()


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
    return tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(32)


def train(checkpoint_dir, last_step, save_steps, l2):
    global_step = tf.train.get_or_create_global_step()
    images, classes = tf.data.make_one_shot_iterator(input_fn()).get_next()
    with tf.variable_scope("encoder"):
        w = tf.get_variable("w", [8, 16], initializer=tf.glorot_uniform_initializer(seed=1))
        b = tf.get_variable("b", [16], initializer=tf.zeros_initializer())
        hidden = tf.nn.tanh(tf.matmul(images, w) + b)
    logits = tf.layers.dense(hidden, 4, name="logits", kernel_initializer=tf.glorot_uniform_initializer(seed=2))
    loss = tf.losses.sparse_softmax_cross_entropy(labels=classes, logits=logits)
    loss += l2 * tf.add_n([tf.nn.l2_loss(v) for v in tf.trainable_variables()])
    optimizer = tf.train.AdamOptimizer(learning_rate=0.01)
    gradients, variables = zip(*optimizer.compute_gradients(loss))
    gradients, _ = tf.clip_by_global_norm(gradients, 1.0)
    train_op = optimizer.apply_gradients(zip(gradients, variables), global_step=global_step)
    hooks = [tf.train.StopAtStepHook(last_step=last_step), tf.train.NanTensorHook(loss)]
    with tf.train.MonitoredTrainingSession(
        checkpoint_dir=checkpoint_dir, save_checkpoint_steps=save_steps, hooks=hooks, log_step_count_steps=None
    ) as sess:
        while not sess.should_stop():
            sess.run(train_op)


def train_with_hook(checkpoint_dir, last_step, save_steps, runs):
    """A scope of two layers' variables, minimized, with a hook of the program's own; the loss fetched."""
    images, classes = tf.data.make_one_shot_iterator(input_fn()).get_next()
    net = images
    for layer, units in enumerate([16, 4]):
        with tf.variable_scope(f"layer{layer}"):
            kernel = tf.get_variable("kernel", [net.shape[1], units],
                                     initializer=tf.glorot_uniform_initializer(seed=layer))
            net = tf.matmul(net, kernel)
    loss = tf.losses.sparse_softmax_cross_entropy(labels=classes, logits=net)
    train_op = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss, global_step=tf.train.get_or_create_global_step())
    hooks = [tf.train.StopAtStepHook(last_step=last_step), StopAfterRuns(runs)]
    losses = []
    with tf.train.MonitoredTrainingSession(
        checkpoint_dir=checkpoint_dir, save_checkpoint_steps=save_steps, hooks=hooks, log_step_count_steps=None
    ) as sess:
        while not sess.should_stop():
            _, loss_value = sess.run([train_op, loss])
            losses.append(float(loss_value))
    with open(os.path.join(checkpoint_dir, "losses.jsonl"), "a") as log:
        log.write(json.dumps(losses) + "\n")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("checkpoint_dir")
    parser.add_argument("last_step", type=int)
    parser.add_argument("save_steps", type=int)
    parser.add_argument("--runs", type=int, help="train with the program's own hook, stopping after N steps")
    args = parser.parse_args()
    if args.runs is None:
        train(args.checkpoint_dir, args.last_step, args.save_steps, l2=1e-3)
    else:
        train_with_hook(args.checkpoint_dir, args.last_step, args.save_steps, args.runs)
