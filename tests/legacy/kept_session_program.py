"""A TensorFlow 1.x training loop as many were written: digits fed through placeholders from numpy arrays, a
MonitoredTrainingSession checkpointing every `--save_steps` steps and stopping at `--last_step`, the batch picked
by the global step (so a restart goes on with the batch it had reached).

Feeding placeholders is no loop shape the rewrite migrates: it keeps the session, as TF1 graph code
(tests/test_kept_session.py)."""

import argparse

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

BATCH_SIZE = 32


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--last_step", type=int, default=60)
    parser.add_argument("--save_steps", type=int, default=10)
    args = parser.parse_args()

    digits = load_digits()
    images = (digits.data / 16.0).astype(np.float32)
    labels = digits.target.astype(np.int64)

    tf.set_random_seed(7)
    x = tf.placeholder(tf.float32, [None, 64], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    hidden = tf.layers.dense(x, 32, activation=tf.nn.relu, name="hidden")
    logits = tf.layers.dense(hidden, 10, name="logits")
    loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdamOptimizer(0.01).minimize(loss, global_step=global_step)

    hooks = [tf.train.StopAtStepHook(last_step=args.last_step)]
    with tf.train.MonitoredTrainingSession(checkpoint_dir=args.model_dir, save_checkpoint_steps=args.save_steps,
                                           hooks=hooks) as sess:
        while not sess.should_stop():
            start = sess.run(global_step) * BATCH_SIZE % (len(images) - BATCH_SIZE)
            sess.run(train_op, feed_dict={x: images[start:start + BATCH_SIZE], y: labels[start:start + BATCH_SIZE]})


if __name__ == "__main__":
    main()
