"""tf.Session + tf.train.Saver training loops whose graph is TF1 code no Keras class holds (variable scopes,
get_variable, gradients clipped between compute_gradients and apply_gradients, a penalty over the trainable
variables), for tests/test_saver_loop_graph.py: run as they are under TF 2.15 (TF1 graph mode) and, rewritten by
`migrate rewrite` (tier 2: the graph kept as written in a nested model_fn), under the newest TensorFlow.

Usage: saver_loop_graph_program.py MODEL_DIR TRAIN_STEPS SAVE_EVERY [--fed]
The default loop reads a one-shot iterator; --fed feeds numpy batches through placeholders. Both restore the
latest checkpoint in MODEL_DIR (saving the initial weights when there is none), save every SAVE_EVERY steps and
at the end, and append the losses fetched with train_op to MODEL_DIR/losses.jsonl. Batches are the same on every
run (no shuffling).
"""

import argparse
import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

BATCH = 32


def data():
    features = np.random.RandomState(0).rand(640, 8).astype(np.float32)
    labels = (features.sum(axis=1) * 3).astype(np.int64) % 4
    return features, labels


def record(model_dir, losses):
    with open(os.path.join(model_dir, "losses.jsonl"), "a") as log:
        log.write(json.dumps(losses) + "\n")


def train(model_dir, train_steps, save_every):
    global_step = tf.train.get_or_create_global_step()
    dataset = tf.data.Dataset.from_tensor_slices(data()).repeat().batch(BATCH)
    images, classes = tf.data.make_one_shot_iterator(dataset).get_next()
    with tf.variable_scope("encoder"):
        w = tf.get_variable("w", [8, 16], initializer=tf.glorot_uniform_initializer(seed=1))
        hidden = tf.nn.tanh(tf.matmul(images, w))
    logits = tf.layers.dense(hidden, 4, name="logits", kernel_initializer=tf.glorot_uniform_initializer(seed=2))
    loss = tf.losses.sparse_softmax_cross_entropy(labels=classes, logits=logits)
    loss += 1e-3 * tf.add_n([tf.nn.l2_loss(v) for v in tf.trainable_variables()])
    optimizer = tf.train.AdamOptimizer(learning_rate=0.01)
    gradients, variables = zip(*optimizer.compute_gradients(loss))
    gradients, _ = tf.clip_by_global_norm(gradients, 1.0)
    train_op = optimizer.apply_gradients(zip(gradients, variables), global_step=global_step)
    saver = tf.train.Saver(max_to_keep=3)
    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        latest = tf.train.latest_checkpoint(model_dir)
        if latest:
            saver.restore(sess, latest)
        else:
            saver.save(sess, os.path.join(model_dir, "model.ckpt"), global_step=global_step)
        while sess.run(global_step) < train_steps:
            _, loss_value = sess.run([train_op, loss])
            losses.append(float(loss_value))
            if sess.run(global_step) % save_every == 0:
                saver.save(sess, os.path.join(model_dir, "model.ckpt"), global_step=global_step)
        saver.save(sess, os.path.join(model_dir, "model.ckpt"), global_step=global_step)
    record(model_dir, losses)


def train_fed(model_dir, train_steps, save_every):
    """Two variable-scoped layers fed numpy batches through placeholders, Momentum, steps counted in Python."""
    features, labels = data()
    x = tf.placeholder(tf.float32, [None, 8])
    y = tf.placeholder(tf.int64, [None])
    net = x
    for layer, units in enumerate([16, 4]):
        with tf.variable_scope(f"layer{layer}"):
            net = tf.matmul(net, tf.get_variable("kernel", [net.shape[1], units],
                                                 initializer=tf.glorot_uniform_initializer(seed=layer)))
    loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=net)
    train_op = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss, global_step=tf.train.get_or_create_global_step())
    saver = tf.train.Saver()
    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        checkpoint = tf.train.latest_checkpoint(model_dir)
        if checkpoint is not None:
            saver.restore(sess, checkpoint)
        else:
            saver.save(sess, model_dir + "/model.ckpt", global_step=0)
        start = int(checkpoint.rsplit("-", 1)[1]) if checkpoint else 0
        for step in range(start, train_steps):
            at = step * BATCH % len(features)
            _, loss_value = sess.run([train_op, loss], feed_dict={x: features[at : at + BATCH], y: labels[at : at + BATCH]})
            losses.append(float(loss_value))
            if (step + 1) % save_every == 0:
                saver.save(sess, model_dir + "/model.ckpt", global_step=step + 1)
    record(model_dir, losses)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("model_dir")
    parser.add_argument("train_steps", type=int)
    parser.add_argument("save_every", type=int)
    parser.add_argument("--fed", action="store_true", help="feed numpy batches through placeholders")
    args = parser.parse_args()
    (train_fed if args.fed else train)(args.model_dir, args.train_steps, args.save_every)
