"""An Estimator program that handles a NaN loss: its first training meets a NaN input value at step 6,
catches Estimator's `tf.estimator.NanLossDuringTrainingError`, drops the bad rows and trains again in a new
model_dir, for tests/test_nan_loss.py. Prints what it caught and the step each model_dir ended at.
"""

import argparse
import os

import numpy as np
import tensorflow as tf


def train(model_dir, features, labels):
    columns = [tf.feature_column.numeric_column("x")]
    regressor = tf.estimator.LinearRegressor(
        feature_columns=columns, model_dir=model_dir,
        config=tf.estimator.RunConfig(save_checkpoints_steps=4, keep_checkpoint_max=10))
    input_fn = tf.compat.v1.estimator.inputs.numpy_input_fn(
        x={"x": features}, y=labels, batch_size=8, num_epochs=None, shuffle=False)
    regressor.train(input_fn=input_fn, max_steps=20)
    return regressor


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    args = parser.parse_args()
    features = np.linspace(0.0, 1.0, 64, dtype=np.float32).reshape(64, 1)
    features[44, 0] = np.nan
    labels = (features[:, 0] > 0.5).astype(np.float32)
    try:
        train(os.path.join(args.model_dir, "first"), features, labels)
    except tf.estimator.NanLossDuringTrainingError as error:
        print("caught:", type(error).__name__, error)
        kept = ~np.isnan(features[:, 0])
        regressor = train(os.path.join(args.model_dir, "clean"), features[kept], labels[kept])
        print("clean run ended at step", regressor.get_variable_value("global_step"))


if __name__ == "__main__":
    main()
