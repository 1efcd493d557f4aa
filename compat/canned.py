"""tf_keras equivalents of the canned Estimators, numerically faithful to the Estimator they replace.

`migrate rewrite` emits calls to these builders, and checkpoint conversion builds the same models, so a
converted `model.ckpt-N` and a migrated program always agree on layers, names and variables.

Layers are named after the Estimator's variable scopes (`hiddenlayer_0`, `logits`), the input goes through
`tf_keras.layers.DenseFeatures` with the program's own feature columns (the same feature-column code the
Estimator's input layer runs), kernels start glorot-uniform and biases zero, as in the Estimator.
"""

from __future__ import annotations

from collections.abc import Sequence

import tensorflow as tf
import tf_keras

# tf.compat.v1.estimator heads sum the loss over the batch; tf.estimator (v2) heads average it.
V1_HEAD_REDUCTION = "sum"
V2_HEAD_REDUCTION = "sum_over_batch_size"

# The canned DNN estimators' default optimizer: tf.compat.v1.train.AdagradOptimizer(0.05).
DNN_DEFAULT_LEARNING_RATE = 0.05


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


def estimator_adagrad(learning_rate: float = DNN_DEFAULT_LEARNING_RATE) -> tf_keras.optimizers.Optimizer:
    """TF1 `AdagradOptimizer`: accumulators start at 0.1 and the update has no epsilon term."""
    return tf_keras.optimizers.Adagrad(
        learning_rate=learning_rate, initial_accumulator_value=0.1, epsilon=0.0
    )


def dnn_classifier(
    feature_columns: Sequence,
    hidden_units: Sequence[int],
    n_classes: int = 2,
    optimizer: tf_keras.optimizers.Optimizer | None = None,
    activation_fn=tf.nn.relu,
    dropout: float | None = None,
    loss_reduction: str = V2_HEAD_REDUCTION,
) -> tf_keras.Model:
    """A compiled tf_keras model equivalent to a canned `DNNClassifier`; it returns the logits.

    `loss_reduction` is "sum" for `tf.compat.v1.estimator.DNNClassifier` and "sum_over_batch_size" for
    `tf.estimator.DNNClassifier`. Binary classification (`n_classes=2`) has one logit and a sigmoid loss.
    The optimizer's slots are created at once, so a checkpoint restores into them immediately.
    """
    if n_classes < 2:
        raise ValueError(f"n_classes must be at least 2, got {n_classes}")
    inputs = feature_inputs(feature_columns)
    net = tf_keras.layers.DenseFeatures(list(feature_columns), name="input_layer")(inputs)
    for index, units in enumerate(hidden_units):
        net = tf_keras.layers.Dense(units, activation=activation_fn, name=f"hiddenlayer_{index}")(net)
        if dropout:
            net = tf_keras.layers.Dropout(dropout, name=f"dropout_{index}")(net)
    binary = n_classes == 2
    logits = tf_keras.layers.Dense(1 if binary else n_classes, name="logits")(net)
    model = tf_keras.Model(inputs=inputs, outputs=logits, name="dnn")

    if binary:
        loss = tf_keras.losses.BinaryCrossentropy(from_logits=True, reduction=loss_reduction)
        metrics = [tf_keras.metrics.BinaryAccuracy(name="accuracy", threshold=0.0)]
    else:
        loss = tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=loss_reduction)
        metrics = [tf_keras.metrics.SparseCategoricalAccuracy(name="accuracy")]
    model.compile(optimizer=optimizer or estimator_adagrad(), loss=loss, metrics=metrics)
    model.optimizer.build(model.trainable_variables)
    return model
