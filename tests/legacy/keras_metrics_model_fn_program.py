"""A TensorFlow 2.x custom model_fn whose evaluation metrics are Keras metric objects, updated in the model_fn and
given to the EstimatorSpec as they are (`eval_metric_ops={"auc": metric}`, which TensorFlow 2's Estimator
accepted beside TF1's (value, update_op) pairs), for tests/test_keras_metrics_model_fn.py. Trains to --max_steps,
evaluates twice (each evaluation starts its metrics from zero) and writes both evaluations to --results as JSON.
"""

import argparse
import json

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits


def model_fn(features, labels, mode):
    hidden = tf.compat.v1.layers.dense(features["x"], 16, activation=tf.nn.relu, name="hidden")
    logits = tf.squeeze(tf.compat.v1.layers.dense(hidden, 1, name="logits"), axis=1)
    probabilities = tf.math.sigmoid(logits)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"probabilities": probabilities})
    loss = tf.compat.v1.losses.sigmoid_cross_entropy(labels, logits)
    if mode == tf.estimator.ModeKeys.EVAL:
        auc = tf.keras.metrics.AUC(name="auc")
        auc.update_state(labels, probabilities)
        accuracy = tf.keras.metrics.BinaryAccuracy(name="accuracy")
        accuracy.update_state(labels, probabilities)
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={
            "auc": auc, "accuracy": accuracy,
            "mean_probability": tf.compat.v1.metrics.mean(probabilities)})
    train_op = tf.compat.v1.train.AdamOptimizer(0.01).minimize(loss, tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def input_fn(start, stop, repeat):
    data = load_digits()
    x = (data.data / 16.0).astype(np.float32)
    labels = (data.target >= 5).astype(np.float32)
    dataset = tf.data.Dataset.from_tensor_slices(({"x": x[start:stop]}, labels[start:stop]))
    return (dataset.repeat() if repeat else dataset).batch(50)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=30)
    parser.add_argument("--results", required=True)
    args = parser.parse_args()
    estimator = tf.estimator.Estimator(model_fn, model_dir=args.model_dir,
                                       config=tf.estimator.RunConfig(save_checkpoints_steps=10, tf_random_seed=5))
    estimator.train(lambda: input_fn(0, 1400, True), max_steps=args.max_steps)
    evaluations = [estimator.evaluate(lambda: input_fn(1400, 1797, False)) for _ in range(2)]
    with open(args.results, "w") as out:
        json.dump({"metrics": [{key: float(value) for key, value in metrics.items()} for metrics in evaluations]}, out)


if __name__ == "__main__":
    main()
