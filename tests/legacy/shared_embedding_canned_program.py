"""A CTR-style wide & deep canned estimator for tests/test_shared_embeddings.py, written for TensorFlow 1.x: two id
features share one embedding table in the deep part (`tf.feature_column.shared_embedding_columns`), the same ids
are the wide part's categorical columns. --results: the evaluation and the first 20 predictions (class ids,
logits), as JSON.
"""

import argparse
import json

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=20)
    parser.add_argument("--results", required=True)
    args = parser.parse_args()
    digits = load_digits()
    # two pixels as ids (0..16): the same buckets, one table
    features = {"pixels": (digits.data / 16.0).astype(np.float32),
                "upper": digits.images[:, 2, 3].astype(np.int64),
                "lower": digits.images[:, 5, 4].astype(np.int64)}
    labels = (digits.target >= 5).astype(np.int64)
    upper = tf.feature_column.categorical_column_with_identity("upper", num_buckets=17)
    lower = tf.feature_column.categorical_column_with_identity("lower", num_buckets=17)
    deep = [tf.feature_column.numeric_column("pixels", shape=[64])] + \
        tf.feature_column.shared_embedding_columns([upper, lower], dimension=4, combiner="sqrtn")
    config = tf.estimator.RunConfig(save_checkpoints_steps=10, tf_random_seed=2)
    estimator = tf.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=[upper, lower], dnn_feature_columns=deep, dnn_hidden_units=[16],
        model_dir=args.model_dir, config=config)
    estimator.train(lambda: tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(50),
                    max_steps=args.max_steps)
    metrics = estimator.evaluate(lambda: tf.data.Dataset.from_tensor_slices((features, labels)).batch(300))
    first = {key: value[:20] for key, value in features.items()}
    predictions = list(estimator.predict(lambda: tf.data.Dataset.from_tensor_slices(first).batch(20)))
    with open(args.results, "w") as out:
        json.dump({"metrics": {key: float(value) for key, value in metrics.items()},
                   "classes": [int(p["class_ids"][0]) for p in predictions],
                   "logits": [p["logits"].tolist() for p in predictions]}, out)


if __name__ == "__main__":
    main()
