"""A custom model_fn leaving its loss, metrics, predictions and exports to an Estimator head, for
tests/test_estimator_heads.py: the shape of CTR and text-classification Estimators (`head.create_estimator_spec`
over the logits of the model_fn's own layers).

--head picks binary (string labels through a vocabulary, example weights, a threshold), multi_class (ten
classes, a named head), multi_label (four multi-hot labels, a threshold, metrics of one class), regression,
poisson (the digit as a count) or logistic (the digit / 9 as a probability). Written with TensorFlow 2's head classes; the test also runs it respelled
as TensorFlow 1.x code had it (tf.contrib.estimator's factories, the optimizer given to the head). It trains to
--max_steps, evaluates, predicts 8 examples and exports (parsing serving receiver), writing to --results as JSON:
the metrics, the predictions and what each exported signature gives for the 8 examples.
"""

import argparse
import json
import os

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

SERVED = 8


def digits(head):
    data = load_digits()
    features = {"x": (data.data / 16.0).astype(np.float32),
                "weight": np.where(data.target % 3 == 0, 2.0, 1.0).astype(np.float32)}
    if head == "binary":
        labels = np.where(data.target >= 5, "large", "small")
    elif head == "multi_class":
        labels = data.target.astype(np.int64)
    elif head == "multi_label":  # even, large, prime, square
        digit = data.target
        labels = np.stack([digit % 2 == 0, digit >= 5, np.isin(digit, [2, 3, 5, 7]), np.isin(digit, [0, 1, 4, 9])],
                          axis=1).astype(np.int64)
    elif head == "poisson":
        labels = data.target.astype(np.float32)
    elif head == "logistic":
        labels = (data.target / 9.0).astype(np.float32)
    else:
        labels = (data.target / 10.0).astype(np.float32)
    return features, labels


def input_fn(head, start, stop, repeat):
    features, labels = digits(head)
    dataset = tf.data.Dataset.from_tensor_slices(({k: v[start:stop] for k, v in features.items()}, labels[start:stop]))
    return (dataset.repeat() if repeat else dataset).batch(50)


def make_head(kind):
    if kind == "binary":
        return tf.estimator.BinaryClassHead(weight_column="weight", thresholds=[0.4],
                                            label_vocabulary=["small", "large"])
    if kind == "multi_class":
        return tf.estimator.MultiClassHead(n_classes=10, weight_column="weight", name="digits")
    if kind == "multi_label":
        return tf.estimator.MultiLabelHead(n_classes=4, weight_column="weight", thresholds=[0.5],
                                           label_vocabulary=["even", "large", "prime", "square"],
                                           classes_for_class_based_metrics=["prime"])
    if kind == "poisson":
        return tf.estimator.PoissonRegressionHead(weight_column="weight")
    if kind == "logistic":
        return tf.estimator.LogisticRegressionHead(weight_column="weight")
    return tf.estimator.RegressionHead(label_dimension=1, weight_column="weight")


def model_fn(features, labels, mode, params):
    head = make_head(params["head"])
    hidden = tf.compat.v1.layers.dense(features["x"], 16, activation=tf.nn.relu, name="hidden")
    logits = tf.compat.v1.layers.dense(hidden, head.logits_dimension, name="logits")
    optimizer = tf.compat.v1.train.AdagradOptimizer(learning_rate=0.3)
    return head.create_estimator_spec(
        features=features, mode=mode, labels=labels, logits=logits,
        train_op_fn=lambda loss: optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step()))


def served(export_dir, head):
    """Each exported signature's outputs for the first examples, fed as serialized tf.Examples."""
    features, _ = digits(head)
    examples = []
    for index in range(SERVED):
        example = tf.train.Example()
        example.features.feature["x"].float_list.value.extend(features["x"][index].astype(float))
        examples.append(example.SerializeToString())
    loaded = tf.saved_model.load(export_dir.decode() if isinstance(export_dir, bytes) else export_dir)
    outputs = {}
    for key, signature in sorted(loaded.signatures.items()):
        (name,) = signature.structured_input_signature[1]
        outputs[key] = {output: value.numpy().astype(str if value.dtype == tf.string else float).tolist()
                        for output, value in signature(**{name: tf.constant(examples)}).items()}
    return outputs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=30)
    parser.add_argument("--results", required=True)
    parser.add_argument("--head", choices=["binary", "multi_class", "multi_label", "regression", "poisson", "logistic"], default="binary")
    args = parser.parse_args()

    config = tf.estimator.RunConfig(save_checkpoints_steps=10, tf_random_seed=7)
    estimator = tf.estimator.Estimator(model_fn=model_fn, model_dir=args.model_dir, config=config,
                                       params={"head": args.head})
    estimator.train(lambda: input_fn(args.head, 0, 1400, True), max_steps=args.max_steps)
    metrics = estimator.evaluate(lambda: input_fn(args.head, 1400, 1797, False))
    predictions = estimator.predict(lambda: input_fn(args.head, 0, SERVED, False))
    receiver = tf.estimator.export.build_parsing_serving_input_receiver_fn(
        {"x": tf.io.FixedLenFeature([64], tf.float32)})
    export_dir = estimator.export_saved_model(os.path.join(args.model_dir, "export"), receiver)
    with open(args.results, "w") as out:
        json.dump({
            "metrics": {key: float(value) for key, value in metrics.items()},
            "predictions": [{key: np.asarray(value).astype(str if np.asarray(value).dtype.kind in "SO" else float)
                             .tolist() for key, value in prediction.items()} for prediction in predictions],
            "served": served(export_dir, args.head),
        }, out)


if __name__ == "__main__":
    main()
