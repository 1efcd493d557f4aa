"""A seeded Estimator program in the shape that keeps it off tier 1: the RunConfig (with tf_random_seed) written
inline in the constructor, and input_fns that chain dataset methods on a function's result. DNNClassifier with
dropout on digits; a checkpoint every 5 steps. The rewrite puts it on the run-time tier
(compat.estimator_training), where the config, and with it the seed, must come before the model is built.
It runs under the legacy environment as written; the tests run its migrations.
"""

import argparse

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits


def input_fn(pixels, labels):
    return tf.data.Dataset.from_tensor_slices(({"x": pixels}, labels)).shuffle(500).batch(64)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=60)
    args = parser.parse_args()

    digits = load_digits()
    pixels = (digits.data / 16.0).astype(np.float32)
    labels = digits.target.astype(np.int32)
    classifier = tf.estimator.DNNClassifier(
        feature_columns=[tf.feature_column.numeric_column("x", shape=[64])],
        hidden_units=[32, 16],
        n_classes=10,
        dropout=0.3,
        model_dir=args.model_dir,
        config=tf.estimator.RunConfig(tf_random_seed=42, save_checkpoints_steps=5),
    )
    classifier.train(input_fn=lambda: input_fn(pixels, labels).repeat(), max_steps=args.max_steps)
    print(classifier.evaluate(input_fn=lambda: input_fn(pixels, labels).take(12)))


if __name__ == "__main__":
    main()
