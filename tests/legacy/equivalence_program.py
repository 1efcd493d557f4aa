"""An Estimator program for the step-equivalence test: fixed batch order, no dropout, checkpoint at 0 and N.

It is both the input of `migrate rewrite` and, unchanged, the reference run under the legacy environment.
"""

import argparse

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

tf1 = tf.compat.v1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    digits = load_digits()
    # Last-bit differences between TF 2.15 and 2.21 kernels are amplified by some starting points: a weight
    # whose gradient is nearly always zero (Adam divides by its history), a ReLU input that crosses zero.
    # Unseeded runs failed 1e-5 now and then (2.8e-5 once, 3.7e-3 once). Hence a fixed seed (measured with
    # seeds 1, 2, 3, 7: max |dw| <= 2.3e-6 after 20 steps) and pixels offset so none is almost always zero.
    images = (digits.images / 16.0 + 0.05).astype(np.float32)
    labels = digits.target.astype(np.int32)

    columns = [tf1.feature_column.numeric_column("x", shape=[8, 8])]
    config = tf1.estimator.RunConfig(
        save_checkpoints_steps=args.max_steps, keep_checkpoint_max=10, tf_random_seed=args.seed
    )
    classifier = tf1.estimator.DNNClassifier(
        feature_columns=columns,
        hidden_units=[32, 16],
        optimizer=tf1.train.AdamOptimizer(learning_rate=0.01),
        n_classes=10,
        model_dir=args.model_dir,
        config=config,
    )
    train_input_fn = tf1.estimator.inputs.numpy_input_fn(
        x={"x": images}, y=labels, batch_size=32, num_epochs=None, shuffle=False
    )
    classifier.train(input_fn=train_input_fn, max_steps=args.max_steps)


if __name__ == "__main__":
    main()
