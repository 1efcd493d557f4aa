"""A MonitoredTrainingSession training loop, for tests/test_monitored_session.py: run as it is under TF 2.15
(TF1 graph mode) and, rewritten by `migrate rewrite`, under the newest TensorFlow.

Usage: monitored_session_program.py CHECKPOINT_DIR LAST_STEP SAVE_STEPS [EPOCHS]
Batches are the same on every run (no shuffling); without EPOCHS the input repeats forever.
"""

import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

CHECKPOINT_DIR, LAST_STEP, SAVE_STEPS, EPOCHS = "runs/monitored", 20, 7, None


def input_fn():
    features = np.random.RandomState(0).rand(640, 8).astype(np.float32)
    labels = (features.sum(axis=1) * 3).astype(np.int64) % 4
    return tf.data.Dataset.from_tensor_slices((features, labels)).repeat(EPOCHS).batch(32)


def train():
    global_step = tf.train.get_or_create_global_step()
    images, classes = tf.data.make_one_shot_iterator(input_fn()).get_next()
    hidden = tf.layers.dense(images, 16, activation=tf.nn.relu)
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


if __name__ == "__main__":
    CHECKPOINT_DIR, LAST_STEP, SAVE_STEPS = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    EPOCHS = int(sys.argv[4]) if len(sys.argv) > 4 else None
    train()
