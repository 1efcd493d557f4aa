"""A custom model_fn whose training Scaffold carries its own Saver to keep fewer checkpoints than RunConfig's
default (`Scaffold(saver=tf.train.Saver(max_to_keep=2))`), for tests/test_scaffold_saver.py. TensorFlow 1.x code,
run by the legacy reference as 1.x ran it (tests/legacy/run_as_tf1.py). Trains to --max_steps saving every 5
steps, evaluates, and writes the evaluation to --results as JSON.
"""

import argparse
import json

import numpy as np
import tensorflow as tf


def model_fn(features, labels, mode):
    hidden = tf.layers.dense(features["x"], 8, activation=tf.nn.relu, name="hidden")
    logits = tf.squeeze(tf.layers.dense(hidden, 1, name="out"), 1)
    loss = tf.losses.mean_squared_error(labels, logits)
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, tf.train.get_global_step())
    scaffold = tf.train.Scaffold(saver=tf.train.Saver(max_to_keep=2))
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, scaffold=scaffold,
                                      predictions={"y": logits})


def input_fn():
    x = np.arange(40, dtype=np.float32).reshape(20, 2) / 40
    return tf.data.Dataset.from_tensor_slices(({"x": x}, x.sum(1))).repeat().batch(5)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=30)
    parser.add_argument("--results", required=True)
    args = parser.parse_args()
    config = tf.estimator.RunConfig(save_checkpoints_steps=5, tf_random_seed=1)
    estimator = tf.estimator.Estimator(model_fn, model_dir=args.model_dir, config=config)
    estimator.train(input_fn, max_steps=args.max_steps)
    metrics = estimator.evaluate(input_fn, steps=2)
    with open(args.results, "w") as out:
        json.dump({"metrics": {key: float(value) for key, value in metrics.items()}}, out)


if __name__ == "__main__":
    main()
