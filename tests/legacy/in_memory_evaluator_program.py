"""A canned estimator trained with `tf.estimator.experimental.InMemoryEvaluatorHook`, for
tests/test_in_memory_evaluator.py: the input of `migrate rewrite` and, unchanged, the legacy reference run.

The hook evaluates the model as it is in memory every 10 steps of the training (and when it starts and ends),
writing the metrics to model_dir/eval, where TensorBoard and the early-stopping hooks read them.
"""

import argparse

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits


def digits_input_fn(rows, repeat):
    digits = load_digits()
    x = (digits.data[:rows] / 16.0).astype(np.float32)
    y = digits.target[:rows].astype(np.int32)

    def input_fn():
        dataset = tf.data.Dataset.from_tensor_slices(({"pixels": x}, y)).batch(64)
        return dataset.repeat() if repeat else dataset

    return input_fn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=30)
    args = parser.parse_args()

    columns = [tf.feature_column.numeric_column("pixels", shape=[64])]
    config = tf.estimator.RunConfig(model_dir=args.model_dir, save_checkpoints_steps=10)
    classifier = tf.estimator.LinearClassifier(feature_columns=columns, n_classes=10, config=config)
    evaluator = tf.estimator.experimental.InMemoryEvaluatorHook(classifier, digits_input_fn(256, repeat=False),
                                                                every_n_iter=10)
    classifier.train(input_fn=digits_input_fn(None, repeat=True), max_steps=args.max_steps, hooks=[evaluator])


if __name__ == "__main__":
    main()
