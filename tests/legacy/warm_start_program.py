"""A canned estimator warm-started from an earlier run, as TFX trainer modules and transfer-learning scripts
wrote it: `build_estimator(config, warm_start_from=...)` returns a DNNLinearCombinedClassifier, given a model
directory to start from (`--warm_start_from`), or WarmStartSettings naming the variables to take from it
(`--warm_vars`, a regular expression). Digits, unshuffled batches of 32, a checkpoint every 10 steps.

Runs under the legacy environment as it is (the reference) and, migrated by `migrate rewrite`, under the modern
one (tests/test_warm_start.py).
"""

import argparse

import tensorflow as tf
from sklearn.datasets import load_digits


def feature_columns():
    image = tf.feature_column.numeric_column("x", shape=[64])
    ink = tf.feature_column.bucketized_column(tf.feature_column.numeric_column("ink"), [200.0, 300.0, 400.0])
    return [image, ink], [image]


def build_estimator(config, warm_start_from=None):
    linear_columns, dnn_columns = feature_columns()
    return tf.estimator.DNNLinearCombinedClassifier(
        config=config,
        linear_feature_columns=linear_columns,
        dnn_feature_columns=dnn_columns,
        dnn_hidden_units=[16, 8],
        n_classes=10,
        warm_start_from=warm_start_from,
    )


def input_fn():
    digits = load_digits()
    images = digits.data.astype("float32")
    features = {"x": images, "ink": images.sum(axis=1)}
    dataset = tf.data.Dataset.from_tensor_slices((features, digits.target.astype("int32")))
    return dataset.repeat().batch(32)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=20)
    parser.add_argument("--warm_start_from")
    parser.add_argument("--warm_vars")
    args = parser.parse_args()

    warm_start_from = args.warm_start_from
    if args.warm_vars:
        warm_start_from = tf.estimator.WarmStartSettings(
            ckpt_to_initialize_from=args.warm_start_from, vars_to_warm_start=args.warm_vars
        )
    config = tf.estimator.RunConfig(model_dir=args.model_dir, save_checkpoints_steps=10, tf_random_seed=7)
    estimator = build_estimator(config, warm_start_from)
    estimator.train(input_fn=input_fn, max_steps=args.max_steps)


if __name__ == "__main__":
    main()
