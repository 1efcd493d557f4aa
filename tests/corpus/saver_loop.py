"""Manual Saver checkpointing in a Session loop, resuming from the latest checkpoint."""
import os

import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
CHECKPOINT_DIR = "/tmp/saver_loop"

x = tf.placeholder(tf.float32, [None, 2])
w = tf.Variable(tf.zeros([2, 1]))
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
step = tf.train.get_or_create_global_step()
train = tf.train.AdamOptimizer(0.01).minimize(loss, global_step=step)
saver = tf.train.Saver(max_to_keep=5)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    latest = tf.train.latest_checkpoint(CHECKPOINT_DIR)
    if latest:
        saver.restore(sess, latest)
    while sess.run(step) < 1000:
        sess.run(train, feed_dict={x: [[1.0, 2.0]]})
        if sess.run(step) % 100 == 0:
            saver.save(sess, os.path.join(CHECKPOINT_DIR, "model.ckpt"), global_step=step)
