"""Head-based canned estimators, for tests/test_head_canned_estimators.py: `tf.estimator.DNNEstimator(head=...)` and
its siblings, which TensorFlow 2's API documents as the classifier or regressor of their head.

--estimator picks dnn (a ten-class head with example weights), multi_label (a DNNEstimator of a weighted four-class
multi-label head named "kinds": multi-hot labels; metrics at two thresholds), linear (a binary head, string labels through a
vocabulary, metrics at a threshold), combined (a regression head) or baseline (a ten-class head; its input has no other feature than the
pixels: TensorFlow 2.15's baselines fail to read an input of several features). Trains to --max_steps, evaluates and
predicts 8 examples, writing both to --results as JSON (multi_label: also what its export serves for them, each
signature given the examples serialized).
"""

import argparse
import json
import os

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

COLUMNS = [tf.feature_column.numeric_column("x", shape=[64])]


def digits(estimator):
    data = load_digits()
    features = {"x": (data.data / 16.0).astype(np.float32)}
    if estimator != "baseline":
        features["w"] = np.where(data.target % 2 == 0, 1.5, 1.0).astype(np.float32)
    if estimator == "linear":
        return features, np.where(data.target >= 5, "large", "small")
    if estimator == "combined":
        return features, (data.target / 10.0).astype(np.float32)
    if estimator == "multi_label":  # even, large, prime, square
        digit = data.target
        return features, np.stack([digit % 2 == 0, digit >= 5, np.isin(digit, [2, 3, 5, 7]),
                                   np.isin(digit, [0, 1, 4, 9])], axis=1).astype(np.int64)
    return features, data.target.astype(np.int64)


def input_fn(estimator, start, stop, repeat):
    features, labels = digits(estimator)
    dataset = tf.data.Dataset.from_tensor_slices(({k: v[start:stop] for k, v in features.items()}, labels[start:stop]))
    return (dataset.repeat() if repeat else dataset).batch(50)


def build(estimator, model_dir, config):
    if estimator == "dnn":
        return tf.estimator.DNNEstimator(head=tf.estimator.MultiClassHead(n_classes=10, weight_column="w"),
                                         hidden_units=[16], feature_columns=COLUMNS, model_dir=model_dir,
                                         config=config)
    if estimator == "multi_label":
        head = tf.estimator.MultiLabelHead(n_classes=4, weight_column="w", thresholds=[0.3, 0.5], name="kinds")
        return tf.estimator.DNNEstimator(head=head, hidden_units=[16], feature_columns=COLUMNS, model_dir=model_dir,
                                         config=config)
    if estimator == "linear":
        head = tf.estimator.BinaryClassHead(label_vocabulary=["small", "large"], thresholds=[0.4])
        return tf.estimator.LinearEstimator(head=head, feature_columns=COLUMNS, model_dir=model_dir, config=config)
    if estimator == "combined":
        return tf.estimator.DNNLinearCombinedEstimator(
            head=tf.estimator.RegressionHead(weight_column="w"), linear_feature_columns=COLUMNS,
            dnn_feature_columns=COLUMNS, dnn_hidden_units=[8], model_dir=model_dir, config=config)
    return tf.estimator.BaselineEstimator(head=tf.estimator.MultiClassHead(n_classes=10), model_dir=model_dir,
                                          config=config)


def served_outputs(estimator, model_dir):
    """Each signature of the estimator's export, given the first 8 examples as serialized tf.Examples."""
    receiver = tf.estimator.export.build_parsing_serving_input_receiver_fn(
        tf.feature_column.make_parse_example_spec(COLUMNS))
    export_dir = estimator.export_saved_model(os.path.join(model_dir, "export"), receiver)
    examples = [tf.train.Example(features=tf.train.Features(feature={"x": tf.train.Feature(
        float_list=tf.train.FloatList(value=row))})).SerializeToString() for row in digits("multi_label")[0]["x"][:8]]
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        meta_graph = tf.compat.v1.saved_model.load(session, ["serve"], export_dir)
        served = {}
        for name, signature in meta_graph.signature_def.items():
            if name.startswith("__"):  # a TensorFlow 2 SavedModel's initializer (`__saved_model_init_op`)
                continue
            (input_name,) = [tensor.name for tensor in signature.inputs.values()]
            outputs = session.run({key: tensor.name for key, tensor in signature.outputs.items()},
                                  {input_name: examples})
            served[name] = {key: np.asarray(value).astype(str if np.asarray(value).dtype.kind in "SO" else float)
                            .tolist() for key, value in outputs.items()}
    return served


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=20)
    parser.add_argument("--results", required=True)
    parser.add_argument("--estimator", choices=["dnn", "multi_label", "linear", "combined", "baseline"], default="dnn")
    args = parser.parse_args()
    config = tf.estimator.RunConfig(save_checkpoints_steps=10, tf_random_seed=11)
    estimator = build(args.estimator, args.model_dir, config)
    estimator.train(lambda: input_fn(args.estimator, 0, 1400, True), max_steps=args.max_steps)
    metrics = estimator.evaluate(lambda: input_fn(args.estimator, 1400, 1797, False))
    predictions = estimator.predict(lambda: input_fn(args.estimator, 0, 8, False))
    served = served_outputs(estimator, args.model_dir) if args.estimator == "multi_label" else {}
    with open(args.results, "w") as out:
        json.dump({
            "served": served,
            "metrics": {key: float(value) for key, value in metrics.items()},
            "predictions": [{key: np.asarray(value).astype(str if np.asarray(value).dtype.kind in "SO" else float)
                             .tolist() for key, value in prediction.items()} for prediction in predictions],
        }, out)


if __name__ == "__main__":
    main()
