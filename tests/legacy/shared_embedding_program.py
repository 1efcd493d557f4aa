"""A CTR-style custom estimator for tests/test_shared_embeddings.py: two id features sharing one embedding table
(`tf.feature_column.shared_embedding_columns`, made in main, as TensorFlow 1.x programs made their columns), read
by `input_layer` in the model_fn, with the pixels. TensorFlow 2 refuses to make such columns eagerly; the rewrite
makes them in a graph of their own (compat.tf1_feature_columns). --results: the evaluation and the first 20
predictions (classes, logits), as JSON.
"""

import argparse
import json

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits


def model_fn(features, labels, mode, params):
    net = tf.feature_column.input_layer(features, params["columns"])
    net = tf.layers.dense(net, 16, activation=tf.nn.relu, name="hidden")
    logits = tf.layers.dense(net, 10, name="logits")
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"classes": tf.argmax(logits, 1), "logits": logits})
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.train.AdagradOptimizer(0.1).minimize(loss, global_step=tf.train.get_global_step())
    accuracy = tf.metrics.accuracy(labels, tf.argmax(logits, 1))
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops={"accuracy": accuracy})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=20)
    parser.add_argument("--results", required=True)
    args = parser.parse_args()
    digits = load_digits()
    # two pixels as ids ("p0".."p16"): the same vocabulary, one table
    features = {"pixels": (digits.data / 16.0).astype(np.float32),
                "upper": np.char.add("p", digits.images[:, 2, 3].astype(int).astype(str)),
                "lower": np.char.add("p", digits.images[:, 5, 4].astype(int).astype(str))}
    vocabulary = [f"p{value}" for value in range(17)]
    upper = tf.feature_column.categorical_column_with_vocabulary_list("upper", vocabulary)
    lower = tf.feature_column.categorical_column_with_vocabulary_list("lower", vocabulary)
    columns = [tf.feature_column.numeric_column("pixels", shape=[64])] + \
        tf.feature_column.shared_embedding_columns([upper, lower], dimension=4)
    config = tf.estimator.RunConfig(save_checkpoints_steps=10, tf_random_seed=2)
    estimator = tf.estimator.Estimator(model_fn, model_dir=args.model_dir, params={"columns": columns}, config=config)
    labels = digits.target.astype(np.int32)
    estimator.train(lambda: tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(50),
                    max_steps=args.max_steps)
    metrics = estimator.evaluate(lambda: tf.data.Dataset.from_tensor_slices((features, labels)).batch(300))
    first = {key: value[:20] for key, value in features.items()}
    predictions = list(estimator.predict(lambda: tf.data.Dataset.from_tensor_slices(first).batch(20)))
    with open(args.results, "w") as out:
        json.dump({"metrics": {key: float(value) for key, value in metrics.items()},
                   "classes": [int(p["classes"]) for p in predictions],
                   "logits": [p["logits"].tolist() for p in predictions]}, out)


if __name__ == "__main__":
    main()
