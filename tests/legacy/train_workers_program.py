"""A DNNClassifier on scikit-learn's digits trained by several workers in step: the Estimator program a Ray Train
`TensorflowTrainer` runs once it is migrated (tests/test_ray_train.py). Its RunConfig's
`train_distribute=MultiWorkerMirroredStrategy()` reads the cluster from TF_CONFIG, which Ray sets for each worker."""

import argparse

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--learning_rate", type=float, default=0.05)
    parser.add_argument("--max_steps", type=int, default=120)
    parser.add_argument("--tf_random_seed", type=int, default=None)
    args = parser.parse_args()

    digits = load_digits()
    x = (digits.images.reshape(-1, 64) / 16.0).astype(np.float32)
    y = digits.target.astype(np.int32)
    strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
    classifier = tf.estimator.DNNClassifier(
        feature_columns=[tf.feature_column.numeric_column("x", shape=[64])],
        hidden_units=[32],
        n_classes=10,
        optimizer=tf.compat.v1.train.AdagradOptimizer(learning_rate=args.learning_rate),
        model_dir=args.model_dir,
        config=tf.estimator.RunConfig(
            save_checkpoints_steps=20, train_distribute=strategy, tf_random_seed=args.tf_random_seed
        ),
    )
    train_input_fn = tf.compat.v1.estimator.inputs.numpy_input_fn(
        x={"x": x}, y=y, batch_size=32, num_epochs=None, shuffle=True
    )
    classifier.train(input_fn=train_input_fn, max_steps=args.max_steps)
    eval_input_fn = tf.compat.v1.estimator.inputs.numpy_input_fn(x={"x": x}, y=y, batch_size=256, shuffle=False)
    print(classifier.evaluate(input_fn=eval_input_fn))


if __name__ == "__main__":
    main()
