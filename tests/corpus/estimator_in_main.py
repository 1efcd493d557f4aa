"""The estimator built inside a function from arguments, trained in a loop of rounds."""
import numpy as np
import tensorflow as tf


def build(model_dir, save_steps):
    columns = [tf.feature_column.numeric_column("x", shape=(2,))]
    config = tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=save_steps)
    return tf.estimator.DNNRegressor(hidden_units=[4], feature_columns=columns, config=config)


def main():
    regressor = build("/tmp/rounds", 25)
    x = np.random.rand(64, 2).astype(np.float32)
    y = x.sum(axis=1, keepdims=True)
    for _ in range(4):
        regressor.train(
            input_fn=tf.compat.v1.estimator.inputs.numpy_input_fn(x={"x": x}, y=y, num_epochs=None, shuffle=True),
            steps=100,
        )


main()
