"""A custom model_fn (variables by get_variable) trained by train_and_evaluate with
`tf.estimator.experimental.stop_if_no_decrease_hook`, for tests/test_train_and_evaluate.py: the hook adds its flag
(`signal_early_stopping/STOP`) to every checkpoint the Estimator writes. Trains to --max_steps (the hook never
stops it), writing the final evaluation to --results as JSON.
"""

import argparse
import json

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits


def model_fn(features, labels, mode):
    with tf.compat.v1.variable_scope("net"):
        kernel = tf.compat.v1.get_variable("kernel", [64, 10])
        bias = tf.compat.v1.get_variable("bias", [10], initializer=tf.compat.v1.zeros_initializer())
    logits = tf.matmul(features["x"], kernel) + bias
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"class": tf.argmax(logits, 1)})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.5).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    metrics = {"accuracy": tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))}
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=30)
    parser.add_argument("--results", required=True)
    args = parser.parse_args()
    digits = load_digits()
    x, y = (digits.data / 16.0).astype(np.float32), digits.target.astype(np.int32)
    estimator = tf.estimator.Estimator(model_fn, model_dir=args.model_dir,
                                       config=tf.estimator.RunConfig(save_checkpoints_steps=10))
    stop = tf.estimator.experimental.stop_if_no_decrease_hook(estimator, "loss", 1000, run_every_secs=None,
                                                              run_every_steps=10)
    train_spec = tf.estimator.TrainSpec(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(100).repeat(),
                                        max_steps=args.max_steps, hooks=[stop])
    eval_spec = tf.estimator.EvalSpec(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(500),
                                      throttle_secs=0, start_delay_secs=0)
    metrics, _ = tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)
    with open(args.results, "w") as out:
        json.dump({key: float(value) for key, value in metrics.items()}, out)


if __name__ == "__main__":
    main()
