"""A canned estimator whose training logs its global step with LoggingTensorHooks: every 50 steps, and once at
the end through a formatter; a StopAtStepHook ends it at step 200, and the program prints the global step it reads
back. Run: `python logging_hook_program.py MODEL_DIR`. Used by tests/test_logging_tensor_hook.py.

The step is named by its read, "global_step/Read/ReadVariableOp:0": TensorFlow 2.15's Estimator made the global step
a resource variable, whose "global_step" tensor is its handle (a hook of it logs the handle's bytes, and the
formatter's %d fails), where TensorFlow 1.x's "global_step" was the value."""
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)

GLOBAL_STEP = "global_step/Read/ReadVariableOp:0"
_rng = np.random.RandomState(0)
FEATURES = _rng.rand(400, 3).astype(np.float32)
LABELS = (FEATURES.sum(axis=1) > 1.5).astype(np.int32)


def train_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": FEATURES}, LABELS)).repeat().batch(20)


def main(model_dir):
    columns = [tf.feature_column.numeric_column("x", shape=[3])]
    config = tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=100)
    estimator = tf.estimator.LinearClassifier(feature_columns=columns, config=config)
    logging_hook = tf.estimator.LoggingTensorHook({"step": GLOBAL_STEP}, every_n_iter=50)
    final_hook = tf.estimator.LoggingTensorHook(
        [GLOBAL_STEP], at_end=True, formatter=lambda values: "training ended at step %d" % values[GLOBAL_STEP])  # noqa: UP031
    estimator.train(input_fn=train_input_fn, hooks=[logging_hook, final_hook, tf.estimator.StopAtStepHook(last_step=200)])
    print("global_step", estimator.get_variable_value("global_step"))


if __name__ == "__main__":
    main(sys.argv[1])
