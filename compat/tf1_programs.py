"""What a TensorFlow 1.x program ran with, for the TF1 code a migration keeps as written.

TensorFlow 1.x built graphs by default: placeholders, `tf.gradients`, sessions and `MonitoredTrainingSession`
loops need graph mode, and its variables, control flow and shapes behaved as TF1's. TensorFlow 2 has all of it
behind one switch, `tf.compat.v1.disable_v2_behavior()`. And TF1's `tf.layers` (`tf.compat.v1.layers`) and
`tf.keras` were Keras 2, which TensorFlow >= 2.16 gives only as tf_keras, chosen by TF_USE_LEGACY_KERAS when a
program first reaches them.
"""

from __future__ import annotations

import os

import tensorflow as tf


def use_tf_keras() -> None:
    """Make `tf.compat.v1.layers`, `tf.compat.v1.nn.rnn_cell` and `tf.keras` tf_keras's (Keras 2), as under
    TensorFlow 1.x. TensorFlow
    decides when a program first reaches them, by TF_USE_LEGACY_KERAS: set here only while they are reached,
    so that the processes the program starts do not inherit it."""
    previous = os.environ.get("TF_USE_LEGACY_KERAS")
    os.environ["TF_USE_LEGACY_KERAS"] = "1"
    try:
        # Each is a lazy loader of its own, which reads TF_USE_LEGACY_KERAS when first reached.
        _ = (tf.compat.v1.layers.Dense, tf.compat.v1.nn.rnn_cell.LSTMCell, tf.compat.v1.keras.layers.Dense,
             tf.keras.layers.Dense)
    finally:
        if previous is None:
            del os.environ["TF_USE_LEGACY_KERAS"]
        else:
            os.environ["TF_USE_LEGACY_KERAS"] = previous


def keep_tf_slim_working() -> None:
    """Give back `tensorflow.python.framework.ops.Tensor` and `.IndexedSlices`, which tf-slim 1.1 (its last release)
    reads in `batch_norm`, `dropout`, `optimize_loss` and `learning.create_train_op`, and TensorFlow >= 2.15 no longer
    defines there (they moved to their own modules): without them those raise AttributeError."""
    from tensorflow.python.framework import ops  # noqa: PLC0415  (TensorFlow's internals, read only here)

    for name, moved in (("Tensor", tf.Tensor), ("IndexedSlices", tf.IndexedSlices)):
        if not hasattr(ops, name):
            setattr(ops, name, moved)


def run_as_tf1() -> None:
    """TensorFlow 1.x's behaviour for the rest of the program (graph mode, TF1 variables and control flow) and
    its Keras 2 layers: called first in the entry point of a TF1 graph program kept as written."""
    use_tf_keras()
    keep_tf_slim_working()
    tf.compat.v1.disable_v2_behavior()
