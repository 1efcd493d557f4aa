"""A custom Estimator fine-tuned from a pretrained checkpoint through `Scaffold(init_fn=...)`, as TF1 slim and
detection code did: the model_fn builds a Saver over its backbone's variables and an init_fn restoring them,
which Estimator ran when its session started without a checkpoint in model_dir. Written for TF 2.15's
tf.estimator (tf.compat.v1 names); migrated by `migrate rewrite` (tests/test_wrapped_model_fn.py).

The head starts at zero and batches come in a fixed order, so a run is the same from the same pretrained
checkpoint. Without --pretrained it trains from seeded random weights (to make one). Checkpoints every 10 steps;
then an evaluation of 5 batches; metrics to --metrics_out.
"""

import argparse
import json

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits


def input_fn():
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    return tf.data.Dataset.from_tensor_slices(({"x": x}, digits.target.astype(np.int32))).repeat().batch(64)


def model_fn(features, labels, mode, params):
    with tf.compat.v1.variable_scope("backbone"):
        hidden = tf.compat.v1.layers.dense(features["x"], 16, activation=tf.nn.relu, name="hidden")
    logits = tf.compat.v1.layers.dense(hidden, 10, name="head", kernel_initializer=tf.compat.v1.zeros_initializer())
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.3).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    scaffold = None
    if params["pretrained"]:
        backbone = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES, scope="backbone")
        saver = tf.compat.v1.train.Saver(backbone)

        def init_fn(scaffold, session):
            saver.restore(session, params["pretrained"])

        scaffold = tf.compat.v1.train.Scaffold(init_fn=init_fn)
    accuracy = tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, scaffold=scaffold,
                                      eval_metric_ops={"accuracy": accuracy})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--pretrained", default=None)
    parser.add_argument("--max_steps", type=int, default=30)
    parser.add_argument("--metrics_out", default=None)
    args = parser.parse_args()

    estimator = tf.estimator.Estimator(model_fn, model_dir=args.model_dir, params={"pretrained": args.pretrained},
                                       config=tf.estimator.RunConfig(save_checkpoints_steps=10, tf_random_seed=1))
    estimator.train(input_fn, max_steps=args.max_steps)
    metrics = estimator.evaluate(input_fn, steps=5)
    if args.metrics_out:
        with open(args.metrics_out, "w") as out:
            json.dump({key: float(value) for key, value in metrics.items()}, out)


if __name__ == "__main__":
    main()
