"""tf_keras equivalents of the canned Estimators, numerically faithful to the Estimator they replace.

`migrate rewrite` emits calls to these builders, and `migrate convert-checkpoint` builds the same models, so
a converted `model.ckpt-N` and a migrated program always agree on layers, names and variables.

Layers are named after the Estimator's variable scopes (`hiddenlayer_0`, `logits`, `linear_model`). The
input goes through `tf_keras.layers.DenseFeatures` with the program's own feature columns (the same
feature-column code the Estimator's input layer runs, concatenating features sorted by name); kernels
start glorot-uniform and biases zero, as in the Estimator. Every model returns the Estimator's logits
(a regressor's logits are its predictions).

Heads: `loss_reduction` is "sum" for `tf.compat.v1.estimator.*` (v1 heads sum the loss over the batch)
and "sum_over_batch_size" for `tf.estimator.*` (v2 heads average it over every loss element).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import tensorflow as tf
import tf_keras

V1_HEAD_REDUCTION = "sum"
V2_HEAD_REDUCTION = "sum_over_batch_size"

# Canned DNN estimators default to Adagrad(0.05); canned linear ones to Ftrl(min(0.2, 1/sqrt(#columns))).
DNN_DEFAULT_LEARNING_RATE = 0.05
LINEAR_MAX_LEARNING_RATE = 0.2
# tf.keras (legacy) Adagrad, which v2 canned estimators use, adds this epsilon; TF1 Adagrad adds none.
KERAS_ADAGRAD_EPSILON = 1e-7


def feature_inputs(feature_columns: Sequence) -> dict[str, tf_keras.Input]:
    """One `tf_keras.Input` per numeric feature column, keyed by the feature name.

    The model then takes the same features dict the Estimator's input_fn produced (`{"x": array}`).
    """
    inputs = {}
    for column in feature_columns:
        if type(column).__name__ != "NumericColumn":
            raise ValueError(
                f"feature column {column!r} is not a numeric_column; only numeric columns are supported"
            )
        inputs[column.key] = tf_keras.Input(shape=tuple(column.shape), name=column.key, dtype=column.dtype)
    return inputs


def estimator_adagrad(
    learning_rate: float = DNN_DEFAULT_LEARNING_RATE, epsilon: float = 0.0
) -> tf_keras.optimizers.Optimizer:
    """The Estimators' Adagrad: accumulators start at 0.1; TF1's update has no epsilon term (v2's: 1e-7)."""
    return tf_keras.optimizers.Adagrad(
        learning_rate=learning_rate, initial_accumulator_value=0.1, epsilon=epsilon
    )


def linear_learning_rate(num_columns: int) -> float:
    """The canned linear estimators' default Ftrl learning rate."""
    return min(LINEAR_MAX_LEARNING_RATE, 1.0 / math.sqrt(num_columns))


def _default_dnn_optimizer(loss_reduction: str) -> tf_keras.optimizers.Optimizer:
    v1 = loss_reduction == V1_HEAD_REDUCTION
    return estimator_adagrad(epsilon=0.0 if v1 else KERAS_ADAGRAD_EPSILON)


def _default_linear_optimizer(feature_columns: Sequence) -> tf_keras.optimizers.Optimizer:
    return tf_keras.optimizers.Ftrl(learning_rate=linear_learning_rate(len(feature_columns)))


def _dnn_logits(inputs, feature_columns, hidden_units, units, activation_fn, dropout, prefix=""):
    net = tf_keras.layers.DenseFeatures(list(feature_columns), name=f"{prefix}input_layer")(inputs)
    for index, size in enumerate(hidden_units):
        net = tf_keras.layers.Dense(size, activation=activation_fn, name=f"{prefix}hiddenlayer_{index}")(net)
        if dropout:
            net = tf_keras.layers.Dropout(dropout, name=f"{prefix}dropout_{index}")(net)
    return tf_keras.layers.Dense(units, name=f"{prefix}logits")(net)


def _linear_logits(inputs, feature_columns, units):
    net = tf_keras.layers.DenseFeatures(list(feature_columns), name="linear_input_layer")(inputs)
    return tf_keras.layers.Dense(units, kernel_initializer="zeros", name="linear_model")(net)


def _classifier_units(n_classes: int) -> int:
    if n_classes < 2:
        raise ValueError(f"n_classes must be at least 2, got {n_classes}")
    return 1 if n_classes == 2 else n_classes


def _compile(model, optimizer, loss_reduction: str, n_classes: int | None = None, label_dimension=None):
    """Attach the Estimator head's loss and the optimizer, and create the optimizer's slots now."""
    if loss_reduction not in (V1_HEAD_REDUCTION, V2_HEAD_REDUCTION):
        raise ValueError(f"loss_reduction must be {V1_HEAD_REDUCTION!r} or {V2_HEAD_REDUCTION!r}")
    loss_weight = 1.0
    if n_classes == 2:
        loss = tf_keras.losses.BinaryCrossentropy(from_logits=True, reduction=loss_reduction)
        metrics = [tf_keras.metrics.BinaryAccuracy(name="accuracy", threshold=0.0)]
    elif n_classes is not None:
        loss = tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=loss_reduction)
        metrics = [tf_keras.metrics.SparseCategoricalAccuracy(name="accuracy")]
    else:
        loss = tf_keras.losses.MeanSquaredError(reduction=loss_reduction)
        metrics = [tf_keras.metrics.MeanSquaredError(name="average_loss")]
        if loss_reduction == V1_HEAD_REDUCTION:
            # Keras averages the squared error over the label dimension; a v1 head sums every element.
            loss_weight = float(label_dimension)
    model.compile(optimizer=optimizer, loss=loss, loss_weights=[loss_weight], metrics=metrics)
    model.optimizer.build(model.trainable_variables)
    return model


def dnn_classifier(
    feature_columns: Sequence,
    hidden_units: Sequence[int],
    n_classes: int = 2,
    optimizer: tf_keras.optimizers.Optimizer | None = None,
    activation_fn=tf.nn.relu,
    dropout: float | None = None,
    loss_reduction: str = V2_HEAD_REDUCTION,
) -> tf_keras.Model:
    """A compiled model equivalent to a canned `DNNClassifier`; binary (`n_classes=2`) has one logit."""
    inputs = feature_inputs(feature_columns)
    logits = _dnn_logits(
        inputs, feature_columns, hidden_units, _classifier_units(n_classes), activation_fn, dropout
    )
    model = tf_keras.Model(inputs=inputs, outputs=logits, name="dnn")
    return _compile(model, optimizer or _default_dnn_optimizer(loss_reduction), loss_reduction, n_classes)


def dnn_regressor(
    feature_columns: Sequence,
    hidden_units: Sequence[int],
    label_dimension: int = 1,
    optimizer: tf_keras.optimizers.Optimizer | None = None,
    activation_fn=tf.nn.relu,
    dropout: float | None = None,
    loss_reduction: str = V2_HEAD_REDUCTION,
) -> tf_keras.Model:
    """A compiled model equivalent to a canned `DNNRegressor` (squared-error head)."""
    inputs = feature_inputs(feature_columns)
    logits = _dnn_logits(inputs, feature_columns, hidden_units, label_dimension, activation_fn, dropout)
    model = tf_keras.Model(inputs=inputs, outputs=logits, name="dnn")
    optimizer = optimizer or _default_dnn_optimizer(loss_reduction)
    return _compile(model, optimizer, loss_reduction, label_dimension=label_dimension)


def linear_classifier(
    feature_columns: Sequence,
    n_classes: int = 2,
    optimizer: tf_keras.optimizers.Optimizer | None = None,
    loss_reduction: str = V2_HEAD_REDUCTION,
) -> tf_keras.Model:
    """A compiled model equivalent to a canned `LinearClassifier` (weights start at zero, as there)."""
    inputs = feature_inputs(feature_columns)
    logits = _linear_logits(inputs, feature_columns, _classifier_units(n_classes))
    model = tf_keras.Model(inputs=inputs, outputs=logits, name="linear")
    optimizer = optimizer or _default_linear_optimizer(feature_columns)
    return _compile(model, optimizer, loss_reduction, n_classes)


def linear_regressor(
    feature_columns: Sequence,
    label_dimension: int = 1,
    optimizer: tf_keras.optimizers.Optimizer | None = None,
    loss_reduction: str = V2_HEAD_REDUCTION,
) -> tf_keras.Model:
    """A compiled model equivalent to a canned `LinearRegressor` (weights start at zero, as there)."""
    inputs = feature_inputs(feature_columns)
    logits = _linear_logits(inputs, feature_columns, label_dimension)
    model = tf_keras.Model(inputs=inputs, outputs=logits, name="linear")
    optimizer = optimizer or _default_linear_optimizer(feature_columns)
    return _compile(model, optimizer, loss_reduction, label_dimension=label_dimension)
