"""A multi-task custom model_fn (one network, two objectives) leaving its losses, metrics, predictions and exports to
a `tf.estimator.MultiHead` of a ten-class head and a regression head, the regression's loss weighted by half, for
tests/test_estimator_heads.py. Its labels are a dict by head name: the digit and its ink (the mean pixel). Trains
to --max_steps, evaluates, predicts 4 examples and exports (parsing serving receiver), writing to --results as
JSON: the metrics, the predictions (keys "head/key") and each exported signature's outputs for the 4 examples.
"""

import argparse
import json
import os

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

SERVED = 4


def digits():
    data = load_digits()
    x = (data.data / 16.0).astype(np.float32)
    return x, {"digit": data.target.astype(np.int64), "ink": x.mean(axis=1)}


def input_fn(start, stop, repeat):
    x, labels = digits()
    dataset = tf.data.Dataset.from_tensor_slices(({"x": x[start:stop]},
                                                  {name: value[start:stop] for name, value in labels.items()}))
    return (dataset.repeat() if repeat else dataset).batch(50)


def model_fn(features, labels, mode):
    head = tf.estimator.MultiHead([tf.estimator.MultiClassHead(n_classes=10, name="digit"),
                                   tf.estimator.RegressionHead(name="ink")], head_weights=[1.0, 0.5])
    hidden = tf.compat.v1.layers.dense(features["x"], 16, activation=tf.nn.relu, name="hidden")
    logits = tf.compat.v1.layers.dense(hidden, head.logits_dimension, name="logits")
    optimizer = tf.compat.v1.train.AdamOptimizer(0.01)
    return head.create_estimator_spec(
        features=features, mode=mode, labels=labels, logits=logits,
        train_op_fn=lambda loss: optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step()))


def served(export_dir):
    x, _ = digits()
    examples = []
    for index in range(SERVED):
        example = tf.train.Example()
        example.features.feature["x"].float_list.value.extend(x[index].astype(float))
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
    args = parser.parse_args()
    estimator = tf.estimator.Estimator(model_fn, model_dir=args.model_dir,
                                       config=tf.estimator.RunConfig(save_checkpoints_steps=10, tf_random_seed=3))
    estimator.train(lambda: input_fn(0, 1400, True), max_steps=args.max_steps)
    metrics = estimator.evaluate(lambda: input_fn(1400, 1797, False))
    predictions = estimator.predict(lambda: input_fn(0, SERVED, False))
    receiver = tf.estimator.export.build_parsing_serving_input_receiver_fn(
        {"x": tf.io.FixedLenFeature([64], tf.float32)})
    export_dir = estimator.export_saved_model(os.path.join(args.model_dir, "export"), receiver)
    with open(args.results, "w") as out:
        json.dump({
            "metrics": {key: float(value) for key, value in metrics.items()},
            "predictions": [{"/".join(key): np.asarray(value).astype(
                str if np.asarray(value).dtype.kind in "SO" else float).tolist() for key, value in prediction.items()}
                for prediction in predictions],
            "served": served(export_dir),
        }, out)


if __name__ == "__main__":
    main()
