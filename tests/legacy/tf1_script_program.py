"""A TensorFlow 1.x graph script, as the books and tutorials of the time wrote them (Hands-On ML's chapter 11
early-stopping loop): the graph built at module level, no entry block; a Saver checkpointing every epoch with the
epoch number in a file beside it, and a restart continuing from there. Digits, batches in a fixed order.

Runs as it is under TensorFlow 1.x's behaviour (tests/legacy/run_as_tf1.py: the reference) and, migrated, under
TensorFlow 2.21 (tests/test_tf1_graph_program.py).
"""
import argparse
import os

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

parser = argparse.ArgumentParser()
parser.add_argument("--checkpoint_path", required=True)
parser.add_argument("--n_epochs", type=int, default=8)
args = parser.parse_args()


def reset_graph(seed=42):
    tf.reset_default_graph()
    tf.set_random_seed(seed)
    np.random.seed(seed)


digits = load_digits()
X_train = (digits.data / 16.0).astype(np.float32)
y_train = digits.target.astype(np.int32)
n_inputs, n_hidden1, n_outputs = 64, 32, 10
batch_size = 50

reset_graph()

X = tf.placeholder(tf.float32, shape=(None, n_inputs), name="X")
y = tf.placeholder(tf.int32, shape=(None), name="y")

with tf.name_scope("dnn"):
    hidden1 = tf.layers.dense(X, n_hidden1, name="hidden1", activation=tf.nn.relu)
    logits = tf.layers.dense(hidden1, n_outputs, name="outputs")

with tf.name_scope("loss"):
    xentropy = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
    loss = tf.reduce_mean(xentropy, name="loss")

with tf.name_scope("train"):
    optimizer = tf.train.MomentumOptimizer(learning_rate=0.05, momentum=0.9)
    training_op = optimizer.minimize(loss)

init = tf.global_variables_initializer()
saver = tf.train.Saver()

checkpoint_epoch_path = args.checkpoint_path + ".epoch"
with tf.Session() as sess:
    if os.path.isfile(checkpoint_epoch_path):
        # if the checkpoint file exists, restore the model and load the epoch number
        with open(checkpoint_epoch_path, "rb") as f:
            start_epoch = int(f.read())
        print("Training was interrupted. Continuing at epoch", start_epoch)
        saver.restore(sess, args.checkpoint_path)
    else:
        start_epoch = 0
        sess.run(init)

    for epoch in range(start_epoch, args.n_epochs):
        for start in range(0, len(X_train), batch_size):
            sess.run(training_op, feed_dict={X: X_train[start:start + batch_size], y: y_train[start:start + batch_size]})
        loss_val = loss.eval(feed_dict={X: X_train, y: y_train})
        print("Epoch:", epoch, f"\tLoss: {loss_val:.6f}")
        saver.save(sess, args.checkpoint_path)
        with open(checkpoint_epoch_path, "wb") as f:
            f.write(b"%d" % (epoch + 1))
