"""A custom model_fn Estimator that tier 1 cannot turn into a Keras class, for tests/test_wrapped_model_fn.py:
both the input of `migrate rewrite` (which wraps the model_fn as written: compat/wrapped_model_fns.py) and,
unchanged, the legacy reference run. Fixed batch order, a checkpoint every 10 steps (step 0 included).

The model_fn is TF1 graph code as research projects wrote it: a variable scope with `get_variable` (one
initialised from a tensor, `initializer=tf.zeros(...)`), TF1
layers with batch normalization (train_op depending on the UPDATE_OPS), an L2 penalty summed over
`tf.trainable_variables()`, a training summary, TF1 Adam at an exponentially decaying rate, gradients
clipped by global norm between `compute_gradients` and `apply_gradients`. The input_fns return a one-shot
iterator's `get_next()`, as TensorFlow 1.4-1.12 code did (the rewrite returns the dataset). With --results, the estimator
is evaluated on all of digits and predicts its first 20 examples (written as JSON); with --warm_start_from, its
trainable variables start from that checkpoint (Estimator's warm_start_from). With --train_and_evaluate it trains
with train_and_evaluate instead: an EvalSpec named "holdout" (metrics in model_dir/eval_holdout) evaluating 5
batches after every checkpoint, its hook counting the evaluations and batches it saw (in the results). With
--export_dir, the trained estimator is exported there, fed serialized tf.Examples (a parsing receiver): the PREDICT
spec's export outputs are a `predict` signature (classes, logits) and a classification one, the default.
"""

import argparse
import json

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

BATCH = 32


def input_fn(mode, params):
    digits = load_digits()
    x, y = (digits.data / 16.0).astype(np.float32), digits.target.astype(np.int32)
    dataset = tf.data.Dataset.from_tensor_slices(({"pixels": x}, y))
    if mode == tf.estimator.ModeKeys.TRAIN:
        dataset = dataset.repeat()
    iterator = tf.compat.v1.data.make_one_shot_iterator(dataset.batch(params["batch_size"]))
    features, labels = iterator.get_next()
    return features, labels


def predict_input_fn():
    digits = load_digits()
    dataset = tf.data.Dataset.from_tensor_slices({"pixels": (digits.data[:20] / 16.0).astype(np.float32)})
    return tf.compat.v1.data.make_one_shot_iterator(dataset.batch(8)).get_next()


class EvaluationCounter(tf.estimator.SessionRunHook):
    """Counts the evaluations it is run in and their batches."""

    def __init__(self):
        self.evaluations = 0
        self.batches = 0

    def begin(self):
        self.evaluations += 1

    def after_run(self, run_context, run_values):
        self.batches += 1


def model_fn(features, labels, mode, params):
    training = mode == tf.estimator.ModeKeys.TRAIN
    with tf.compat.v1.variable_scope("encoder"):
        w = tf.compat.v1.get_variable("w", [64, params["units"]],
                                      initializer=tf.compat.v1.glorot_uniform_initializer(seed=1))
        b = tf.compat.v1.get_variable("b", initializer=tf.zeros([params["units"]]))  # a tensor initial value
        net = tf.matmul(features["pixels"], w) + b
    net = tf.compat.v1.layers.batch_normalization(net, training=training)
    net = tf.nn.relu(net)
    logits = tf.compat.v1.layers.dense(net, 10, name="logits",
                                       kernel_initializer=tf.compat.v1.glorot_uniform_initializer(seed=2))
    if mode == tf.estimator.ModeKeys.PREDICT:
        predictions = {"classes": tf.argmax(logits, 1), "logits": logits}
        export_outputs = {"predict": tf.estimator.export.PredictOutput(predictions),
                          "serving_default": tf.estimator.export.ClassificationOutput(scores=tf.nn.softmax(logits))}
        return tf.estimator.EstimatorSpec(mode, predictions=predictions, export_outputs=export_outputs)

    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    loss += params["l2"] * tf.add_n([tf.nn.l2_loss(v) for v in tf.compat.v1.trainable_variables()])
    tf.compat.v1.summary.scalar("cross_entropy", loss)
    if mode == tf.estimator.ModeKeys.EVAL:
        accuracy = tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"accuracy": accuracy})

    global_step = tf.compat.v1.train.get_global_step()
    learning_rate = tf.compat.v1.train.exponential_decay(params["learning_rate"], global_step, 10, 0.7)
    optimizer = tf.compat.v1.train.AdamOptimizer(learning_rate)
    gradients, variables = zip(*optimizer.compute_gradients(loss))
    gradients, _ = tf.clip_by_global_norm(gradients, 1.0)
    with tf.control_dependencies(tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)):
        train_op = optimizer.apply_gradients(zip(gradients, variables), global_step=global_step)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=20)
    parser.add_argument("--results")
    parser.add_argument("--warm_start_from")
    parser.add_argument("--train_and_evaluate", action="store_true")
    parser.add_argument("--export_dir")
    args = parser.parse_args()

    config = tf.estimator.RunConfig(model_dir=args.model_dir, save_checkpoints_steps=10)
    params = {"units": 24, "l2": 1e-4, "learning_rate": 0.01, "batch_size": BATCH}
    estimator = tf.estimator.Estimator(model_fn=model_fn, config=config, params=params,
                                       warm_start_from=args.warm_start_from)
    counter = EvaluationCounter()
    if args.train_and_evaluate:
        train_spec = tf.estimator.TrainSpec(input_fn, max_steps=args.max_steps)
        eval_spec = tf.estimator.EvalSpec(input_fn, steps=5, name="holdout", hooks=[counter], throttle_secs=0)
        metrics, _ = tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)
    else:
        estimator.train(input_fn, max_steps=args.max_steps)
        metrics = estimator.evaluate(input_fn) if args.results else None
    if args.export_dir:
        feature_spec = {"pixels": tf.io.FixedLenFeature([64], tf.float32)}
        estimator.export_saved_model(
            args.export_dir, tf.estimator.export.build_parsing_serving_input_receiver_fn(feature_spec))
    if args.results:
        predictions = list(estimator.predict(predict_input_fn))
        with open(args.results, "w") as out:
            json.dump({"metrics": {k: float(v) for k, v in metrics.items()},
                       "classes": [int(p["classes"]) for p in predictions],
                       "logits": [p["logits"].tolist() for p in predictions],
                       "evaluations": counter.evaluations, "batches": counter.batches}, out)


if __name__ == "__main__":
    main()
