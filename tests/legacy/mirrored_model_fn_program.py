"""A custom Estimator written for several GPUs: `RunConfig(train_distribute=tf.distribute.MirroredStrategy())`
(all the machine's devices), run on a machine with one (one replica), as such programs ran on a workstation.
Written for TF 2.15's tf.estimator (tf.compat.v1 names); migrated by `migrate rewrite`
(tests/test_wrapped_model_fn.py). Batches come in a fixed order and the graph is seeded; --results gets the
evaluation of 5 batches and the classes predicted for the first 8 digits."""

import argparse
import json

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits


def digits():
    data = load_digits()
    return (data.data / 16.0).astype(np.float32), data.target.astype(np.int32)


def train_input_fn():
    images, labels = digits()
    return tf.data.Dataset.from_tensor_slices(({"x": images}, labels)).repeat().batch(32)


def predict_input_fn():
    images, _ = digits()
    return tf.data.Dataset.from_tensor_slices({"x": images[:8]}).batch(4)


def model_fn(features, labels, mode, params):
    net = tf.compat.v1.layers.dense(features["x"], 32, activation=tf.nn.relu, name="hidden")
    logits = tf.compat.v1.layers.dense(net, 10, name="logits")
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"class": tf.argmax(logits, 1)})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.compat.v1.train.AdamOptimizer(params["learning_rate"]).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    metrics = {"accuracy": tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))}
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=40)
    parser.add_argument("--results", required=True)
    args = parser.parse_args()

    config = tf.estimator.RunConfig(train_distribute=tf.distribute.MirroredStrategy(), save_checkpoints_steps=20,
                                    tf_random_seed=3)
    estimator = tf.estimator.Estimator(model_fn, model_dir=args.model_dir, config=config,
                                       params={"learning_rate": 0.01})
    estimator.train(train_input_fn, max_steps=args.max_steps)
    metrics = estimator.evaluate(train_input_fn, steps=5)
    classes = [int(p["class"]) for p in estimator.predict(predict_input_fn)]
    with open(args.results, "w") as out:
        json.dump({"metrics": {key: float(value) for key, value in metrics.items()}, "classes": classes}, out)


if __name__ == "__main__":
    main()
