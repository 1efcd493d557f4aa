"""An early-stopping hook built by a helper given the estimator, as projects factored it (`build_stop_hook(
estimator, ...)` returning `tf.contrib.estimator.stop_if_*_hook(estimator=estimator, ...)`), then given to a
TrainSpec; for tests/test_train_and_evaluate.py. Otherwise train_and_evaluate_program.py's training: a
DNNClassifier on digits (fixed batch order, a checkpoint and an evaluation every 5 steps) to --max_steps, ended
once an evaluation's accuracy is above --stop_above_accuracy; its returned metrics to --metrics_out.
"""

import argparse
import json

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

tf1 = tf.compat.v1


def build_stop_hook(estimator, threshold):
    return tf1.estimator.experimental.stop_if_higher_hook(
        estimator=estimator, metric_name="accuracy", threshold=threshold, run_every_secs=None, run_every_steps=1
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=40)
    parser.add_argument("--metrics_out", required=True)
    parser.add_argument("--stop_above_accuracy", type=float, default=0.65)
    args = parser.parse_args()

    digits = load_digits()
    images = (digits.images / 16.0 + 0.05).astype(np.float32)
    labels = (digits.target >= 5).astype(np.int32)
    columns = [tf1.feature_column.numeric_column("x", shape=[8, 8])]
    config = tf1.estimator.RunConfig(save_checkpoints_steps=5, keep_checkpoint_max=10, tf_random_seed=7)
    classifier = tf1.estimator.DNNClassifier(
        feature_columns=columns,
        hidden_units=[32, 16],
        optimizer=tf1.train.GradientDescentOptimizer(0.01),
        model_dir=args.model_dir,
        config=config,
    )
    train_input_fn = tf1.estimator.inputs.numpy_input_fn(
        x={"x": images}, y=labels, batch_size=32, num_epochs=None, shuffle=False
    )
    eval_input_fn = tf1.estimator.inputs.numpy_input_fn(
        x={"x": images}, y=labels, batch_size=100, num_epochs=1, shuffle=False
    )
    train_spec = tf1.estimator.TrainSpec(train_input_fn, max_steps=args.max_steps,
                                         hooks=[build_stop_hook(classifier, args.stop_above_accuracy)])
    eval_spec = tf1.estimator.EvalSpec(eval_input_fn, steps=None, throttle_secs=0)
    metrics, _ = tf1.estimator.train_and_evaluate(classifier, train_spec, eval_spec)
    with open(args.metrics_out, "w") as out:
        json.dump({key: float(value) for key, value in metrics.items()}, out)


if __name__ == "__main__":
    main()
