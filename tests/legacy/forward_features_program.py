"""A trainer in the shape of Google Cloud's TensorFlow 1.x samples (babyweight, taxifare), for
tests/test_forward_features.py: an estimator given an extra metric (`tf.contrib.estimator.add_metrics`) and its
key column forwarded to its predictions (`tf.contrib.estimator.forward_features`), so that batch predictions can
be matched with their examples; train_and_evaluate with a LatestExporter, then predict.

--custom builds a custom model_fn Estimator instead of the canned DNNRegressor. The legacy reference runs a copy
respelled for TensorFlow 2.15 (no tf.contrib: add_metrics is tf.estimator's, forward_features left out), so its
predictions and exports are the Estimator's own, without the key. Results go to --results as JSON: the final
evaluation, the first 8 predictions and the exported `predict` (canned) or `serving_default` (custom) signature's
outputs for the first 8 examples.
"""

import argparse
import glob
import json
import os

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

KEY_COLUMN = "key"
SERVED = 8


def digits():
    data = load_digits()
    pixels = (data.data / 16.0).astype(np.float32)
    keys = np.array([f"example-{index:04d}" for index in range(len(pixels))])
    return pixels, keys, (data.target / 10.0).astype(np.float32)


def read_dataset(start, stop, mode, batch_size):
    def _input_fn():
        pixels, keys, labels = digits()
        features = {"pixels": pixels[start:stop], KEY_COLUMN: keys[start:stop]}
        dataset = tf.data.Dataset.from_tensor_slices((features, labels[start:stop]))
        if mode == tf.estimator.ModeKeys.TRAIN:
            dataset = dataset.repeat()
        return dataset.batch(batch_size)
    return _input_fn


def my_rmse(labels, predictions):
    return {"rmse": tf.compat.v1.metrics.root_mean_squared_error(labels, predictions["predictions"])}


def model_fn(features, labels, mode):
    hidden = tf.compat.v1.layers.dense(features["pixels"], 16, activation=tf.nn.relu, name="hidden")
    predictions = tf.squeeze(tf.compat.v1.layers.dense(hidden, 1, name="output"), axis=1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"predictions": predictions})
    loss = tf.compat.v1.losses.mean_squared_error(labels, predictions)
    train_op = tf.compat.v1.train.AdamOptimizer(0.01).minimize(loss, tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, predictions={"predictions": predictions})


def serving_input_fn():
    placeholders = {"pixels": tf.compat.v1.placeholder(tf.float32, [None, 64]),
                    KEY_COLUMN: tf.compat.v1.placeholder(tf.string, [None])}
    return tf.estimator.export.ServingInputReceiver(placeholders, placeholders)


def served(export_base):
    """The exported signature's outputs (as lists) for the first examples."""
    (export_dir,) = sorted(glob.glob(os.path.join(export_base, "[0-9]*")))[-1:]
    signatures = tf.saved_model.load(export_dir).signatures
    pixels, keys, _ = digits()
    signature = signatures["predict" if "predict" in signatures else "serving_default"]
    outputs = signature(pixels=tf.constant(pixels[:SERVED]), key=tf.constant(keys[:SERVED]))
    return {name: value.numpy().astype(str if value.dtype == tf.string else float).tolist()
            for name, value in outputs.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=30)
    parser.add_argument("--results", required=True)
    parser.add_argument("--custom", action="store_true")
    args = parser.parse_args()

    config = tf.estimator.RunConfig(save_checkpoints_steps=10, tf_random_seed=3)
    if args.custom:
        estimator = tf.estimator.Estimator(model_fn=model_fn, model_dir=args.model_dir, config=config)
    else:
        estimator = tf.estimator.DNNRegressor(
            feature_columns=[tf.feature_column.numeric_column("pixels", shape=[64])], hidden_units=[16],
            model_dir=args.model_dir, config=config)
    estimator = tf.contrib.estimator.add_metrics(estimator, my_rmse)
    estimator = tf.contrib.estimator.forward_features(estimator, KEY_COLUMN)

    train_spec = tf.estimator.TrainSpec(read_dataset(0, 1400, tf.estimator.ModeKeys.TRAIN, 50),
                                        max_steps=args.max_steps)
    exporter = tf.estimator.LatestExporter("exporter", serving_input_fn)
    eval_spec = tf.estimator.EvalSpec(read_dataset(1400, 1797, tf.estimator.ModeKeys.EVAL, 100), steps=None,
                                      exporters=exporter, throttle_secs=0, start_delay_secs=0)
    metrics, _ = tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)

    predictions = estimator.predict(read_dataset(0, SERVED, tf.estimator.ModeKeys.PREDICT, 4))
    with open(args.results, "w") as out:
        json.dump({
            "metrics": {key: float(value) for key, value in metrics.items()},
            "predictions": [{key: np.asarray(value).tolist() for key, value in prediction.items()}
                            for prediction in predictions],
            "served": served(os.path.join(args.model_dir, "export", "exporter")),
        }, out, default=lambda value: value.decode())


if __name__ == "__main__":
    main()
