"""Three experiments in one script: the canned linear baseline, a linear model of our own and the team's
pinned-checkpoint estimator."""
import sys

import tensorflow as tf

from data import eval_input_fn, result_line, train_input_fn


def model_fn(features, labels, mode, params):
    hidden = tf.compat.v1.layers.dense(features["point"], params["width"], activation=tf.nn.tanh)
    logits = tf.compat.v1.layers.dense(hidden, 4)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    predicted = tf.argmax(logits, axis=1)
    step = tf.compat.v1.train.get_global_step()
    train_op = tf.compat.v1.train.AdamOptimizer(0.01).minimize(loss, global_step=step)
    metrics = {"accuracy": tf.compat.v1.metrics.accuracy(labels=labels, predictions=predicted)}
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics)


def train_linear(model_dir, steps):
    columns = [tf.feature_column.numeric_column("point", shape=[10])]
    config = tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=50)
    estimator = tf.estimator.LinearClassifier(feature_columns=columns, n_classes=4, config=config)
    estimator.train(input_fn=train_input_fn, max_steps=steps)
    return estimator.evaluate(input_fn=eval_input_fn)


def linear_model_fn(features, labels, mode):
    logits = tf.compat.v1.layers.dense(features["point"], 4)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    train_op = tf.compat.v1.train.AdamOptimizer(0.01).minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    predicted = tf.argmax(logits, axis=1)
    metrics = {"accuracy": tf.compat.v1.metrics.accuracy(labels=labels, predictions=predicted)}
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics)


def train_custom(model_dir, steps):
    config = tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=50)
    estimator = tf.estimator.Estimator(linear_model_fn, config=config)
    estimator.train(train_input_fn, max_steps=steps)
    return estimator.evaluate(eval_input_fn)


def train_pinned(model_dir, steps):
    from pinned import PinnedEstimator

    estimator = PinnedEstimator(model_fn, model_dir=model_dir, params={"width": 16})
    estimator.train(train_input_fn, max_steps=steps)
    return estimator.evaluate(eval_input_fn)


if __name__ == "__main__":
    experiment, model_dir, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    experiments = {"linear": train_linear, "custom": train_custom, "pinned": train_pinned}
    metrics = experiments[experiment](model_dir, steps)
    print(result_line(metrics))
