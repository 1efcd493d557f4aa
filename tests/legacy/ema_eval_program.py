"""A custom Estimator that trains with an exponential moving average of its weights and evaluates and predicts
with the averages, as TF1's TPU reference models (EfficientNet, EfficientDet) did: TRAIN applies the
`ExponentialMovingAverage` after each step; EVAL and PREDICT restore the averages into the model's variables
through `Scaffold(saver=Saver(ema.variables_to_restore()))`. Written for TF 2.15's tf.estimator (tf.compat.v1
names); migrated by `migrate rewrite` (tests/test_wrapped_model_fn.py).

Batches come in a fixed order and the graph is seeded, so a run is the same from the same checkpoint. Checkpoints
every 10 steps; then an evaluation of 5 batches and the probabilities predicted for the first 8 digits, as JSON to
--results."""

import argparse
import json

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

MOVING_AVERAGE_DECAY = 0.9


def digits():
    data = load_digits()
    return (data.data / 16.0).astype(np.float32), data.target.astype(np.int32)


def train_input_fn():
    images, labels = digits()
    return tf.data.Dataset.from_tensor_slices(({"x": images}, labels)).repeat().batch(64)


def predict_input_fn():
    images, _ = digits()
    return tf.data.Dataset.from_tensor_slices({"x": images[:8]}).batch(4)


def model_fn(features, labels, mode):
    hidden = tf.compat.v1.layers.dense(features["x"], 16, activation=tf.nn.relu, name="hidden")
    logits = tf.compat.v1.layers.dense(hidden, 10, name="logits")
    global_step = tf.compat.v1.train.get_global_step()
    ema = tf.compat.v1.train.ExponentialMovingAverage(decay=MOVING_AVERAGE_DECAY, num_updates=global_step)
    if mode == tf.estimator.ModeKeys.TRAIN:
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        minimize = tf.compat.v1.train.GradientDescentOptimizer(0.3).minimize(loss, global_step=global_step)
        with tf.control_dependencies([minimize]):
            train_op = ema.apply(tf.compat.v1.trainable_variables())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
    scaffold = tf.compat.v1.train.Scaffold(saver=tf.compat.v1.train.Saver(ema.variables_to_restore()))
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"probabilities": tf.nn.softmax(logits)},
                                          scaffold=scaffold)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    accuracy = tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))
    return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"accuracy": accuracy}, scaffold=scaffold)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=30)
    parser.add_argument("--results", required=True)
    args = parser.parse_args()

    config = tf.estimator.RunConfig(save_checkpoints_steps=10, tf_random_seed=1)
    estimator = tf.estimator.Estimator(model_fn, model_dir=args.model_dir, config=config)
    estimator.train(train_input_fn, max_steps=args.max_steps)
    metrics = estimator.evaluate(train_input_fn, steps=5)
    probabilities = [p["probabilities"].tolist() for p in estimator.predict(predict_input_fn)]
    with open(args.results, "w") as out:
        json.dump({"metrics": {key: float(value) for key, value in metrics.items()},
                   "probabilities": probabilities}, out)


if __name__ == "__main__":
    main()
