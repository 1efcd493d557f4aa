"""A TensorFlow 1.x program trained by tf.contrib.slim's training loop, `slim.learning.train`, as the TF-slim
image-classification scripts wrote it (train_image_classifier.py's shape): flags, a graph of its own seeded by
`tf.set_random_seed`, `slim.create_global_step`, layers in an `arg_scope` with an L2 regularizer, slim's losses and
`get_total_loss`, `slim.learning.create_train_op` with Momentum, then `slim.learning.train` on the train directory
(a Supervisor inside: it restores the latest checkpoint there at start, saves every `save_interval_secs` and at the
end). Digits in a fixed batch order.

Spelled with tf_slim (where tf.contrib.slim's code now is) so that the legacy environment can run it as TensorFlow
1.x did (tests/legacy/run_as_tf1.py); tests/test_slim_learning_program.py gives the migration its tf.contrib.slim
spelling.
"""
import numpy as np
import tensorflow as tf
import tf_slim as slim
from sklearn.datasets import load_digits

flags = tf.app.flags
flags.DEFINE_string("train_dir", "/tmp/train", "Where checkpoints and summaries are written.")
flags.DEFINE_integer("max_number_of_steps", 30, "The global step to train to.")
flags.DEFINE_integer("save_interval_secs", 600, "Seconds between two checkpoints.")
flags.DEFINE_integer("log_every_n_steps", 10, "Steps between two logged losses.")
FLAGS = flags.FLAGS


def main(_):
    digits = load_digits()
    images = (digits.data / 16.0).astype(np.float32)
    labels = digits.target.astype(np.int64)
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        global_step = slim.create_global_step()
        dataset = tf.data.Dataset.from_tensor_slices((images, labels)).repeat().batch(32)
        batch_images, batch_labels = dataset.make_one_shot_iterator().get_next()
        with slim.arg_scope([slim.fully_connected], weights_regularizer=slim.l2_regularizer(1e-4)):
            net = slim.fully_connected(batch_images, 32, scope="fc1")
            logits = slim.fully_connected(net, 10, activation_fn=None, scope="logits")
        slim.losses.sparse_softmax_cross_entropy(logits, batch_labels)
        total_loss = slim.losses.get_total_loss()
        tf.summary.scalar("total_loss", total_loss)
        optimizer = tf.train.MomentumOptimizer(0.05, 0.9)
        train_op = slim.learning.create_train_op(total_loss, optimizer, global_step=global_step)
        final_loss = slim.learning.train(
            train_op,
            logdir=FLAGS.train_dir,
            number_of_steps=FLAGS.max_number_of_steps,
            save_summaries_secs=600,
            save_interval_secs=FLAGS.save_interval_secs,
            log_every_n_steps=FLAGS.log_every_n_steps)
        print("final loss", final_loss)


if __name__ == "__main__":
    tf.app.run()
