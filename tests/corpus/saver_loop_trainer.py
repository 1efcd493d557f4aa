"""A TF1-era trainer script: placeholders fed from numpy, a Saver checkpointing every few hundred steps and
restoring the latest on restart, written against tf.compat.v1 with TF2 installed."""

import argparse
import os

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
LEARNING_RATE, MOMENTUM = 0.05, 0.9


def load_data(seed=0):
    rng = np.random.RandomState(seed)
    inputs = rng.normal(size=(2048, 16)).astype(np.float32)
    targets = (inputs[:, :4].sum(axis=1) > 0).astype(np.int32)
    return inputs, targets


def main(args):
    v1.disable_eager_execution()
    inputs, targets = load_data()
    images = v1.placeholder(tf.float32, shape=(None, 16))
    classes = v1.placeholder(tf.int32, shape=(None,))
    global_step = v1.train.get_or_create_global_step()
    net = v1.layers.dense(images, 64, activation=tf.nn.relu, name="fc1")
    net = v1.layers.dense(net, 64, activation=tf.nn.relu, name="fc2")
    logits = v1.layers.dense(net, 2, name="logits")
    loss = v1.losses.sparse_softmax_cross_entropy(labels=classes, logits=logits)
    optimizer = v1.train.MomentumOptimizer(learning_rate=LEARNING_RATE, momentum=MOMENTUM)
    train_op = optimizer.minimize(loss, global_step=global_step)
    saver = v1.train.Saver(max_to_keep=args.keep)
    checkpoint_prefix = os.path.join(args.model_dir, "model.ckpt")

    with v1.Session() as sess:
        sess.run(v1.global_variables_initializer())
        latest = tf.train.latest_checkpoint(args.model_dir)
        if latest:
            print("Restoring from", latest)
            saver.restore(sess, latest)
        step = sess.run(global_step)
        while step < args.train_steps:
            index = np.random.randint(0, len(inputs), size=args.batch_size)
            _, loss_value = sess.run([train_op, loss], feed_dict={images: inputs[index], classes: targets[index]})
            step = sess.run(global_step)
            if step % args.log_every == 0:
                print(f"step {step}: loss {loss_value:.4f}")
            if step % args.save_every == 0:
                saver.save(sess, checkpoint_prefix, global_step=global_step)
        saver.save(sess, checkpoint_prefix, global_step=global_step)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", default="/tmp/saver_trainer")
    parser.add_argument("--train_steps", type=int, default=2000)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--save_every", type=int, default=500)
    parser.add_argument("--log_every", type=int, default=100)
    parser.add_argument("--keep", type=int, default=3)
    main(parser.parse_args())
