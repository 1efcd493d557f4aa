"""A TensorFlow 1.x program checkpointed by `tf.train.Supervisor`, as TensorFlow's PTB tutorial (ptb_word_lm.py)
wrote it: flags, a graph seeded by `tf.set_random_seed`, a Supervisor on the log directory (restoring its latest
checkpoint at start, saving every save_model_secs), a loop until the global step reaches the flag, and a last
`sv.saver.save(...)` with the global step. Digits, batches in a fixed order that follows the step (the restored
step picks the batch; the step is read after each train op: read in the same run it raced the increment, and now and
then a batch came twice, in one run and not the other).

Runs as it is under TensorFlow 1.x's behaviour (tests/legacy/run_as_tf1.py: the reference) and, migrated, under
TensorFlow 2.21 (tests/test_supervisor_program.py).
"""
import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

flags = tf.flags
flags.DEFINE_string("save_path", None, "Model output directory.")
flags.DEFINE_integer("max_steps", 40, "Global step to train to.")
flags.DEFINE_integer("log_every", 5, "Steps between two printed losses.")
flags.DEFINE_integer("save_model_secs", 600, "Seconds between two checkpoints.")
FLAGS = flags.FLAGS

BATCH_SIZE = 40


def main(_):
    digits = load_digits()
    images = (digits.data / 16.0).astype(np.float32)
    labels = digits.target.astype(np.int32)
    batches = len(images) // BATCH_SIZE

    with tf.Graph().as_default():
        tf.set_random_seed(42)
        x = tf.placeholder(tf.float32, [None, 64])
        y = tf.placeholder(tf.int32, [None])
        with tf.variable_scope("model"):
            hidden = tf.layers.dense(x, 32, activation=tf.nn.tanh, name="hidden")
            logits = tf.layers.dense(hidden, 10, name="logits")
        loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
        global_step = tf.train.get_or_create_global_step()
        train_op = tf.train.AdagradOptimizer(0.1).minimize(loss, global_step=global_step)

        sv = tf.train.Supervisor(logdir=FLAGS.save_path, save_model_secs=FLAGS.save_model_secs)
        with sv.managed_session() as session:
            step = session.run(global_step)
            while not sv.should_stop() and step < FLAGS.max_steps:
                start = (step % batches) * BATCH_SIZE
                feed = {x: images[start:start + BATCH_SIZE], y: labels[start:start + BATCH_SIZE]}
                loss_value, _ = session.run([loss, train_op], feed_dict=feed)
                step = session.run(global_step)  # (fetched with train_op, its read would race the increment)
                if step % FLAGS.log_every == 0:
                    print(f"step {step} loss {loss_value:.6f}")
            if FLAGS.save_path:
                print(f"Saving model to {FLAGS.save_path}.")
                sv.saver.save(session, FLAGS.save_path + "/model.ckpt", global_step=sv.global_step)


if __name__ == "__main__":
    tf.app.run()
