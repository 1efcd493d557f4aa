"""A model_fn calling a `tf.keras.Sequential` model, as TensorFlow's official MNIST (official/r1/mnist/mnist.py,
TensorFlow 1.x) wrote it: `create_model` builds the Sequential with `input_shape` on its first layer; the model_fn
calls it per mode, trains with TF1 Adam, names tensors for a LoggingTensorHook, writes a summary; the estimator is
exported with a raw receiver over a placeholder made in the program's own function. Digits (8x8) for MNIST,
batches in a fixed order, a checkpoint every 10 steps. With --results, it is evaluated on all of digits and
predicts the first 20 (JSON); with --export_dir, exported there.

Runs as TensorFlow 1.x ran it (tests/legacy/run_as_tf1.py: the reference) and, migrated, under TensorFlow 2.21
(tests/test_keras_model_fn.py).
"""
import argparse
import json

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

LEARNING_RATE = 1e-3


def create_model(data_format):
    """The model: a small convolutional network (MNIST's, smaller), as a tf.keras Sequential."""
    input_shape = [8, 8, 1]
    l = tf.keras.layers  # noqa: E741  (the official code's name)
    max_pool = l.MaxPooling2D((2, 2), (2, 2), padding="same", data_format=data_format)
    return tf.keras.Sequential([
        l.Reshape(target_shape=input_shape, input_shape=(8 * 8,)),
        l.Conv2D(8, 3, padding="same", data_format=data_format, activation=tf.nn.relu),
        max_pool,
        l.Flatten(),
        l.Dense(32, activation=tf.nn.relu),
        l.Dense(10),
    ])


def model_fn(features, labels, mode, params):
    model = create_model(params["data_format"])
    image = features
    if isinstance(image, dict):
        image = features["image"]

    if mode == tf.estimator.ModeKeys.PREDICT:
        logits = model(image, training=False)
        predictions = {"classes": tf.argmax(logits, axis=1), "logits": logits}
        return tf.estimator.EstimatorSpec(
            mode=tf.estimator.ModeKeys.PREDICT,
            predictions=predictions,
            export_outputs={"classify": tf.estimator.export.PredictOutput(predictions)})
    if mode == tf.estimator.ModeKeys.TRAIN:
        optimizer = tf.train.AdamOptimizer(learning_rate=LEARNING_RATE)
        logits = model(image, training=True)
        loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
        accuracy = tf.metrics.accuracy(labels=labels, predictions=tf.argmax(logits, axis=1))
        # Name tensors to be logged with LoggingTensorHook.
        tf.identity(LEARNING_RATE, "learning_rate")
        tf.identity(loss, "cross_entropy")
        tf.identity(accuracy[1], name="train_accuracy")
        tf.summary.scalar("train_accuracy", accuracy[1])
        return tf.estimator.EstimatorSpec(
            mode=tf.estimator.ModeKeys.TRAIN,
            loss=loss,
            train_op=optimizer.minimize(loss, tf.train.get_or_create_global_step()))
    logits = model(image, training=False)
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    return tf.estimator.EstimatorSpec(
        mode=tf.estimator.ModeKeys.EVAL,
        loss=loss,
        eval_metric_ops={"accuracy": tf.metrics.accuracy(labels=labels, predictions=tf.argmax(logits, axis=1))})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=20)
    parser.add_argument("--results")
    parser.add_argument("--export_dir")
    args = parser.parse_args()

    digits = load_digits()
    images = (digits.data / 16.0).astype(np.float32)
    labels = digits.target.astype(np.int32)
    run_config = tf.estimator.RunConfig(save_checkpoints_steps=10)
    classifier = tf.estimator.Estimator(
        model_fn=model_fn, model_dir=args.model_dir, config=run_config, params={"data_format": "channels_last"})

    def train_input_fn():
        return tf.data.Dataset.from_tensor_slices((images, labels)).repeat().batch(32)

    def eval_input_fn():
        return tf.data.Dataset.from_tensor_slices((images, labels)).batch(100)

    tensors_to_log = {"learning_rate": "learning_rate", "cross_entropy": "cross_entropy",
                      "train_accuracy": "train_accuracy"}
    train_hooks = [tf.train.LoggingTensorHook(tensors=tensors_to_log, every_n_iter=10)]
    classifier.train(input_fn=train_input_fn, hooks=train_hooks, max_steps=args.max_steps)

    if args.export_dir is not None:
        image = tf.placeholder(tf.float32, [None, 64])
        input_fn = tf.estimator.export.build_raw_serving_input_receiver_fn({"image": image})
        classifier.export_saved_model(args.export_dir, input_fn)
    if args.results:
        metrics = classifier.evaluate(input_fn=eval_input_fn)
        predictions = list(classifier.predict(lambda: tf.data.Dataset.from_tensor_slices(images[:20]).batch(8)))
        with open(args.results, "w") as out:
            json.dump({"metrics": {k: float(v) for k, v in metrics.items()},
                       "classes": [int(p["classes"]) for p in predictions],
                       "logits": [p["logits"].tolist() for p in predictions]}, out)


if __name__ == "__main__":
    main()
