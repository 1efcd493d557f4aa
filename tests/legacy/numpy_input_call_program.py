"""A canned estimator whose input_fn calls a numpy_input_fn's input_fn itself and changes the tensors it gets
(the shape of tensorflow-workshop's cat_dog_estimator: `features, labels = np_input_fn()` inside an input_fn
built by a wrapper taking `shuffle` and the epochs). Written as Estimator users wrote it; run as it is under
TF 2.15 + tensorflow-estimator, and after `migrate rewrite` under the newest TensorFlow
(tests/test_graph_input.py).

Training has no step limit: it ends when the two epochs of training data end (36 batches of 100, the last
short: numpy_input_fn batches across the epochs' boundary), as the input_fn's queue ended. Checkpoints at step
0 and at the end. Then evaluation on every example once; metrics to --metrics_out.
"""

import argparse
import json

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

tf1 = tf.compat.v1


def input_fn_wrapper(images, labels, epochs, shuffle):
    def input_fn():
        np_input_fn = tf1.estimator.inputs.numpy_input_fn(
            x={"pixels": images}, y=labels, batch_size=100, num_epochs=epochs, shuffle=shuffle)
        features, digits = np_input_fn()
        # scaled to [0, 1], renamed, and the label made "is it a large digit"
        features = {"x": tf.cast(features["pixels"], tf.float32) / 16.0}
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
    classifier.train(input_fn=input_fn_wrapper(images, digits.target, epochs=2, shuffle=False))
    metrics = classifier.evaluate(input_fn=input_fn_wrapper(images, digits.target, epochs=1, shuffle=False))
    with open(args.metrics_out, "w") as out:
        json.dump({key: float(value) for key, value in metrics.items()}, out)


if __name__ == "__main__":
    main()
