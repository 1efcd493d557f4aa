"""A custom model_fn on tf.contrib.layers as TF 1.x code wrote it, spelled with tf_slim (where that code now is) so
that the legacy environment can run it (through tests/legacy/run_with_tf_slim.py), for tests/test_slim_model_fn.py.
Fixed batch order, a checkpoint every 10 steps (step 0 included).

`fully_connected` with a Xavier initializer and an L2 regularizer, `batch_norm` (is_training; its moving statistics
updated through UPDATE_OPS, which `optimize_loss` runs), `layer_norm`, `dropout` (keep_prob 1: the comparison is
step for step), and the train_op from `optimize_loss`: Adam at an exponentially decaying rate, gradients clipped by
global norm, loss / learning-rate / gradient-norm summaries. With --results, the estimator is evaluated on all of
digits and predicts its first 20 examples (written as JSON).
"""

import argparse
import json

import numpy as np
import tensorflow as tf
import tf_slim as slim
from sklearn.datasets import load_digits


def _digits():
    digits = load_digits()
    return (digits.data / 16.0).astype(np.float32), digits.target.astype(np.int32)


def input_fn(mode, params):
    x, y = _digits()
    dataset = tf.data.Dataset.from_tensor_slices(({"pixels": x}, y))
    if mode == tf.estimator.ModeKeys.TRAIN:
        dataset = dataset.repeat()
    return dataset.batch(params["batch_size"])


def predict_input_fn():
    x, _ = _digits()
    return tf.data.Dataset.from_tensor_slices({"pixels": x[:20]}).batch(8)


def model_fn(features, labels, mode, params):
    training = mode == tf.estimator.ModeKeys.TRAIN
    net = slim.fully_connected(features["pixels"], 32, weights_initializer=slim.xavier_initializer(seed=1),
                               weights_regularizer=slim.l2_regularizer(params["l2"]), scope="hidden")
    net = slim.batch_norm(net, is_training=training, decay=0.9, scope="hidden_bn")
    net = slim.layer_norm(net, scope="hidden_ln")
    net = slim.dropout(net, keep_prob=1.0, is_training=training)
    logits = slim.fully_connected(net, 10, activation_fn=None, weights_initializer=slim.xavier_initializer(seed=2),
                                  scope="logits")
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"classes": tf.argmax(logits, 1), "logits": logits})

    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits) + \
        tf.compat.v1.losses.get_regularization_loss()
    if mode == tf.estimator.ModeKeys.EVAL:
        accuracy = tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"accuracy": accuracy})

    train_op = slim.optimize_loss(
        loss, tf.compat.v1.train.get_global_step(), learning_rate=params["learning_rate"], optimizer="Adam",
        learning_rate_decay_fn=lambda rate, step: tf.compat.v1.train.exponential_decay(rate, step, 10, 0.8),
        clip_gradients=1.0, summaries=["loss", "learning_rate", "gradient_norm"])
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=20)
    parser.add_argument("--results")
    args = parser.parse_args()

    config = tf.estimator.RunConfig(model_dir=args.model_dir, save_checkpoints_steps=10)
    params = {"l2": 1e-4, "learning_rate": 0.01, "batch_size": 32}
    estimator = tf.estimator.Estimator(model_fn=model_fn, config=config, params=params)
    estimator.train(input_fn, max_steps=args.max_steps)
    if args.results:
        metrics = estimator.evaluate(input_fn)
        predictions = list(estimator.predict(predict_input_fn))
        with open(args.results, "w") as out:
            json.dump({"metrics": {k: float(v) for k, v in metrics.items()},
                       "classes": [int(p["classes"]) for p in predictions],
                       "logits": [p["logits"].tolist() for p in predictions]}, out)


if __name__ == "__main__":
    main()
