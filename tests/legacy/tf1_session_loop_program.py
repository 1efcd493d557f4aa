"""A TensorFlow 1.x training loop as its tutorials wrote it, for tests/test_saver_loop_graph.py: TF1 names
(`import tensorflow as tf`), the network from raw variables, the global step a variable of the program's own
(`tf.Variable(0, trainable=False, name="global_step")`), numpy batches fed through placeholders, a Saver
restoring the latest checkpoint and saving every SAVE_EVERY steps. Run under TF 2.15 through
tests/legacy/run_as_tf1.py and, rewritten by `migrate rewrite`, under the newest TensorFlow.

Usage: tf1_session_loop_program.py MODEL_DIR TRAIN_STEPS SAVE_EVERY
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

BATCH = 32


def main(model_dir, train_steps, save_every):
    data_x = np.random.RandomState(0).rand(640, 8).astype(np.float32)
    data_y = (data_x.sum(axis=1, keepdims=True) > 4).astype(np.float32)

    x = tf.placeholder(tf.float32, [None, 8], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    w = tf.Variable(tf.truncated_normal([8, 1], stddev=0.1, seed=1), name="w")
    b = tf.Variable(tf.zeros([1]), name="b")
    logits = tf.matmul(x, w) + b
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))
    global_step = tf.Variable(0, trainable=False, name="global_step")
    train_op = tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=global_step)
    saver = tf.train.Saver(max_to_keep=3)

    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        ckpt = tf.train.get_checkpoint_state(model_dir)
        if ckpt and ckpt.model_checkpoint_path:
            saver.restore(sess, ckpt.model_checkpoint_path)
        else:
            saver.save(sess, os.path.join(model_dir, "model.ckpt"), global_step=global_step)
        start = sess.run(global_step)
        for step in range(start, train_steps):
            at = step * BATCH % len(data_x)
            _, loss_value = sess.run([train_op, loss], feed_dict={x: data_x[at:at + BATCH], y: data_y[at:at + BATCH]})
            losses.append(float(loss_value))
            if (step + 1) % save_every == 0:
                saver.save(sess, os.path.join(model_dir, "model.ckpt"), global_step=global_step)
    with open(os.path.join(model_dir, "losses.jsonl"), "a") as log:
        log.write(json.dumps(losses) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
