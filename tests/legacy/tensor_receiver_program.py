"""An image classifier whose model_fn reads its features as one tensor, exported with a
`TensorServingInputReceiver` (clients feed the images themselves, named `input`), for
tests/test_tensor_serving_receiver.py. TensorFlow 1.x code, run by the legacy reference as 1.x ran it
(tests/legacy/run_as_tf1.py). Trains to --max_steps, then exports under <model_dir>/export.
"""

import argparse
import json

import numpy as np
import tensorflow as tf


def model_fn(features, labels, mode):
    images = tf.reshape(features, [-1, 4, 4, 1])
    net = tf.layers.conv2d(images, 3, 2, activation=tf.nn.relu, name="conv")
    logits = tf.layers.dense(tf.layers.flatten(net), 3, name="logits")
    predictions = {"classes": tf.argmax(logits, 1), "probabilities": tf.nn.softmax(logits)}
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=predictions, export_outputs={
            "serving_default": tf.estimator.export.PredictOutput(predictions)})
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def input_fn():
    images = np.linspace(0, 1, 12 * 16, dtype=np.float32).reshape(12, 16)
    return tf.data.Dataset.from_tensor_slices((images, np.arange(12) % 3)).repeat().batch(4)


def serving_input_receiver_fn():
    images = tf.placeholder(dtype=tf.float32, shape=[None, 16], name="images")
    return tf.estimator.export.TensorServingInputReceiver(features=images, receiver_tensors=images)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=10)
    parser.add_argument("--results", required=True)
    args = parser.parse_args()
    config = tf.estimator.RunConfig(save_checkpoints_steps=5, tf_random_seed=1)
    classifier = tf.estimator.Estimator(model_fn, model_dir=args.model_dir, config=config)
    classifier.train(input_fn, max_steps=args.max_steps)
    export_dir = classifier.export_savedmodel(args.model_dir + "/export", serving_input_receiver_fn)
    with open(args.results, "w") as out:
        json.dump({"export_dir": export_dir.decode()}, out)


if __name__ == "__main__":
    main()
