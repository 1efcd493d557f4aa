"""Model selection over the checkpoints an Estimator kept, as TF 1.x tutorials did it: a canned DNNClassifier
built by a factory trains with a checkpoint every 10 steps, then each checkpoint still in model_dir
(`get_checkpoint_state(...).all_model_checkpoint_paths`, the newest `keep_checkpoint_max`) is evaluated on held-out
digits and the best is reported. Run by tests/test_kept_checkpoints.py: under TF 2.15 with the real Estimator, and
migrated under the newest TensorFlow."""

import argparse
import json

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits


def build_estimator(model_dir):
    config = tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=10, keep_checkpoint_max=3,
                                    tf_random_seed=1)
    columns = [tf.feature_column.numeric_column("pixels", shape=[64])]
    return tf.estimator.DNNClassifier(hidden_units=[32], feature_columns=columns, n_classes=10, config=config)


def make_input_fn(images, labels, epochs):
    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"pixels": images}, labels)).repeat(epochs).batch(32)
    return input_fn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=60)
    parser.add_argument("--results", required=True)
    args = parser.parse_args()

    digits = load_digits()
    images = (digits.data / 16.0).astype(np.float32)
    labels = digits.target.astype(np.int32)
    estimator = build_estimator(args.model_dir)
    estimator.train(make_input_fn(images[:1400], labels[:1400], None), max_steps=args.max_steps)

    evaluated = {}
    for path in tf.train.get_checkpoint_state(args.model_dir).all_model_checkpoint_paths:
        metrics = estimator.evaluate(make_input_fn(images[1400:], labels[1400:], 1), checkpoint_path=path)
        evaluated[int(metrics["global_step"])] = {"accuracy": float(metrics["accuracy"]),
                                                  "average_loss": float(metrics["average_loss"])}
    best = max(evaluated, key=lambda step: evaluated[step]["accuracy"])
    with open(args.results, "w") as out:
        json.dump({"evaluated": evaluated, "best": best}, out)


if __name__ == "__main__":
    main()
