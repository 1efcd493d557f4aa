"""A canned estimator whose input_fns return the tensors of a one-shot iterator's get_next(), changed before
they are returned (the shape of tf.Transform's census example and of most TF1 tutorials' input_fns), made by
a factory. Written as Estimator users wrote it; run as it is under TF 2.15 + tensorflow-estimator, and after
`migrate rewrite` under the newest TensorFlow (tests/test_graph_input.py).

Training has no step limit: it ends when the two epochs of training data end (36 batches of 100, the last
short), as the iterator raised OutOfRangeError. Checkpoints at step 0 and at the end. Then evaluation on
every example once (through the same kind of input_fn); metrics to --metrics_out.
"""

import argparse
import json

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

tf1 = tf.compat.v1


def make_input_fn(images, labels, epochs):
    def input_fn():
        dataset = tf.data.Dataset.from_tensor_slices(({"pixels": images}, labels)).repeat(epochs).batch(100)
        features, digits = tf1.data.make_one_shot_iterator(dataset).get_next()
        # scaled to [0, 1], renamed, and the label made "is it a large digit"
        features = {"x": tf.cast(features.pop("pixels"), tf.float32) / 16.0}
        return features, tf.where(digits >= 5, tf.ones_like(digits), tf.zeros_like(digits))

    return input_fn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--metrics_out", required=True)
    args = parser.parse_args()

    digits = load_digits()
    images = digits.images.reshape(-1, 64).astype(np.int32)
    config = tf1.estimator.RunConfig(save_checkpoints_steps=1000, tf_random_seed=7)
    classifier = tf1.estimator.LinearClassifier(
        feature_columns=[tf1.feature_column.numeric_column("x", shape=[64])],
        optimizer=tf1.train.GradientDescentOptimizer(0.005),
        model_dir=args.model_dir,
        config=config,
    )
    classifier.train(input_fn=make_input_fn(images, digits.target, epochs=2))
    metrics = classifier.evaluate(input_fn=make_input_fn(images, digits.target, epochs=1))
    with open(args.metrics_out, "w") as out:
        json.dump({key: float(value) for key, value in metrics.items()}, out)


if __name__ == "__main__":
    main()
