"""A custom model_fn trained with checkpointing switched off (`RunConfig(save_checkpoints_steps=0,
save_summary_steps=0)`: Estimator then made no CheckpointSaverHook and wrote no summaries) and its loss logged
every step by a LoggingTensorHook, for tests/test_checkpoints_off.py. TensorFlow 1.x code, run by the legacy
reference as 1.x ran it (tests/legacy/run_as_tf1.py). Trains to --max_steps, evaluates (the latest checkpoint in
model_dir, none of this training's), and writes the evaluation to --results as JSON.
"""

import argparse
import json

import numpy as np
import tensorflow as tf


def model_fn(features, labels, mode):
    hidden = tf.layers.dense(features, 8, activation=tf.nn.relu, name="hidden")
    logits = tf.layers.dense(hidden, 2, name="logits")
    loss = tf.losses.softmax_cross_entropy(onehot_labels=labels, logits=logits)
    if mode == tf.estimator.ModeKeys.TRAIN:
        logging_hook = tf.train.LoggingTensorHook({"loss": loss}, every_n_iter=1)
        train_op = tf.train.AdamOptimizer(learning_rate=0.01).minimize(loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, training_hooks=[logging_hook])
    accuracy = tf.metrics.accuracy(tf.argmax(labels, 1), tf.argmax(logits, 1))
    return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"accuracy": accuracy})


def input_fn():
    x = np.linspace(-1, 1, 48, dtype=np.float32).reshape(12, 4)
    labels = tf.one_hot((x.sum(1) > 0).astype(np.int64), depth=2)
    dataset = tf.data.Dataset.from_tensor_slices((x, labels)).repeat().batch(4)
    return dataset.make_one_shot_iterator().get_next()


def main():
    tf.logging.set_verbosity(tf.logging.INFO)
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=10)
    parser.add_argument("--results", required=True)
    args = parser.parse_args()
    config = tf.estimator.RunConfig(save_checkpoints_steps=0, save_summary_steps=0, tf_random_seed=1)
    classifier = tf.estimator.Estimator(model_fn, model_dir=args.model_dir, config=config)
    classifier.train(input_fn, max_steps=args.max_steps)
    metrics = classifier.evaluate(input_fn, steps=3)
    with open(args.results, "w") as out:
        json.dump({"metrics": {key: float(value) for key, value in metrics.items()}}, out)


if __name__ == "__main__":
    main()
