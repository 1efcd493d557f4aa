"""tf.Session + tf.train.Saver training loops, for tests/test_saver_loop.py: run as they are under TF 2.15
(TF1 graph mode) and, rewritten by `migrate rewrite`, under the newest TensorFlow.

Usage: saver_loop_program.py MODEL_DIR TRAIN_STEPS SAVE_EVERY [--fed] [--epochs N]
The default loop reads a one-shot iterator (a run ends at TRAIN_STEPS or when the input ends, --epochs);
--fed feeds numpy batches through placeholders. Both restore the latest checkpoint in MODEL_DIR, save the
initial weights when there is none, save every SAVE_EVERY steps and at the end, and append the losses
fetched with train_op to MODEL_DIR/losses.jsonl. Batches are the same on every run (no shuffling).
"""

import argparse
import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

MODEL_DIR, TRAIN_STEPS, SAVE_EVERY, EPOCHS = "runs/saver", 20, 7, None
BATCH = 32


def data():
    features = np.random.RandomState(0).rand(640, 8).astype(np.float32)
    labels = (features.sum(axis=1) * 3).astype(np.int64) % 4
    return features, labels


def record(losses):
    with open(os.path.join(MODEL_DIR, "losses.jsonl"), "a") as log:
        log.write(json.dumps(losses) + "\n")


def train():
    global_step = tf.train.get_or_create_global_step()
    dataset = tf.data.Dataset.from_tensor_slices(data()).repeat(EPOCHS).batch(BATCH)
    images, classes = tf.data.make_one_shot_iterator(dataset).get_next()
    hidden = tf.layers.dense(images, 16, activation=tf.nn.tanh)
    logits = tf.layers.dense(hidden, 4, name="logits")
    loss = tf.losses.sparse_softmax_cross_entropy(labels=classes, logits=logits)
    optimizer = tf.train.AdamOptimizer(learning_rate=0.01)
    train_op = optimizer.minimize(loss, global_step=global_step)
    saver = tf.train.Saver(max_to_keep=3)
    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        latest = tf.train.latest_checkpoint(MODEL_DIR)
        if latest:
            saver.restore(sess, latest)
        else:
            saver.save(sess, os.path.join(MODEL_DIR, "model.ckpt"), global_step=global_step)
        while sess.run(global_step) < TRAIN_STEPS:
            try:
                _, loss_value = sess.run([train_op, loss])
            except tf.errors.OutOfRangeError:
                break
            losses.append(float(loss_value))
            if sess.run(global_step) % SAVE_EVERY == 0:
                saver.save(sess, os.path.join(MODEL_DIR, "model.ckpt"), global_step=global_step)
        saver.save(sess, os.path.join(MODEL_DIR, "model.ckpt"), global_step=global_step)
    record(losses)


def train_fed():
    """The same network fed numpy batches through placeholders, counting steps in Python."""
    features, labels = data()
    global_step = tf.train.get_or_create_global_step()
    x = tf.placeholder(tf.float32, [None, 8])
    y = tf.placeholder(tf.int64, [None])
    hidden = tf.layers.dense(x, 16, activation=tf.nn.tanh)
    logits = tf.layers.dense(hidden, 4, name="logits")
    loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
    train_op = tf.train.AdamOptimizer(learning_rate=0.01).minimize(loss, global_step=global_step)
    init = tf.global_variables_initializer()
    saver = tf.train.Saver()
    losses = []
    with tf.Session() as sess:
        sess.run(init)
        checkpoint = tf.train.latest_checkpoint(MODEL_DIR)
        if checkpoint is not None:
            saver.restore(sess, checkpoint)
        else:
            saver.save(sess, MODEL_DIR + "/model.ckpt", global_step=0)
        start = tf.train.global_step(sess, global_step)
        for step in range(start, TRAIN_STEPS):
            at = step * BATCH % len(features)
            _, loss_value = sess.run([train_op, loss], feed_dict={x: features[at : at + BATCH], y: labels[at : at + BATCH]})
            losses.append(float(loss_value))
            if (step + 1) % SAVE_EVERY == 0:
                saver.save(sess, MODEL_DIR + "/model.ckpt", global_step=step + 1)
    record(losses)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("model_dir")
    parser.add_argument("train_steps", type=int)
    parser.add_argument("save_every", type=int)
    parser.add_argument("--fed", action="store_true", help="feed numpy batches through placeholders")
    parser.add_argument("--epochs", type=int)
    args = parser.parse_args()
    MODEL_DIR, TRAIN_STEPS, SAVE_EVERY, EPOCHS = args.model_dir, args.train_steps, args.save_every, args.epochs
    if args.fed:
        train_fed()
    else:
        train()
