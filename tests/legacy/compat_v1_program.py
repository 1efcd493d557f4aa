"""A custom-model_fn Estimator as TensorFlow's migration guide has programs start on TensorFlow 2 (and as
tf_upgrade_v2 leaves them): `import tensorflow.compat.v1 as tf` and `tf.disable_v2_behavior()` first, then 1.x
code, for tests/test_compat_v1_program.py. Its model_fn reads a dimension as TF1 code did
(`x.get_shape()[-1].value`: a `Dimension` once TF2 behaviour is off), and its export describes the raw serving
features with placeholders built in `main`. Fixed batch order, a checkpoint every 10 steps (step 0 included).
With --results, the estimator is evaluated on all of digits and predicts its first 20 examples; with
--export_dir it is exported there.
"""

import argparse
import json

import numpy as np
import tensorflow.compat.v1 as tf
from sklearn.datasets import load_digits

tf.disable_v2_behavior()

BATCH = 32


def input_fn(mode):
    digits = load_digits()
    x, y = (digits.data / 16.0).astype(np.float32), digits.target.astype(np.int32)
    dataset = tf.data.Dataset.from_tensor_slices(({"pixels": x}, y))
    if mode == tf.estimator.ModeKeys.TRAIN:
        dataset = dataset.repeat()
    return dataset.batch(BATCH)


def predict_input_fn():
    digits = load_digits()
    return tf.data.Dataset.from_tensor_slices({"pixels": (digits.data[:20] / 16.0).astype(np.float32)}).batch(8)


def model_fn(features, labels, mode, params):
    pixels = features["pixels"]
    width = pixels.get_shape()[-1].value
    with tf.variable_scope("hidden"):
        w = tf.get_variable("w", [width, params["units"]], initializer=tf.glorot_uniform_initializer(seed=1))
        net = tf.nn.relu(tf.matmul(pixels, w))
    logits = tf.layers.dense(net, 10, name="logits", kernel_initializer=tf.glorot_uniform_initializer(seed=2))
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"classes": tf.argmax(logits, 1), "logits": logits})
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    if mode == tf.estimator.ModeKeys.EVAL:
        accuracy = tf.metrics.accuracy(labels, tf.argmax(logits, 1))
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"accuracy": accuracy})
    optimizer = tf.train.AdamOptimizer(params["learning_rate"])
    train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=20)
    parser.add_argument("--results")
    parser.add_argument("--export_dir")
    args = parser.parse_args()
    config = tf.estimator.RunConfig(model_dir=args.model_dir, save_checkpoints_steps=10)
    estimator = tf.estimator.Estimator(model_fn=model_fn, config=config, params={"units": 32, "learning_rate": 0.01})
    estimator.train(lambda: input_fn(tf.estimator.ModeKeys.TRAIN), max_steps=args.max_steps)
    if args.results:
        metrics = estimator.evaluate(lambda: input_fn(tf.estimator.ModeKeys.EVAL))
        predictions = list(estimator.predict(predict_input_fn))
        with open(args.results, "w") as out:
            json.dump({"metrics": {k: float(v) for k, v in metrics.items()},
                       "classes": [int(p["classes"]) for p in predictions],
                       "logits": [p["logits"].tolist() for p in predictions]}, out)
    if args.export_dir:
        feature_spec = {"pixels": tf.placeholder(dtype=tf.float32, shape=[None, 64], name="pixels")}
        serving_input_receiver_fn = tf.estimator.export.build_raw_serving_input_receiver_fn(feature_spec)
        estimator.export_saved_model(args.export_dir, serving_input_receiver_fn)


if __name__ == "__main__":
    main()
