"""Estimators given metrics of the program's own with `tf.estimator.add_metrics`, for tests/test_added_metrics.py.
Both the input of `migrate rewrite` and, unchanged, the legacy reference run.

A DNNRegressor (digits' value as the label) gains an RMSE metric (the shape of Google Cloud's Estimator courses:
`estimator = tf.contrib.estimator.add_metrics(estimator, my_rmse)`) and a mean absolute error weighted by a
feature; a custom model_fn gains the same RMSE and a metric replacing its own `mae`. Each trains --max_steps
steps on unshuffled batches, saving every 10, then evaluates on every example; the metrics go to --results.
"""

import argparse
import json
import os

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

tf1 = tf.compat.v1


def my_rmse(labels, predictions):
    pred_values = predictions["predictions"]
    return {"rmse": tf1.metrics.root_mean_squared_error(labels, pred_values)}


def ink_weighted_error(labels, predictions, features):
    ink = tf.reduce_sum(features["x"], axis=1, keepdims=True)
    return {"ink_weighted_error": tf1.metrics.mean_absolute_error(labels, predictions["predictions"], weights=ink)}


def rounded_error(predictions, labels):
    return {"mae": tf1.metrics.mean_absolute_error(labels, tf.round(predictions["predictions"]))}


def model_fn(features, labels, mode, params):
    with tf1.variable_scope("net"):
        hidden = tf1.layers.dense(features["x"], 16, activation=tf.nn.relu, name="hidden")
        value = tf1.layers.dense(hidden, 1, name="value")
    predictions = {"predictions": value}
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)
    loss = tf1.losses.mean_squared_error(labels, value)
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss, predictions=predictions,
                                          eval_metric_ops={"mae": tf1.metrics.mean_absolute_error(labels, value)})
    train_op = tf1.train.AdamOptimizer(params["learning_rate"]).minimize(loss, tf1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=30)
    parser.add_argument("--results", required=True)
    args = parser.parse_args()

    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.float32).reshape(-1, 1)

    def train_input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(64)

    def eval_input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(100)

    config = tf.estimator.RunConfig(save_checkpoints_steps=10, tf_random_seed=3)
    columns = [tf.feature_column.numeric_column("x", shape=[64])]
    regressor = tf.estimator.DNNRegressor(hidden_units=[16], feature_columns=columns,
                                          model_dir=os.path.join(args.model_dir, "canned"), config=config)
    regressor = tf.estimator.add_metrics(regressor, my_rmse)
    regressor = tf.estimator.add_metrics(regressor, ink_weighted_error)
    regressor.train(input_fn=train_input_fn, max_steps=args.max_steps)
    regressor_metrics = regressor.evaluate(input_fn=eval_input_fn)

    custom = tf.estimator.Estimator(model_fn, model_dir=os.path.join(args.model_dir, "custom"), config=config,
                                    params={"learning_rate": 0.01})
    custom = tf.estimator.add_metrics(custom, my_rmse)
    custom = tf.estimator.add_metrics(custom, rounded_error)
    custom.train(input_fn=train_input_fn, max_steps=args.max_steps)
    custom_metrics = custom.evaluate(input_fn=eval_input_fn)

    with open(args.results, "w") as out:
        json.dump({name: {key: float(value) for key, value in metrics.items()}
                   for name, metrics in (("canned", regressor_metrics), ("custom", custom_metrics))}, out)


if __name__ == "__main__":
    main()
