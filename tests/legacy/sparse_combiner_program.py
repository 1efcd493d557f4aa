"""Canned estimators whose categorical features hold several ids per example (tags padded with "", as a
dense string matrix), the linear part combining their weights by --combiner (`sparse_combiner` of
LinearClassifier, `linear_sparse_combiner` of DNNLinearCombinedClassifier), for tests/test_sparse_combiner.py.
Trains to --max_steps on unshuffled batches, evaluates, predicts the first examples' logits, and writes both to
--results as JSON.
"""

import argparse
import json

import numpy as np
import tensorflow as tf

TAGS = ["red", "green", "blue", "small", "large", "round"]


def examples():
    rng = np.random.RandomState(3)
    x = rng.uniform(-1, 1, size=(48, 4)).astype(np.float32)
    tags = np.array(TAGS + [""])[rng.randint(0, len(TAGS) + 1, size=(48, 3))]
    tags[:, 0] = np.array(TAGS)[np.arange(48) % len(TAGS)]  # every example has one tag at least
    labels = (np.arange(48) % 3).astype(np.int64)
    return {"x": x, "tags": tags}, labels


def input_fn():
    features, labels = examples()
    return tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(8)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=10)
    parser.add_argument("--results", required=True)
    parser.add_argument("--combiner", default="sum")
    parser.add_argument("--model", choices=["linear", "combined"], default="linear")
    args = parser.parse_args()

    x = tf.feature_column.numeric_column("x", shape=[4])
    tags = tf.feature_column.categorical_column_with_vocabulary_list("tags", TAGS)
    config = tf.estimator.RunConfig(save_checkpoints_steps=5, tf_random_seed=11)
    if args.model == "linear":
        estimator = tf.estimator.LinearClassifier(
            feature_columns=[x, tags], n_classes=3, sparse_combiner=args.combiner,
            model_dir=args.model_dir, config=config)
    else:
        estimator = tf.estimator.DNNLinearCombinedClassifier(
            linear_feature_columns=[x, tags], dnn_feature_columns=[x, tf.feature_column.indicator_column(tags)],
            dnn_hidden_units=[8], n_classes=3, linear_sparse_combiner=args.combiner,
            model_dir=args.model_dir, config=config)
    estimator.train(input_fn, max_steps=args.max_steps)
    metrics = estimator.evaluate(input_fn, steps=6)
    predictions = estimator.predict(input_fn)
    logits = [next(predictions)["logits"].tolist() for _ in range(12)]
    with open(args.results, "w") as out:
        json.dump({"metrics": {key: float(value) for key, value in metrics.items()}, "logits": logits}, out)


if __name__ == "__main__":
    main()
