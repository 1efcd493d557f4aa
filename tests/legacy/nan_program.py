"""An Estimator program whose loss turns NaN at step 6 (one input value is NaN), for tests/test_nan_loss.py.

Both the input of `migrate rewrite` and, unchanged, the legacy reference run: Estimator's NanTensorHook
ends training with NanLossDuringTrainingError at step 6; the checkpoint of step 4 is the latest.
"""

import argparse

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    args = parser.parse_args()

    features = np.linspace(0.0, 1.0, 64, dtype=np.float32).reshape(64, 1)
    features[44, 0] = np.nan  # batch 5 of 8 examples: step 6
    labels = (features[:, 0] > 0.5).astype(np.float32)
    columns = [tf1.feature_column.numeric_column("x")]
    config = tf1.estimator.RunConfig(save_checkpoints_steps=4, keep_checkpoint_max=10)
    regressor = tf1.estimator.LinearRegressor(
        feature_columns=columns,
        optimizer=tf1.train.GradientDescentOptimizer(0.1),
        model_dir=args.model_dir,
        config=config,
    )
    input_fn = tf1.estimator.inputs.numpy_input_fn(
        x={"x": features}, y=labels, batch_size=8, num_epochs=None, shuffle=False
    )
    regressor.train(input_fn=input_fn, max_steps=20)


if __name__ == "__main__":
    main()
