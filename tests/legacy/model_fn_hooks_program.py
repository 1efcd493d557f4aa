"""A custom model_fn whose EstimatorSpec adds a NanTensorHook of its loss, trained with a LoggingTensorHook of the
global step every 50 steps and a StepCounterHook: the hooks of issue 63's benchmark, in a model_fn the rewrite
turns into a Keras class. With `--nan_step N` (N <= 8: the first epoch) one input row is NaN, so that step N's loss
is NaN. Run: `python model_fn_hooks_program.py MODEL_DIR [--nan_step N]`. Used by tests/test_model_fn_hooks.py."""
import argparse

import numpy as np
import tensorflow as tf

tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)

BATCH = 8


def model_fn(features, labels, mode):
    predictions = tf.compat.v1.layers.dense(features["x"], 1)
    loss = tf.compat.v1.losses.mean_squared_error(labels=labels, predictions=predictions)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                      training_hooks=[tf.compat.v1.train.NanTensorHook(loss)])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model_dir")
    parser.add_argument("--nan_step", type=int)
    args = parser.parse_args()
    features = np.linspace(0.0, 1.0, 64, dtype=np.float32).reshape(64, 1)
    if args.nan_step:
        features[(args.nan_step - 1) * BATCH, 0] = np.nan  # the first row of that step's batch (in the first epoch)
    labels = (features > 0.5).astype(np.float32)
    config = tf.estimator.RunConfig(save_checkpoints_steps=4)
    estimator = tf.estimator.Estimator(model_fn=model_fn, model_dir=args.model_dir, config=config)
    input_fn = tf.compat.v1.estimator.inputs.numpy_input_fn(
        x={"x": features}, y=labels, batch_size=BATCH, num_epochs=None, shuffle=False)
    hooks = [
        # (the step's read: tests/legacy/logging_hook_program.py says why)
        tf.estimator.LoggingTensorHook({"step": "global_step/Read/ReadVariableOp:0"}, every_n_iter=50),
        tf.estimator.StepCounterHook(every_n_steps=50, output_dir=args.model_dir),
    ]
    estimator.train(input_fn=input_fn, max_steps=200, hooks=hooks)


if __name__ == "__main__":
    main()
