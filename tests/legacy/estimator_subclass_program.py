"""A project's own estimator class, `class DigitsClassifier(tf.estimator.Estimator)`, as projects wrapped their
model_fn (hyperparameters in, Estimator's constructor called with the model_fn, model_dir, config and params),
for tests/test_estimator_subclass.py: both the input of `migrate rewrite` (the class then derives from
compat.wrapped_model_fns.Estimator, its model_fn kept as written) and, unchanged, the legacy reference run.
Fixed batch order, a checkpoint every 10 steps (step 0 included). With --results, the estimator is evaluated
on all of digits and predicts its first 20 examples (written as JSON, with the params it reports).
"""

import argparse
import json

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits


class DigitsClassifier(tf.estimator.Estimator):
    """A TF1 graph network over the 64 pixels of a digit, trained with Adagrad."""

    def __init__(self, hidden_units, model_dir=None, config=None, learning_rate=0.1):
        def _model_fn(features, labels, mode, params):
            net = features["pixels"]
            for index, units in enumerate(params["hidden_units"]):
                with tf.compat.v1.variable_scope(f"hidden{index}"):
                    w = tf.compat.v1.get_variable(
                        "w", [net.shape[-1], units], initializer=tf.compat.v1.glorot_uniform_initializer(seed=index))
                    b = tf.compat.v1.get_variable("b", [units], initializer=tf.compat.v1.zeros_initializer())
                    net = tf.nn.relu(tf.matmul(net, w) + b)
            logits = tf.compat.v1.layers.dense(
                net, 10, name="logits", kernel_initializer=tf.compat.v1.glorot_uniform_initializer(seed=9))
            if mode == tf.estimator.ModeKeys.PREDICT:
                return tf.estimator.EstimatorSpec(mode, predictions={"classes": tf.argmax(logits, 1),
                                                                     "logits": logits})
            loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
            if mode == tf.estimator.ModeKeys.EVAL:
                accuracy = tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))
                return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"accuracy": accuracy})
            optimizer = tf.compat.v1.train.AdagradOptimizer(params["learning_rate"])
            train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

        super().__init__(
            model_fn=_model_fn, model_dir=model_dir, config=config,
            params={"hidden_units": hidden_units, "learning_rate": learning_rate})


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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=20)
    parser.add_argument("--results")
    args = parser.parse_args()

    config = tf.estimator.RunConfig(save_checkpoints_steps=10)
    classifier = DigitsClassifier([32, 16], model_dir=args.model_dir, config=config)
    classifier.train(input_fn=lambda: input_fn(tf.estimator.ModeKeys.TRAIN), max_steps=args.max_steps)
    if args.results:
        metrics = classifier.evaluate(input_fn=lambda: input_fn(tf.estimator.ModeKeys.EVAL))
        predictions = list(classifier.predict(input_fn=predict_input_fn))
        with open(args.results, "w") as out:
            json.dump({"metrics": {k: float(v) for k, v in metrics.items()},
                       "classes": [int(p["classes"]) for p in predictions],
                       "logits": [p["logits"].tolist() for p in predictions],
                       "params": classifier.params, "model_dir": classifier.model_dir}, out)


if __name__ == "__main__":
    main()
