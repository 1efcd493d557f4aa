"""A TF 1.x model_fn in a common shape (feature columns through input_layer, batch normalization with its
UPDATE_OPS, a staircase decay, Momentum) evaluated with metrics that are not one number: precision at two
thresholds (an array), beside auc and mean_per_class_accuracy, for tests/test_array_metrics.py. Run as TensorFlow
1.x ran it (tests/legacy/run_as_tf1.py). Trains to --max_steps, evaluates (Estimator writes the metrics to
model_dir/eval), predicts; --results gets the metrics and the first probabilities.
"""

import argparse
import json

import numpy as np
import tensorflow as tf


def model_fn(features, labels, mode, params):
    columns = [tf.feature_column.numeric_column("x", shape=[6]),
               tf.feature_column.indicator_column(
                   tf.feature_column.categorical_column_with_identity("bucket", num_buckets=4))]
    net = tf.feature_column.input_layer(features, columns)
    training = mode == tf.estimator.ModeKeys.TRAIN
    for i, units in enumerate(params["hidden"]):
        net = tf.layers.dense(net, units, use_bias=False, name=f"dense_{i}")
        net = tf.layers.batch_normalization(net, training=training, name=f"bn_{i}")
        net = tf.nn.relu(net)
    logits = tf.squeeze(tf.layers.dense(net, 1, name="logits"), axis=1)
    probabilities = tf.sigmoid(logits)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"probabilities": probabilities})
    loss = tf.losses.sigmoid_cross_entropy(labels, logits)
    tf.summary.scalar("mean_probability", tf.reduce_mean(probabilities))
    if mode == tf.estimator.ModeKeys.EVAL:
        metrics = {
            "auc": tf.metrics.auc(labels, probabilities),
            "precision_at": tf.metrics.precision_at_thresholds(labels, probabilities, [0.3, 0.5]),
            "mean_per_class": tf.metrics.mean_per_class_accuracy(labels, tf.cast(probabilities > 0.5, tf.int64), 2),
        }
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)
    step = tf.train.get_global_step()
    lr = tf.train.exponential_decay(0.1, step, 5, 0.7, staircase=True)
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train_op = tf.train.MomentumOptimizer(lr, 0.9).minimize(loss, global_step=step)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def input_fn(repeat=True):
    rng = np.random.RandomState(1)
    x = rng.normal(size=(64, 6)).astype(np.float32)
    bucket = (np.arange(64) % 4).astype(np.int64)
    y = ((x[:, 0] + 0.5 * bucket) > 0.7).astype(np.float32)
    ds = tf.data.Dataset.from_tensor_slices(({"x": x, "bucket": bucket}, y))
    return (ds.repeat() if repeat else ds).batch(16)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=12)
    parser.add_argument("--results", required=True)
    args = parser.parse_args()
    est = tf.estimator.Estimator(model_fn, model_dir=args.model_dir, params={"hidden": [8, 4]},
                                 config=tf.estimator.RunConfig(save_checkpoints_steps=6))
    est.train(input_fn, max_steps=args.max_steps)
    metrics = est.evaluate(lambda: input_fn(False))
    probs = [float(p["probabilities"]) for p in est.predict(lambda: input_fn(False))][:10]
    with open(args.results, "w") as out:
        json.dump({"metrics": {k: np.asarray(v).tolist() for k, v in metrics.items()}, "probs": probs}, out)


if __name__ == "__main__":
    main()
