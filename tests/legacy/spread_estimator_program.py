"""An Estimator built from dicts of settings, as option-driven trainers built one (`tf.estimator.Estimator(
**estimator_keys)` with `config=tf.estimator.RunConfig(**config_keys)`), its serving receiver made by a factory of
the program's (`build_serving_input_fn(opts)`), for tests/test_spread_estimator.py. TensorFlow 1.x names
throughout (run under TF 2.15 by tests/legacy/run_as_tf1.py; migrated by `migrate rewrite`).

A custom model_fn (a dense layer, Adam) on digits in a fixed order; a checkpoint every 10 steps (step 0 included);
--max_steps steps; then an evaluation and predictions of the first 20 examples to --results, and an export of the
raw `pixels` to --export_dir.
"""

import argparse
import json

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits


def input_fn(mode):
    digits = load_digits()
    x, y = (digits.data / 16.0).astype(np.float32), digits.target.astype(np.int32)
    dataset = tf.data.Dataset.from_tensor_slices(({"pixels": x}, y))
    if mode == tf.estimator.ModeKeys.TRAIN:
        dataset = dataset.repeat()
    return dataset.batch(32)


def predict_input_fn():
    digits = load_digits()
    return tf.data.Dataset.from_tensor_slices({"pixels": (digits.data[:20] / 16.0).astype(np.float32)}).batch(8)


def model_fn(features, labels, mode, params):
    logits = tf.layers.dense(features["pixels"], 10, name="logits",
                             kernel_initializer=tf.glorot_uniform_initializer(seed=2))
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"classes": tf.argmax(logits, 1), "logits": logits})
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(
            mode, loss=loss, eval_metric_ops={"accuracy": tf.metrics.accuracy(labels, tf.argmax(logits, 1))})
    train_op = tf.train.AdamOptimizer(params["learning_rate"]).minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def build_estimator(opts):
    config_keys = {}
    config_keys["model_dir"] = opts.model_dir
    config_keys["tf_random_seed"] = None
    config_keys["save_checkpoints_steps"] = 10
    config_keys["keep_checkpoint_max"] = 5
    estimator_keys = {}
    estimator_keys["model_fn"] = model_fn
    estimator_keys["params"] = {"learning_rate": opts.learning_rate}
    estimator_keys["config"] = tf.estimator.RunConfig(**config_keys)
    return tf.estimator.Estimator(**estimator_keys)


def build_serving_input_fn(opts):
    features = {"pixels": tf.placeholder(dtype=tf.float32, shape=[None, opts.pixels], name="pixels")}
    return tf.estimator.export.build_raw_serving_input_receiver_fn(features)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=20)
    parser.add_argument("--results", required=True)
    parser.add_argument("--export_dir", required=True)
    parser.add_argument("--learning_rate", type=float, default=0.01)
    parser.add_argument("--pixels", type=int, default=64)
    opts = parser.parse_args()
    estimator = build_estimator(opts)
    estimator.train(lambda: input_fn(tf.estimator.ModeKeys.TRAIN), max_steps=opts.max_steps)
    metrics = estimator.evaluate(lambda: input_fn(tf.estimator.ModeKeys.EVAL))
    predictions = list(estimator.predict(predict_input_fn))
    with open(opts.results, "w") as out:
        json.dump({"metrics": {k: float(v) for k, v in metrics.items()},
                   "classes": [int(p["classes"]) for p in predictions],
                   "logits": [p["logits"].tolist() for p in predictions]}, out)
    estimator.export_savedmodel(opts.export_dir, serving_input_receiver_fn=build_serving_input_fn(opts))


if __name__ == "__main__":
    main()
