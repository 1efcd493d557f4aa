"""A trainer in the style of TF1's examples: flags, a graph of its own, a one-shot iterator over TFRecord-free
in-memory data, a MonitoredTrainingSession with stop and NaN hooks, the loss printed every 100 steps."""
import argparse

import numpy as np
import tensorflow as tf

FLAGS = None


def make_dataset(batch_size):
    images = np.random.rand(2048, 28 * 28).astype(np.float32)
    labels = np.random.randint(0, 10, 2048).astype(np.int64)
    dataset = tf.data.Dataset.from_tensor_slices((images, labels))
    return dataset.shuffle(2048).repeat().batch(batch_size)


def run_training():
    with tf.Graph().as_default():
        global_step = tf.compat.v1.train.get_or_create_global_step()
        images, labels = tf.compat.v1.data.make_one_shot_iterator(make_dataset(FLAGS.batch_size)).get_next()
        hidden1 = tf.compat.v1.layers.dense(images, FLAGS.hidden1, activation=tf.nn.relu, name="hidden1")
        hidden2 = tf.compat.v1.layers.dense(hidden1, FLAGS.hidden2, activation=tf.nn.relu, name="hidden2")
        logits = tf.compat.v1.layers.dense(hidden2, 10, name="softmax_linear")
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(FLAGS.learning_rate)
        train_op = optimizer.minimize(loss, global_step=global_step)
        hooks = [
            tf.compat.v1.train.StopAtStepHook(last_step=FLAGS.max_steps),
            tf.compat.v1.train.NanTensorHook(loss),
        ]
        printed = 0
        with tf.compat.v1.train.MonitoredTrainingSession(
            checkpoint_dir=FLAGS.log_dir,
            save_checkpoint_steps=FLAGS.save_steps,
            hooks=hooks,
            config=tf.compat.v1.ConfigProto(log_device_placement=False),
        ) as mon_sess:
            while not mon_sess.should_stop():
                _, loss_value = mon_sess.run([train_op, loss])
                printed += 1
                if printed % 100 == 0:
                    print("loss = %.2f" % loss_value)


def main():
    run_training()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--learning_rate", type=float, default=0.01)
    parser.add_argument("--max_steps", type=int, default=2000)
    parser.add_argument("--hidden1", type=int, default=128)
    parser.add_argument("--hidden2", type=int, default=32)
    parser.add_argument("--batch_size", type=int, default=100)
    parser.add_argument("--save_steps", type=int, default=500)
    parser.add_argument("--log_dir", default="/tmp/mnist_logs")
    FLAGS, _ = parser.parse_known_args()
    main()
