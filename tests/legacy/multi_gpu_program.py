"""The shape of TensorFlow's official models 1.x (mnist.py, resnet): --multi_gpu replicates the model_fn over the
GPUs (`tf.contrib.estimator.replicate_model_fn`) and the model_fn wraps its optimizer in a `TowerOptimizer`. Over
one device, as here (no GPU), TF 1.x's replicate_model_fn called the model_fn as it was and the TowerOptimizer
was its optimizer; tests/test_replicate_model_fn.py runs the migrated program with --multi_gpu against the real
Estimator's run without it (TensorFlow 2.15 has no tf.contrib). --results: the evaluation and the first 20
predictions (classes, logits), as JSON.
"""

import argparse
import json

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits


def model_fn(features, labels, mode, params):
    hidden = tf.layers.dense(features["x"], 32, activation=tf.nn.relu, name="hidden")
    logits = tf.layers.dense(hidden, 10, name="logits")
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"classes": tf.argmax(logits, 1), "logits": logits})
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    if mode == tf.estimator.ModeKeys.TRAIN:
        optimizer = tf.train.AdamOptimizer(learning_rate=1e-2)
        if params.get("multi_gpu"):
            optimizer = tf.contrib.estimator.TowerOptimizer(optimizer)
        train_op = optimizer.minimize(loss, tf.train.get_or_create_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
    accuracy = tf.metrics.accuracy(labels, tf.argmax(logits, 1))
    return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"accuracy": accuracy})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=20)
    parser.add_argument("--results", required=True)
    parser.add_argument("--multi_gpu", action="store_true")
    args = parser.parse_args()
    model_function = model_fn
    if args.multi_gpu:
        model_function = tf.contrib.estimator.replicate_model_fn(model_fn, loss_reduction=tf.losses.Reduction.MEAN)
    config = tf.estimator.RunConfig(save_checkpoints_steps=10, tf_random_seed=5)
    classifier = tf.estimator.Estimator(model_fn=model_function, model_dir=args.model_dir,
                                        params={"multi_gpu": args.multi_gpu}, config=config)
    digits = load_digits()
    x, y = (digits.data / 16.0).astype(np.float32), digits.target.astype(np.int32)
    classifier.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(40),
                     max_steps=args.max_steps)
    metrics = classifier.evaluate(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(400))
    predictions = list(classifier.predict(lambda: tf.data.Dataset.from_tensor_slices({"x": x[:20]}).batch(20)))
    with open(args.results, "w") as out:
        json.dump({"metrics": {key: float(value) for key, value in metrics.items()},
                   "classes": [int(p["classes"]) for p in predictions],
                   "logits": [p["logits"].tolist() for p in predictions]}, out)


if __name__ == "__main__":
    main()
