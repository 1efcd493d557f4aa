"""A TensorFlow 1.x graph program, for tests/test_tf1_graph_program.py: the input of `migrate rewrite` and, run
by tests/legacy/run_as_tf1.py (TensorFlow 1.x's API and behaviour), the legacy reference.

Written as TF1's research examples wrote their training scripts (deepmind/dnc's train.py): flags, a network of
`tf.layers`, placeholders fed from numpy, clipped `tf.gradients` applied with the global step, a Saver saved by a
CheckpointSaverHook of a SingularMonitoredSession that restores from checkpoint_dir, and a loop over iterations
from the restored step, fetching the loss with the train op. No loop shape the rewrite migrates: it is kept as
written, and must run on TensorFlow 2 as it ran on 1.x. The batch of iteration i is rows i*64.. of the digits
(wrapping), so a restarted run draws what the uninterrupted one drew.
"""

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

FLAGS = tf.flags.FLAGS

tf.flags.DEFINE_string("checkpoint_dir", "/tmp/tf/digits", "Checkpointing directory.")
tf.flags.DEFINE_integer("num_training_iterations", 30, "Number of iterations to train for.")
tf.flags.DEFINE_integer("report_interval", 5, "Iterations between reports (samples, valid loss).")
tf.flags.DEFINE_integer("checkpoint_interval", 5, "Checkpointing step interval.")
tf.flags.DEFINE_integer("batch_size", 64, "Batch size for training.")
tf.flags.DEFINE_float("max_grad_norm", 5.0, "Gradient clipping norm limit.")
tf.flags.DEFINE_float("learning_rate", 1e-2, "Optimizer learning rate.")


def network(images):
    hidden = tf.layers.dense(images, 32, activation=tf.nn.relu, name="hidden")
    return tf.layers.dense(hidden, 10, name="logits")


def train(num_training_iterations, report_interval):
    digits = load_digits()
    x_all = (digits.data / 16.0).astype(np.float32)
    y_all = digits.target.astype(np.int64)

    images = tf.placeholder(tf.float32, [None, 64], name="images")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    logits = network(images)
    train_loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))

    trainable_variables = tf.trainable_variables()
    grads, _ = tf.clip_by_global_norm(tf.gradients(train_loss, trainable_variables), FLAGS.max_grad_norm)
    global_step = tf.train.get_or_create_global_step()
    optimizer = tf.train.RMSPropOptimizer(FLAGS.learning_rate, epsilon=1e-10)
    train_step = optimizer.apply_gradients(zip(grads, trainable_variables), global_step=global_step)

    saver = tf.train.Saver()
    hooks = [tf.train.CheckpointSaverHook(checkpoint_dir=FLAGS.checkpoint_dir, save_steps=FLAGS.checkpoint_interval,
                                          saver=saver)]

    with tf.train.SingularMonitoredSession(hooks=hooks, checkpoint_dir=FLAGS.checkpoint_dir) as sess:
        start_iteration = sess.run(global_step)
        total_loss = 0
        for train_iteration in range(start_iteration, num_training_iterations):
            start = (train_iteration * FLAGS.batch_size) % (len(x_all) - FLAGS.batch_size)
            feed = {images: x_all[start:start + FLAGS.batch_size], labels: y_all[start:start + FLAGS.batch_size]}
            _, loss = sess.run([train_step, train_loss], feed_dict=feed)
            total_loss += loss
            if (train_iteration + 1) % report_interval == 0:
                tf.logging.info("%d: Avg training loss %f.", train_iteration, total_loss / report_interval)
                total_loss = 0


def main(unused_argv):
    tf.logging.set_verbosity(3)  # Print INFO log messages.
    train(FLAGS.num_training_iterations, FLAGS.report_interval)


if __name__ == "__main__":
    tf.app.run()
