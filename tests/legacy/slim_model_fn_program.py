"""A custom model_fn written with tf_slim, as TF 1.x research code was (TF-Slim's model zoo style), for
tests/test_slim_model_fn.py: both the input of `migrate rewrite` (which wraps the model_fn as written: tier 2,
compat/wrapped_model_fns.py) and, unchanged, the legacy reference run. Fixed batch order, a checkpoint every
10 steps (step 0 included).

`slim.arg_scope` over conv2d / fully_connected with an L2 weights regularizer, batch norm as conv2d's
normalizer (`tf.compat.v1.layers.batch_normalization`, its moving statistics updated through UPDATE_OPS;
tf_slim's own batch_norm: tests/legacy/slim_layers_program.py), the loss from `tf.compat.v1.losses` plus the
regularization losses (`get_total_loss`), TF1 Momentum through `slim.learning.create_train_op` (which adds the
UPDATE_OPS dependency and the global step itself). With --results, the estimator is evaluated on all of digits
and predicts its first 20 examples (written as JSON).
"""

import argparse
import json

import numpy as np
import tensorflow as tf
import tf_slim as slim
from sklearn.datasets import load_digits


def _images():
    digits = load_digits()
    return (digits.images[..., None] / 16.0).astype(np.float32), digits.target.astype(np.int32)


def input_fn(mode, params):
    images, labels = _images()
    dataset = tf.data.Dataset.from_tensor_slices(({"image": images}, labels))
    if mode == tf.estimator.ModeKeys.TRAIN:
        dataset = dataset.repeat()
    return dataset.batch(params["batch_size"])


def predict_input_fn():
    images, _ = _images()
    return tf.data.Dataset.from_tensor_slices({"image": images[:20]}).batch(8)


def model_fn(features, labels, mode, params):
    training = mode == tf.estimator.ModeKeys.TRAIN
    with slim.arg_scope([slim.conv2d, slim.fully_connected],
                        weights_regularizer=slim.l2_regularizer(params["l2"]),
                        weights_initializer=tf.compat.v1.glorot_uniform_initializer(seed=3)):
        net = slim.conv2d(features["image"], 8, [3, 3], scope="conv1",
                          normalizer_fn=tf.compat.v1.layers.batch_normalization,
                          normalizer_params={"training": training, "momentum": 0.9})
        net = slim.max_pool2d(net, [2, 2], scope="pool1")
        net = slim.flatten(net)
        net = slim.fully_connected(net, 32, scope="fc1")
        logits = slim.fully_connected(net, 10, activation_fn=None, scope="logits")
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"classes": tf.argmax(logits, 1), "logits": logits})

    tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    loss = tf.compat.v1.losses.get_total_loss()
    if mode == tf.estimator.ModeKeys.EVAL:
        accuracy = tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"accuracy": accuracy})

    optimizer = tf.compat.v1.train.MomentumOptimizer(params["learning_rate"], momentum=0.9)
    train_op = slim.learning.create_train_op(loss, optimizer, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=20)
    parser.add_argument("--results")
    args = parser.parse_args()

    config = tf.estimator.RunConfig(model_dir=args.model_dir, save_checkpoints_steps=10)
    params = {"l2": 1e-4, "learning_rate": 0.05, "batch_size": 32}
    estimator = tf.estimator.Estimator(model_fn=model_fn, config=config, params=params)
    estimator.train(input_fn, max_steps=args.max_steps)
    if args.results:
        metrics = estimator.evaluate(input_fn)
        predictions = list(estimator.predict(predict_input_fn))
        with open(args.results, "w") as out:
            json.dump({"metrics": {k: float(v) for k, v in metrics.items()},
                       "classes": [int(p["classes"]) for p in predictions],
                       "logits": [p["logits"].tolist() for p in predictions]}, out)


if __name__ == "__main__":
    main()
