"""`tf.estimator.classifier_parse_example_spec` and `regressor_parse_example_spec`, which TensorFlow >= 2.16 lost
with tf.estimator: the `tf.io.parse_example` spec of a canned estimator's features, its label and its weight.

The same specs as Estimator's (TF 2.15, canned/parsing_utils.py): the feature columns' own spec
(`make_parse_example_spec`), the label a FixedLenFeature of shape (1,) for classifiers and (label_dimension,)
for regressors, and the weight column's spec; a label or weight named like a feature is an error, as there.
"""

from __future__ import annotations

import tensorflow as tf
from tensorflow.python.feature_column import feature_column_v2


def classifier_parse_example_spec(feature_columns, label_key, label_dtype=tf.int64, label_default=None,
                                  weight_column=None) -> dict:
    """The parsing spec of `feature_columns` with a classifier's label (int64 of shape (1,) by default)."""
    label = tf.io.FixedLenFeature((1,), label_dtype, label_default)
    return _with_label_and_weight(feature_columns, label_key, label, weight_column)


def regressor_parse_example_spec(feature_columns, label_key, label_dtype=tf.float32, label_default=None,
                                 label_dimension=1, weight_column=None) -> dict:
    """The parsing spec of `feature_columns` with a regressor's label (float32 of shape (label_dimension,))."""
    label = tf.io.FixedLenFeature((label_dimension,), label_dtype, label_default)
    return _with_label_and_weight(feature_columns, label_key, label, weight_column)


def _with_label_and_weight(feature_columns, label_key, label: tf.io.FixedLenFeature, weight_column) -> dict:
    spec = tf.compat.v1.feature_column.make_parse_example_spec(feature_columns)  # TF1's and TF2's columns alike
    if label_key in spec:
        raise ValueError(f"label should not be used as feature. label_key: {label_key}, features: {spec.keys()}")
    spec[label_key] = label
    if weight_column is None:
        return spec
    if isinstance(weight_column, str):
        weight_column = tf.feature_column.numeric_column(weight_column)
    if not isinstance(weight_column, feature_column_v2.NumericColumn):
        raise ValueError("weight_column should be an instance of tf.feature_column.numeric_column. "
                         f"Given type: {type(weight_column)} value: {weight_column}")
    if weight_column.key in spec:
        raise ValueError(f"weight_column should not be used as feature. weight_column: {weight_column.key}, "
                         f"features: {spec.keys()}")
    spec.update(weight_column.parse_example_spec)
    return spec
