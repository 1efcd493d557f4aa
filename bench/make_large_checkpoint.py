"""A >= 1 GiB canned-Estimator checkpoint for bench/convert_checkpoint.py. Runs under the legacy env.

    .venv-legacy/bin/python bench/make_large_checkpoint.py MODEL_DIR

A real tf.compat.v1.estimator.DNNClassifier (its Saver writes the files) with one 4096-wide numeric
feature, hidden units [16384, 4096] and TF1 Adagrad: 512 MiB of weights + 512 MiB of accumulators, the
largest tensor 256 MiB. One training step of batch 2, then the Estimator's final checkpoint model.ckpt-1.
"""

import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
WIDTH, HIDDEN = 4096, [16384, 4096]


def main(model_dir: str) -> None:
    tf1.logging.set_verbosity(tf1.logging.ERROR)
    config = tf.estimator.RunConfig(save_checkpoints_steps=10**6, keep_checkpoint_max=1, tf_random_seed=1)
    classifier = tf1.estimator.DNNClassifier(
        hidden_units=HIDDEN,
        feature_columns=[tf.feature_column.numeric_column("x", shape=[WIDTH])],
        n_classes=10,
        optimizer=tf1.train.AdagradOptimizer(0.05),
        model_dir=model_dir,
        config=config,
    )
    features = {"x": np.ones((2, WIDTH), np.float32)}
    labels = np.array([1, 2], np.int32)
    classifier.train(
        tf1.estimator.inputs.numpy_input_fn(features, labels, batch_size=2, num_epochs=None, shuffle=False),
        max_steps=1,
    )


if __name__ == "__main__":
    main(sys.argv[1])
