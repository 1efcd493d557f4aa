"""A TensorFlow 1.x model_fn whose loss is tf.contrib.losses' (TensorFlow 1.x's first losses, logits first) and the
total of tf.contrib.losses.get_total_loss (with an l2 weight penalty of tf.contrib.layers), for
tests/test_contrib_losses.py. Run by the legacy reference as 1.x ran it (tests/legacy/run_as_tf1.py), respelled
with tf_slim (tf.contrib's code, which TensorFlow 2.15 no longer has). Trains to --max_steps, evaluates, and writes
the evaluation to --results as JSON.
"""

import argparse
import json

import numpy as np
import tensorflow as tf


def model_fn(features, labels, mode):
    hidden = tf.layers.dense(features["x"], 6, activation=tf.nn.relu, name="hidden",
                             kernel_regularizer=tf.contrib.layers.l2_regularizer(0.01))
    logits = tf.layers.dense(hidden, 3, name="logits")
    tf.contrib.losses.softmax_cross_entropy(logits, tf.one_hot(labels, 3), label_smoothing=0.1)
    tf.contrib.losses.mean_squared_error(tf.nn.softmax(logits), tf.one_hot(labels, 3), weights=0.5)
    loss = tf.contrib.losses.get_total_loss()
    if mode == tf.estimator.ModeKeys.EVAL:
        accuracy = tf.metrics.accuracy(labels, tf.argmax(logits, 1))
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"accuracy": accuracy})
    train_op = tf.train.AdamOptimizer(0.05).minimize(loss, tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def input_fn():
    x = np.linspace(-1, 1, 96, dtype=np.float32).reshape(24, 4)
    return tf.data.Dataset.from_tensor_slices(({"x": x}, np.arange(24) % 3)).repeat().batch(6)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=10)
    parser.add_argument("--results", required=True)
    args = parser.parse_args()
    config = tf.estimator.RunConfig(save_checkpoints_steps=5)
    estimator = tf.estimator.Estimator(model_fn, model_dir=args.model_dir, config=config)
    estimator.train(input_fn, max_steps=args.max_steps)
    metrics = estimator.evaluate(input_fn, steps=2)
    with open(args.results, "w") as out:
        json.dump({"metrics": {key: float(value) for key, value in metrics.items()}}, out)


if __name__ == "__main__":
    main()
