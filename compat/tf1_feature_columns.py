"""TensorFlow 1.x feature columns that refuse eager execution, for programs whose main code now runs eagerly.

`tf.compat.v1.feature_column.shared_embedding_columns` raises "not supported when eager execution is enabled"
when it is called, though the columns it makes hold no graph state: their shared table is made (and shared
through a graph collection) where a graph reads them, such as a model_fn's `input_layer` (compat.wrapped_model_fns
builds each mode's graph as Estimator did). Made here in a graph of their own, they are TF 1.x's columns, read
as TF 1.x read them, under the Estimator's variable names.
"""

from __future__ import annotations

import tensorflow as tf


def shared_embedding_columns(*args, **kwargs):
    """`tf.compat.v1.feature_column.shared_embedding_columns(...)`, the same arguments and columns."""
    with tf.Graph().as_default():
        return tf.compat.v1.feature_column.shared_embedding_columns(*args, **kwargs)
