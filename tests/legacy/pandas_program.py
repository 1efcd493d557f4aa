"""An Estimator program fed by pandas_input_fn, for tests/test_pandas_input.py: both the input of
`migrate rewrite` and, unchanged, the legacy reference run. Fixed batch order (shuffle=False), a checkpoint
at step 0 and at --max_steps. One column holds strings ("shade", read through a vocabulary), as in the
DataFrames Estimator users fed. The input_fn comes from a factory taking `shuffle` and `num_epochs`, and
`warm_start_from=None` is spelled out, as in TensorFlow 1's input-functions tutorial.
"""

import argparse

import numpy as np
import pandas as pd
import tensorflow as tf
from sklearn.datasets import load_digits

tf1 = tf.compat.v1


def get_input_fn(frame, targets, num_epochs=None, shuffle=True):
    return tf1.estimator.inputs.pandas_input_fn(
        x=frame, y=targets, batch_size=32, num_epochs=num_epochs, shuffle=shuffle
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=20)
    args = parser.parse_args()

    digits = load_digits()
    frame = pd.DataFrame(
        {
            "ink": digits.images.mean(axis=(1, 2)) / 16.0 + 0.05,
            "left": digits.images[:, :, :4].mean(axis=(1, 2)) / 16.0 + 0.05,
            "top": digits.images[:, :4, :].mean(axis=(1, 2)) / 16.0 + 0.05,
            "shade": np.array(["light", "mid", "dark"])[np.digitize(digits.images.mean(axis=(1, 2)), [4.0, 5.0])],
        }
    )
    targets = pd.Series(digits.target / 10.0)
    columns = [tf1.feature_column.numeric_column(name) for name in ("ink", "left", "top")]
    columns.append(tf1.feature_column.indicator_column(
        tf1.feature_column.categorical_column_with_vocabulary_list("shade", ["light", "mid", "dark"])
    ))
    config = tf1.estimator.RunConfig(
        save_checkpoints_steps=args.max_steps, keep_checkpoint_max=10, tf_random_seed=7
    )
    regressor = tf1.estimator.DNNRegressor(
        feature_columns=columns,
        hidden_units=[16, 8],
        optimizer=tf1.train.GradientDescentOptimizer(0.01),
        model_dir=args.model_dir,
        config=config,
        warm_start_from=None,
    )
    regressor.train(input_fn=get_input_fn(frame, targets, shuffle=False), max_steps=args.max_steps)


if __name__ == "__main__":
    main()
