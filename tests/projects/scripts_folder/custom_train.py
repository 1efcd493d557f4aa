"""A small network written as a model_fn, trained and evaluated with train_and_evaluate."""
import sys

import tensorflow as tf

from data import eval_input_fn, result_line, train_input_fn


def model_fn(features, labels, mode, params):
    hidden = tf.compat.v1.layers.dense(features["pixels"], params["hidden"], activation=tf.nn.relu)
    logits = tf.compat.v1.layers.dense(hidden, 10)
    predictions = tf.argmax(logits, axis=1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"classes": predictions})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    if mode == tf.estimator.ModeKeys.EVAL:
        accuracy = tf.compat.v1.metrics.accuracy(labels=labels, predictions=predictions)
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"accuracy": accuracy})
    optimizer = tf.compat.v1.train.AdamOptimizer(0.01)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    logging_hook = tf.estimator.LoggingTensorHook({"loss": loss}, every_n_iter=50)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, training_hooks=[logging_hook])


def main():
    model_dir, steps = sys.argv[1], int(sys.argv[2])
    config = tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=50)
    estimator = tf.estimator.Estimator(model_fn=model_fn, params={"hidden": 32}, config=config)
    train_spec = tf.estimator.TrainSpec(input_fn=train_input_fn, max_steps=steps)
    eval_spec = tf.estimator.EvalSpec(input_fn=eval_input_fn, steps=None, throttle_secs=0)
    tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)
    print(result_line(estimator.evaluate(input_fn=eval_input_fn)))


if __name__ == "__main__":
    main()
