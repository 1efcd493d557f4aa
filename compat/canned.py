"""tf_keras equivalents of the canned Estimators, numerically faithful to the Estimator they replace.

`migrate rewrite` emits calls to these builders, and `migrate convert-checkpoint` builds the same models, so
a converted `model.ckpt-N` and a migrated program always agree on layers, names and variables.

Layers are named after the Estimator's variable scopes (`hiddenlayer_0`, `batchnorm_0`, `logits`,
`linear_model`). The DNN's input goes through `tf_keras.layers.DenseFeatures` with the program's own feature
columns (the same feature-column code the Estimator's input layer runs, concatenating features sorted by
name); the linear model is `LinearModel`, the Estimator's own layout of one weight per column; a baseline is
`BaselineModel`, one bias per output. Kernels start glorot-uniform and biases zero, as in the Estimator. Every model returns the Estimator's logits (a
regressor's logits are its predictions).

Heads: `loss_reduction` is the head's reduction of the loss over the batch: "sum" (the default of
`tf.compat.v1.estimator.*`'s v1 heads) or "sum_over_batch_size" (the default of `tf.estimator.*`'s v2 heads:
the mean over every loss element). `head_version` ("v1" or "v2") is the head the estimator had, which also
decides its optimizer defaults and its AUC; it defaults to the head whose own reduction `loss_reduction` is.
`CannedModel` looks labels up in a `label_vocabulary` and weighs examples by a `weight_column`. A classifier
built with `multi_label=True` is the model of a head-based estimator's `MultiLabelHead`: one logit per class, each
a sigmoid cross entropy against a multi-hot label, averaged over the classes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import tensorflow as tf
import tf_keras

from . import step_count, tf1_feature_columns

V1_HEAD_REDUCTION = "sum"
V2_HEAD_REDUCTION = "sum_over_batch_size"
HEAD_VERSIONS = ("v1", "v2")

# Canned DNN estimators default to Adagrad: v1 ones (tf.compat.v1.estimator) at 0.05, v2 ones at Keras's own
# default 0.001 (dnn.py passes the v2 name "Adagrad" no learning rate). Canned linear ones default to
# Ftrl(min(0.2, 1/sqrt(#columns))); DNNLinearCombined ones to Adagrad(0.001) for the DNN and
# Ftrl(min(0.005, 1/sqrt(#linear columns))).
DNN_DEFAULT_LEARNING_RATE = 0.05
V2_DNN_DEFAULT_LEARNING_RATE = 0.001
LINEAR_MAX_LEARNING_RATE = 0.2
COMBINED_DNN_LEARNING_RATE = 0.001
COMBINED_LINEAR_MAX_LEARNING_RATE = 0.005
# tf.keras (legacy) Adagrad, which v2 canned estimators use, adds this epsilon; TF1 Adagrad adds none.
KERAS_ADAGRAD_EPSILON = 1e-7
BASELINE_LEARNING_RATE = 0.3  # the canned baselines' learning rate for an optimizer name (Ftrl by default)
BATCH_NORM_MOMENTUM = 0.999  # the canned DNNs' batch normalisation (Keras's default is 0.99)


def feature_inputs(feature_columns: Sequence) -> dict[str, tf_keras.Input]:
    """One `tf_keras.Input` per raw feature the columns read, keyed by the feature name.

    The model then takes the same features dict the Estimator's input_fn produced (`{"x": array}`). Each
    input has the dtype and shape the columns parse (`parse_example_spec`); a categorical feature
    (parsed as a `VarLenFeature`) is one value per example, as input_fns give them: `[batch]` or `[batch, 1]`.
    """
    specs: dict[str, tf.io.FixedLenFeature | tf.io.VarLenFeature] = {}
    for column in tf1_feature_columns.keras_feature_columns(feature_columns):
        try:
            column_specs = column.parse_example_spec
        except AttributeError:
            raise ValueError(f"{column!r} is not a feature column") from None
        for key, spec in column_specs.items():
            if specs.setdefault(key, spec) != spec:
                raise ValueError(f"feature {key!r} is read as {specs[key]} by one column and {spec} by another")
    inputs = {}
    for key, spec in sorted(specs.items()):
        if isinstance(spec, tf.io.FixedLenFeature):
            inputs[key] = tf_keras.Input(shape=tuple(spec.shape), name=key, dtype=spec.dtype)
        elif isinstance(spec, tf.io.VarLenFeature):
            inputs[key] = tf_keras.Input(shape=(1,), name=key, dtype=spec.dtype)
        else:
            raise ValueError(f"feature {key!r} is parsed as {type(spec).__name__}; only fixed-length and "
                             "categorical features are supported")
    return inputs


@tf_keras.saving.register_keras_serializable(package="compat.canned")
class LinearModel(tf_keras.layers.Layer):
    """The canned linear model's layer: one `weights` variable per feature column and `bias_weights`,
    named and shaped as the Estimator's (`linear_model/<column>/weights`), all starting at zero.

    Dense columns are multiplied by their weights; a categorical column's weights are combined over its ids
    (`safe_embedding_lookup_sparse` with the Estimator's `sparse_combiner`: "sum", its default, "mean" or
    "sqrtn"), so its gradient only touches the rows of the ids seen, as in the Estimator.
    """

    def __init__(self, feature_columns: Sequence, units: int, sparse_combiner: str = "sum", **kwargs):
        super().__init__(**kwargs)
        if sparse_combiner not in SPARSE_COMBINERS:
            raise ValueError(f"sparse_combiner={sparse_combiner!r}: the Estimator takes one of {SPARSE_COMBINERS}")
        self.feature_columns = sorted(feature_columns, key=lambda column: column.name)
        self.units = units
        self.sparse_combiner = sparse_combiner
        self._state_manager = tf.__internal__.feature_column.StateManager(self, self.trainable)

    def build(self, input_shape):
        with tf.compat.v1.variable_scope(self.name):
            for column in self.feature_columns:
                with tf.compat.v1.variable_scope(_variable_scope_name(column.name)):
                    column.create_state(self._state_manager)
                    rows = column.num_buckets if _is_categorical(column) else column.variable_shape.num_elements()
                    self._state_manager.create_variable(
                        column, name="weights", shape=(rows, self.units), dtype=tf.float32,
                        initializer=tf_keras.initializers.Zeros(),
                    )
        self.bias = self.add_weight(name="bias_weights", shape=(self.units,), initializer="zeros")
        super().build(input_shape)

    def column_weights(self, column) -> tf.Variable:
        return self._state_manager.get_variable(column, "weights")

    def call(self, features):
        cache = tf.__internal__.feature_column.FeatureTransformationCache(features)
        sums = []
        for column in self.feature_columns:
            weights = self.column_weights(column)
            if _is_categorical(column):
                ids, id_weights = column.get_sparse_tensors(cache, self._state_manager)
                ids = tf.sparse.reshape(ids, [tf.shape(ids, out_type=tf.int64)[0], -1])
                if id_weights is not None:
                    id_weights = tf.sparse.reshape(id_weights, [tf.shape(id_weights, out_type=tf.int64)[0], -1])
                sums.append(tf.nn.safe_embedding_lookup_sparse(weights, ids, id_weights,
                                                               combiner=self.sparse_combiner))
            else:
                dense = column.get_dense_tensor(cache, self._state_manager)
                dense = tf.reshape(dense, (tf.shape(dense)[0], column.variable_shape.num_elements()))
                sums.append(tf.matmul(dense, weights))
        return tf.nn.bias_add(tf.math.add_n(sums), self.bias)

    def get_config(self):
        return {
            **super().get_config(),
            "feature_columns": [tf.__internal__.feature_column.serialize_feature_column(c)
                                for c in self.feature_columns],
            "units": self.units,
            "sparse_combiner": self.sparse_combiner,
        }

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        columns_by_name: dict = {}
        config["feature_columns"] = [
            tf.__internal__.feature_column.deserialize_feature_column(c, None, columns_by_name)
            for c in config["feature_columns"]
        ]
        return cls(**config)


SPARSE_COMBINERS = ("sum", "mean", "sqrtn")


def _is_categorical(column) -> bool:
    """Whether the linear model sums weights over the column's ids (categorical and bucketized columns)."""
    return hasattr(column, "num_buckets") and hasattr(column, "get_sparse_tensors")


def _variable_scope_name(name: str) -> str:
    """A column name as the Estimator's variable scope for it."""
    return re.sub(r"[^A-Za-z0-9_.\-]", "_", name)


def estimator_adagrad(
    learning_rate: float = DNN_DEFAULT_LEARNING_RATE, epsilon: float = 0.0
) -> tf_keras.optimizers.Optimizer:
    """The Estimators' Adagrad: accumulators start at 0.1; TF1's update has no epsilon term (v2's: 1e-7)."""
    return tf_keras.optimizers.Adagrad(
        learning_rate=learning_rate, initial_accumulator_value=0.1, epsilon=epsilon
    )


def linear_learning_rate(num_columns: int, maximum: float = LINEAR_MAX_LEARNING_RATE) -> float:
    """The canned linear estimators' default Ftrl learning rate (DNNLinearCombined: maximum 0.005)."""
    return min(maximum, 1.0 / math.sqrt(num_columns))


def is_v1_head(loss_reduction: str, head_version: str | None) -> bool:
    """Whether a builder's model stands for a v1 head (tf.compat.v1.estimator) rather than a v2 one."""
    if loss_reduction not in (V1_HEAD_REDUCTION, V2_HEAD_REDUCTION):
        raise ValueError(f"loss_reduction must be {V1_HEAD_REDUCTION!r} or {V2_HEAD_REDUCTION!r}, "
                         f"got {loss_reduction!r}")
    if head_version is None:
        return loss_reduction == V1_HEAD_REDUCTION
    if head_version not in HEAD_VERSIONS:
        raise ValueError(f"head_version must be one of {HEAD_VERSIONS}, got {head_version!r}")
    return head_version == "v1"


def _default_dnn_optimizer(v1: bool, learning_rate: float | None = None):
    if learning_rate is None:
        learning_rate = DNN_DEFAULT_LEARNING_RATE if v1 else V2_DNN_DEFAULT_LEARNING_RATE
    return estimator_adagrad(learning_rate, epsilon=0.0 if v1 else KERAS_ADAGRAD_EPSILON)


OPTIMIZER_NAMES = ("Adagrad", "Adam", "Ftrl", "RMSProp", "SGD")
# A v2 DNN gives a name no learning rate: the Keras (legacy) class's own default applies.
_KERAS_DEFAULT_LEARNING_RATE = {"Adagrad": 0.001, "Adam": 0.001, "Ftrl": 0.001, "SGD": 0.01, "RMSProp": 0.001}


def _by_name(name: str, v1: bool, learning_rate: float | None):
    """The class a canned estimator made of an optimizer name (v1: TF1's, v2: Keras 2 legacy's), as its twin."""
    from . import rmsprop

    lr = learning_rate if learning_rate is not None else _KERAS_DEFAULT_LEARNING_RATE[name]
    if name == "Adagrad":
        return estimator_adagrad(lr, epsilon=0.0 if v1 else KERAS_ADAGRAD_EPSILON)
    if name == "Adam":
        return tf_keras.optimizers.Adam(lr, epsilon=1e-8) if v1 else tf_keras.optimizers.Adam(lr)
    if name == "RMSProp":
        return rmsprop.tf1_rmsprop(lr) if v1 else rmsprop.keras_legacy_rmsprop(lr)
    return tf_keras.optimizers.Ftrl(lr) if name == "Ftrl" else tf_keras.optimizers.SGD(lr)


def estimator_optimizer(given, v1: bool, name_learning_rate: float | None, what: str = "optimizer"):
    """What a canned Estimator made of its `what=` argument, checked when the program runs: a name (with the
    learning rate that estimator gives names; None: the Keras class's default; `v1`: a v1 estimator's classes),
    a function returning an optimizer (called, as the Estimator did), or a tf_keras optimizer."""
    keras_optimizers = (tf_keras.optimizers.Optimizer, tf_keras.optimizers.legacy.Optimizer)
    if callable(given) and not isinstance(given, keras_optimizers):
        given = given()
    if isinstance(given, str):
        if given not in OPTIMIZER_NAMES:
            raise ValueError(f"{what}={given!r}: canned estimators take the names {', '.join(OPTIMIZER_NAMES)}")
        return _by_name(given, v1, name_learning_rate)
    if isinstance(given, keras_optimizers):
        return given
    if not v1 and isinstance(given, tf.compat.v1.train.Optimizer):
        raise TypeError(
            f"{what}={given!r}: a TF1 optimizer given to a v2 canned head. TensorFlow 2's tf.estimator canned "
            "estimators refused TF1 optimizers: the program ran on TensorFlow 1.x, whose tf.estimator classes were "
            'the v1 ones (loss summed over the batch): build this model with loss_reduction="sum" (the v1 head), '
            "or give it a tf_keras optimizer"
        )
    twin = _tf1_twin(given)
    if twin is None:
        raise TypeError(
            f"{what}={given!r}: a migrated canned model takes an optimizer name ({', '.join(OPTIMIZER_NAMES)}), "
            "a tf_keras optimizer, a TF1 Adagrad, Adam, Ftrl, Momentum, ProximalAdagrad, RMSProp or GradientDescent "
            "optimizer, or a function returning one"
        )
    return twin


def _tf1_twin(optimizer):
    """The tf_keras twin of a `tf.compat.v1.train` optimizer instance (the same steps), None for other objects.
    Read from the instance's settings, which TF1's optimizer classes keep as they were given."""
    from . import adadelta, contrib_estimator, proximal_adagrad, rmsprop

    train = tf.compat.v1.train
    kind = type(optimizer)
    if kind is contrib_estimator.ClipGradientsByNorm:  # the same clipping: tf.clip_by_global_norm before the update
        twin = _tf1_twin(optimizer.optimizer)
        if twin is not None:
            twin.global_clipnorm = float(optimizer.clip_norm)
        return twin
    if kind is train.GradientDescentOptimizer:
        return tf_keras.optimizers.SGD(optimizer._learning_rate)
    if kind is train.MomentumOptimizer:
        return tf_keras.optimizers.SGD(optimizer._learning_rate, momentum=optimizer._momentum,
                                       nesterov=optimizer._use_nesterov)
    if kind is train.AdamOptimizer:
        return tf_keras.optimizers.Adam(optimizer._lr, beta_1=optimizer._beta1, beta_2=optimizer._beta2,
                                        epsilon=optimizer._epsilon)
    if kind is train.AdagradOptimizer:
        return tf_keras.optimizers.Adagrad(optimizer._learning_rate, epsilon=0.0,
                                           initial_accumulator_value=optimizer._initial_accumulator_value)
    if kind is train.ProximalAdagradOptimizer:
        return proximal_adagrad.ProximalAdagrad(
            optimizer._learning_rate, optimizer._initial_accumulator_value,
            optimizer._l1_regularization_strength, optimizer._l2_regularization_strength,
        )
    if kind is train.RMSPropOptimizer:
        return rmsprop.tf1_rmsprop(optimizer._learning_rate, optimizer._decay, optimizer._momentum,
                                   optimizer._epsilon, optimizer._centered)
    if kind is train.AdadeltaOptimizer:
        return adadelta.Adadelta(optimizer._lr, rho=optimizer._rho, epsilon=optimizer._epsilon)
    if kind is train.FtrlOptimizer:
        return tf_keras.optimizers.Ftrl(
            optimizer._learning_rate, learning_rate_power=optimizer._learning_rate_power,
            initial_accumulator_value=optimizer._initial_accumulator_value,
            l1_regularization_strength=optimizer._l1_regularization_strength,
            l2_regularization_strength=optimizer._l2_regularization_strength,
            l2_shrinkage_regularization_strength=optimizer._l2_shrinkage_regularization_strength,
            beta=optimizer._beta,
        )
    return None


def _dnn_optimizer(given, v1: bool, combined: bool = False):
    if given is None:
        return _default_dnn_optimizer(v1, COMBINED_DNN_LEARNING_RATE if combined else None)
    rate = COMBINED_DNN_LEARNING_RATE if combined else DNN_DEFAULT_LEARNING_RATE if v1 else None
    return estimator_optimizer(given, v1, rate, "dnn_optimizer" if combined else "optimizer")


def _linear_optimizer(given, v1: bool, feature_columns, combined: bool = False):
    maximum = COMBINED_LINEAR_MAX_LEARNING_RATE if combined else LINEAR_MAX_LEARNING_RATE
    if given is None:
        return _default_linear_optimizer(feature_columns, maximum)
    rate = linear_learning_rate(len(feature_columns), maximum) if combined else LINEAR_MAX_LEARNING_RATE
    return estimator_optimizer(given, v1, rate, "linear_optimizer" if combined else "optimizer")


def _default_linear_optimizer(feature_columns: Sequence, maximum=LINEAR_MAX_LEARNING_RATE):
    return tf_keras.optimizers.Ftrl(learning_rate=linear_learning_rate(len(feature_columns), maximum))


def _dnn_logits(inputs, feature_columns, hidden_units, units, activation_fn, dropout, batch_norm=False):
    """The Estimator's DNN: each hidden layer, then dropout, then batch normalisation (momentum 0.999)."""
    columns = tf1_feature_columns.keras_feature_columns(feature_columns)  # TF 1.x's shared embeddings: one table
    net = tf_keras.layers.DenseFeatures(columns, name="input_layer")(inputs)
    for index, size in enumerate(hidden_units):
        net = tf_keras.layers.Dense(size, activation=activation_fn, name=f"hiddenlayer_{index}")(net)
        if dropout:
            net = tf_keras.layers.Dropout(dropout, name=f"dropout_{index}")(net)
        if batch_norm:
            net = tf_keras.layers.BatchNormalization(momentum=BATCH_NORM_MOMENTUM, name=f"batchnorm_{index}")(net)
    return tf_keras.layers.Dense(units, name="logits")(net)


def _linear_logits(inputs, feature_columns, units, sparse_combiner):
    return LinearModel(feature_columns, units, sparse_combiner, name="linear_model")(inputs)


def _version(v1: bool) -> str:
    return "v1" if v1 else "v2"


def _classifier_units(n_classes: int, multi_label: bool = False) -> int:
    if n_classes < 2:
        raise ValueError(f"n_classes must be at least 2, got {n_classes}")
    return 1 if n_classes == 2 and not multi_label else n_classes


def _compile(model, optimizer, loss_reduction: str, n_classes: int | None = None, label_dimension=None,
             variables=None, multi_label: bool = False):
    """Attach the Estimator head's loss and the optimizer, and create the optimizer's slots now."""
    loss_weight = 1.0
    if multi_label:
        # Keras's binary cross entropy averages over the last axis: the classes, as MultiLabelHead did.
        loss = tf_keras.losses.BinaryCrossentropy(from_logits=True, reduction=loss_reduction)
        metrics = []
    elif n_classes == 2:
        loss = tf_keras.losses.BinaryCrossentropy(from_logits=True, reduction=loss_reduction)
        metrics = [tf_keras.metrics.BinaryAccuracy(name="accuracy", threshold=0.0)]
    elif n_classes is not None:
        loss = tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=loss_reduction)
        metrics = [tf_keras.metrics.SparseCategoricalAccuracy(name="accuracy")]
    else:
        loss = tf_keras.losses.MeanSquaredError(reduction=loss_reduction)
        metrics = [tf_keras.metrics.MeanSquaredError(name="average_loss")]
        if loss_reduction == V1_HEAD_REDUCTION:
            # Keras averages the squared error over the label dimension; a head's sum adds every element.
            loss_weight = float(label_dimension)
    model.compile(optimizer=optimizer, loss=loss, loss_weights=[loss_weight], metrics=metrics)
    model.optimizer.build(model.trainable_variables if variables is None else variables)
    return model


# `CannedHead._set_head`'s parameters, each saved in the model's config under its name
_HEAD_SETTINGS = ("label_vocabulary", "weight_column", "head_version", "multi_label", "thresholds", "head_name")


class CannedHead:
    """The canned head's handling of labels and weights, which every compat.canned model has, in `fit` and in
    custom loops (`compute_loss`) alike:
    - `label_vocabulary` (a classifier's class names): string labels are looked up as class ids before the
      loss and the metrics see them; a label outside the vocabulary is an error, as in the Estimator;
    - `weight_column` (a feature name or `numeric_column`): each example's loss and metrics are weighted by
      that feature, as the Estimator's head weighted them (v1 heads: weighted sum; v2: weighted sum over
      the batch size).
    (A mixin, not a Model subclass: Keras rewrites the bases of a class it builds as functional.)
    """

    def _set_head(self, label_vocabulary=None, weight_column=None, head_version=None, multi_label=False,
                  thresholds=(), head_name=None) -> None:
        self.head_version = head_version  # None (saved before it was recorded): the loss's reduction says
        self.multi_label = multi_label
        self.thresholds = _checked_thresholds(thresholds)
        self.head_name = head_name or None
        self.label_vocabulary = None if label_vocabulary is None else tuple(label_vocabulary)
        if isinstance(weight_column, str):
            weight_column = tf.feature_column.numeric_column(weight_column, shape=(1,))
        if weight_column is not None and type(weight_column).__name__ != "NumericColumn":
            raise TypeError(f"weight_column must be a feature name or a numeric_column, got {weight_column!r}")
        self.weight_column = weight_column

    def _head_config(self) -> dict:
        weight_column = self.weight_column
        return {
            "label_vocabulary": None if self.label_vocabulary is None else list(self.label_vocabulary),
            "weight_column": None if weight_column is None
            else tf.__internal__.feature_column.serialize_feature_column(weight_column),
            "head_version": self.head_version,
            "multi_label": self.multi_label,
            "thresholds": list(self.thresholds),
            "head_name": self.head_name,
        }

    @staticmethod
    def _pop_head_config(config: dict) -> dict:
        """The head's settings taken out of a saved config, as `_set_head`'s keyword arguments (a setting saved
        before it was recorded keeps its default)."""
        head = {key: config.pop(key) for key in _HEAD_SETTINGS if key in config}
        if head.get("weight_column") is not None:
            head["weight_column"] = tf.__internal__.feature_column.deserialize_feature_column(head["weight_column"])
        return head

    def example_weights(self, features):
        """Each example's weight ([batch, 1], float32) from the features; None without a weight_column."""
        if self.weight_column is None:
            return None
        cache = tf.__internal__.feature_column.FeatureTransformationCache(features)
        weights = tf.cast(self.weight_column.get_dense_tensor(cache, None), tf.float32)
        batch = tf.shape(tf.nest.flatten(features)[0])[0]
        tf.debugging.assert_equal(
            tf.size(weights), batch,
            message=f"weight_column {self.weight_column.key!r}: one weight per example ([batch] or [batch, 1])",
        )
        return tf.reshape(weights, (-1, 1))

    def label_ids(self, labels):
        """Class ids ([batch, 1], int64) of labels given as vocabulary strings; other labels as they are."""
        if self.label_vocabulary is None or labels is None:
            return labels
        labels = tf.reshape(tf.convert_to_tensor(labels), (-1, 1))
        if labels.dtype != tf.string:
            raise ValueError(f"labels must be strings when there is a label_vocabulary; got {labels.dtype.name}")
        matches = tf.equal(labels, tf.constant(self.label_vocabulary))
        known = tf.reduce_any(matches, axis=1)
        tf.debugging.Assert(
            tf.reduce_all(known),
            [f"labels not in label_vocabulary ({', '.join(self.label_vocabulary)}):", tf.boolean_mask(labels, ~known)],
        )
        return tf.argmax(tf.cast(matches, tf.int32), axis=1, output_type=tf.int64)[:, None]

    def head_labels(self, labels, logits):
        """The labels as the head's loss and metrics read them: class ids of vocabulary strings (`label_ids`); a
        multi-label head's SparseTensor of class ids as multi-hot rows, as MultiLabelHead took it."""
        if getattr(self, "multi_label", False) and isinstance(labels, tf.SparseTensor):
            n_classes = logits.shape[-1]
            message = f"labels must be an integer SparseTensor with values in [0, {n_classes})"
            tf.debugging.assert_non_negative(labels.values, message=message)
            tf.debugging.assert_less(labels.values, tf.cast(n_classes, labels.values.dtype), message=message)
            return tf.cast(tf.sparse.to_indicator(labels, n_classes), tf.int64)
        return self.label_ids(labels)

    def train_step(self, data):
        with step_count.after_the_batch(data):
            return super().train_step(data)

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None):
        if sample_weight is None:
            sample_weight = self.example_weights(x)
        return super().compute_loss(x, self.head_labels(y, y_pred), y_pred, sample_weight)

    def compute_metrics(self, x, y, y_pred, sample_weight):
        if sample_weight is None:
            sample_weight = self.example_weights(x)
        return super().compute_metrics(x, self.head_labels(y, y_pred), y_pred, sample_weight)


@tf_keras.saving.register_keras_serializable(package="compat.canned")
class CannedModel(CannedHead, tf_keras.Model):
    """A functional model with the canned head (`CannedHead`). `model.save("m.keras")` keeps all of it, and
    loads where `compat.canned` is imported. To serve the model where only tf_keras is, save
    `inference_model(model)` instead: built-in layers only."""

    # Functional's own positional arguments, the head's keyword-only: Keras then saves and re-creates the
    # graph as a functional model's (`get_config`, `from_config`).
    def __init__(self, inputs, outputs, name=None, trainable=True, *,
                 label_vocabulary: Sequence[str] | None = None, weight_column=None, head_version: str | None = None,
                 multi_label: bool = False, thresholds: Sequence[float] = (), head_name: str | None = None,
                 **kwargs):
        super().__init__(inputs, outputs, name=name, trainable=trainable, **kwargs)
        self._set_head(label_vocabulary, weight_column, head_version, multi_label, thresholds, head_name)

    def get_config(self):
        return {**super().get_config(), **self._head_config()}  # the functional graph, the head

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        head = cls._pop_head_config(config)
        model = super().from_config(config, custom_objects)  # the graph, as a cls with the default head
        model._set_head(**head)
        return model


def _checked_thresholds(thresholds) -> tuple[float, ...]:
    thresholds = tuple(float(threshold) for threshold in thresholds or ())
    if any(not 0.0 < threshold < 1.0 for threshold in thresholds):
        raise ValueError(f"thresholds must be in (0, 1): {thresholds}")
    return thresholds


def _check_head(label_vocabulary, n_classes: int, multi_label: bool, thresholds) -> None:
    _check_vocabulary(label_vocabulary, n_classes, multi_label)
    if thresholds and n_classes > 2 and not multi_label:
        raise ValueError("thresholds are a binary or multi-label head's: a multi-class head has none")


def _check_vocabulary(label_vocabulary, n_classes: int, multi_label: bool = False) -> None:
    if multi_label and label_vocabulary is not None:
        raise ValueError("a multi-label classifier takes multi-hot labels or a SparseTensor of class ids: "
                         "label_vocabulary is not migrated for it (look the names up as ids in the input_fn)")
    if label_vocabulary is not None and len(label_vocabulary) != n_classes:
        raise ValueError(
            f"label_vocabulary has {len(label_vocabulary)} items, n_classes is {n_classes}: they must agree"
        )


def dnn_classifier(
    feature_columns: Sequence,
    hidden_units: Sequence[int],
    n_classes: int = 2,
    optimizer: tf_keras.optimizers.Optimizer | str | None = None,
    activation_fn=tf.nn.relu,
    dropout: float | None = None,
    batch_norm: bool = False,
    label_vocabulary: Sequence[str] | None = None,
    weight_column=None,
    loss_reduction: str = V2_HEAD_REDUCTION,
    head_version: str | None = None,
    multi_label: bool = False,
    thresholds: Sequence[float] = (),
    head_name: str | None = None,
) -> CannedModel:
    """A compiled model equivalent to a canned `DNNClassifier`; binary (`n_classes=2`) has one logit
    (`multi_label`: a DNNEstimator's MultiLabelHead, one logit per class; `thresholds`: a binary or multi-label
    head's, whose evaluation adds accuracy, precision and recall at each; `head_name`: a named head's, whose
    metrics are keyed `<metric>/<name>`)."""
    _check_head(label_vocabulary, n_classes, multi_label, thresholds)
    v1 = is_v1_head(loss_reduction, head_version)
    inputs = feature_inputs(feature_columns)
    logits = _dnn_logits(
        inputs, feature_columns, hidden_units, _classifier_units(n_classes, multi_label), activation_fn, dropout,
        batch_norm
    )
    model = CannedModel(inputs=inputs, outputs=logits, name="dnn", label_vocabulary=label_vocabulary,
                        weight_column=weight_column, head_version=_version(v1), multi_label=multi_label,
                        thresholds=thresholds, head_name=head_name)
    return _compile(model, _dnn_optimizer(optimizer, v1), loss_reduction, n_classes, multi_label=multi_label)


def dnn_regressor(
    feature_columns: Sequence,
    hidden_units: Sequence[int],
    label_dimension: int = 1,
    optimizer: tf_keras.optimizers.Optimizer | str | None = None,
    activation_fn=tf.nn.relu,
    dropout: float | None = None,
    batch_norm: bool = False,
    weight_column=None,
    loss_reduction: str = V2_HEAD_REDUCTION,
    head_version: str | None = None,
    head_name: str | None = None,
) -> CannedModel:
    """A compiled model equivalent to a canned `DNNRegressor` (squared-error head; `head_name`: a named head's,
    whose metrics are keyed `<metric>/<name>`)."""
    v1 = is_v1_head(loss_reduction, head_version)
    inputs = feature_inputs(feature_columns)
    logits = _dnn_logits(inputs, feature_columns, hidden_units, label_dimension, activation_fn, dropout, batch_norm)
    model = CannedModel(inputs=inputs, outputs=logits, name="dnn", weight_column=weight_column,
                        head_version=_version(v1), head_name=head_name)
    return _compile(model, _dnn_optimizer(optimizer, v1), loss_reduction, label_dimension=label_dimension)


def linear_classifier(
    feature_columns: Sequence,
    n_classes: int = 2,
    optimizer: tf_keras.optimizers.Optimizer | str | None = None,
    label_vocabulary: Sequence[str] | None = None,
    weight_column=None,
    loss_reduction: str = V2_HEAD_REDUCTION,
    head_version: str | None = None,
    sparse_combiner: str = "sum",
    multi_label: bool = False,
    thresholds: Sequence[float] = (),
    head_name: str | None = None,
) -> CannedModel:
    """A compiled model equivalent to a canned `LinearClassifier` (weights start at zero, as there;
    `multi_label`, `thresholds`: a LinearEstimator's head's, as `dnn_classifier`'s)."""
    _check_head(label_vocabulary, n_classes, multi_label, thresholds)
    v1 = is_v1_head(loss_reduction, head_version)
    inputs = feature_inputs(feature_columns)
    logits = _linear_logits(inputs, feature_columns, _classifier_units(n_classes, multi_label), sparse_combiner)
    model = CannedModel(inputs=inputs, outputs=logits, name="linear", label_vocabulary=label_vocabulary,
                        weight_column=weight_column, head_version=_version(v1), multi_label=multi_label,
                        thresholds=thresholds, head_name=head_name)
    optimizer = _linear_optimizer(optimizer, v1, feature_columns)
    return _compile(model, optimizer, loss_reduction, n_classes, multi_label=multi_label)


def linear_regressor(
    feature_columns: Sequence,
    label_dimension: int = 1,
    optimizer: tf_keras.optimizers.Optimizer | str | None = None,
    weight_column=None,
    loss_reduction: str = V2_HEAD_REDUCTION,
    head_version: str | None = None,
    sparse_combiner: str = "sum",
    head_name: str | None = None,
) -> CannedModel:
    """A compiled model equivalent to a canned `LinearRegressor` (weights start at zero, as there)."""
    v1 = is_v1_head(loss_reduction, head_version)
    inputs = feature_inputs(feature_columns)
    logits = _linear_logits(inputs, feature_columns, label_dimension, sparse_combiner)
    model = CannedModel(inputs=inputs, outputs=logits, name="linear", weight_column=weight_column,
                        head_version=_version(v1), head_name=head_name)
    optimizer = _linear_optimizer(optimizer, v1, feature_columns)
    return _compile(model, optimizer, loss_reduction, label_dimension=label_dimension)


@tf_keras.saving.register_keras_serializable(package="compat.canned")
class DNNLinearCombinedModel(CannedModel):
    """A canned model trained by two optimizers, as `DNNLinearCombined*` estimators are.

    `optimizer` (from `compile`) trains the DNN; `linear_optimizer` trains the `linear_model` layer. Both
    are tracked by the model, so `tf.train.Checkpoint(model=model, optimizer=model.optimizer)` holds both.
    `model.save` keeps the linear optimizer's settings, not its state (that is the checkpoint's).
    """

    def __init__(self, inputs, outputs, name=None, trainable=True, *, linear_optimizer=None, **kwargs):
        super().__init__(inputs, outputs, name, trainable, **kwargs)
        self.linear_optimizer = linear_optimizer

    def get_config(self):
        return {**super().get_config(), "linear_optimizer": tf_keras.optimizers.serialize(self.linear_optimizer)}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        linear_optimizer = config.pop("linear_optimizer", None)
        model = super().from_config(config, custom_objects)
        if linear_optimizer is not None:
            model.linear_optimizer = tf_keras.optimizers.deserialize(linear_optimizer, custom_objects)
        return model

    @property
    def linear_variables(self) -> list[tf.Variable]:
        return self.get_layer("linear_model").trainable_variables

    @property
    def dnn_variables(self) -> list[tf.Variable]:
        linear = {id(v) for v in self.linear_variables}
        return [v for v in self.trainable_variables if id(v) not in linear]

    def train_step(self, data):
        with step_count.after_the_batch(data):
            return self._two_optimizers_step(data)

    def _two_optimizers_step(self, data):
        x, y, sample_weight = tf_keras.utils.unpack_x_y_sample_weight(data)
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x, y, y_pred, sample_weight)
        dnn_variables, linear_variables = self.dnn_variables, self.linear_variables
        dnn_gradients, linear_gradients = tape.gradient(loss, [dnn_variables, linear_variables])
        self.optimizer.apply_gradients(zip(dnn_gradients, dnn_variables))
        self.linear_optimizer.apply_gradients(zip(linear_gradients, linear_variables))
        return self.compute_metrics(x, y, y_pred, sample_weight)


def _dnn_linear_combined(linear_feature_columns, dnn_feature_columns, dnn_hidden_units, units,
                         linear_optimizer, dnn_optimizer, dnn_activation_fn, dnn_dropout, batch_norm,
                         loss_reduction, head_version, head, weight_column, label_vocabulary=None,
                         linear_sparse_combiner="sum"):
    multi_label = head.get("multi_label", False)
    thresholds, head_name = head.pop("thresholds", ()), head.pop("head_name", None)
    if not linear_feature_columns or not dnn_feature_columns:
        raise ValueError("both linear_feature_columns and dnn_feature_columns are needed")
    v1 = is_v1_head(loss_reduction, head_version)
    inputs = feature_inputs(list(linear_feature_columns) + list(dnn_feature_columns))
    dnn = _dnn_logits(inputs, dnn_feature_columns, dnn_hidden_units, units, dnn_activation_fn, dnn_dropout,
                      batch_norm)
    linear = _linear_logits(inputs, linear_feature_columns, units, linear_sparse_combiner)
    logits = tf_keras.layers.Add(name="add_logits")([dnn, linear])
    model = DNNLinearCombinedModel(
        inputs=inputs, outputs=logits, name="dnn_linear_combined", label_vocabulary=label_vocabulary,
        weight_column=weight_column, head_version=_version(v1), multi_label=multi_label, thresholds=thresholds,
        head_name=head_name, linear_optimizer=_linear_optimizer(linear_optimizer, v1, linear_feature_columns, combined=True),
    )
    dnn_optimizer = _dnn_optimizer(dnn_optimizer, v1, combined=True)
    _compile(model, dnn_optimizer, loss_reduction,
             variables=model.dnn_variables, **head)
    model.linear_optimizer.build(model.linear_variables)
    return model


def dnn_linear_combined_classifier(
    linear_feature_columns: Sequence,
    dnn_feature_columns: Sequence,
    dnn_hidden_units: Sequence[int],
    n_classes: int = 2,
    linear_optimizer: tf_keras.optimizers.Optimizer | str | None = None,
    dnn_optimizer: tf_keras.optimizers.Optimizer | str | None = None,
    dnn_activation_fn=tf.nn.relu,
    dnn_dropout: float | None = None,
    batch_norm: bool = False,
    label_vocabulary: Sequence[str] | None = None,
    weight_column=None,
    loss_reduction: str = V2_HEAD_REDUCTION,
    head_version: str | None = None,
    linear_sparse_combiner: str = "sum",
    multi_label: bool = False,
    thresholds: Sequence[float] = (),
    head_name: str | None = None,
) -> DNNLinearCombinedModel:
    """A compiled model equivalent to a canned `DNNLinearCombinedClassifier`: DNN logits + linear logits
    (`multi_label`, `thresholds`: a DNNLinearCombinedEstimator's head's, as `dnn_classifier`'s)."""
    _check_head(label_vocabulary, n_classes, multi_label, thresholds)
    return _dnn_linear_combined(
        linear_feature_columns, dnn_feature_columns, dnn_hidden_units, _classifier_units(n_classes, multi_label),
        linear_optimizer, dnn_optimizer, dnn_activation_fn, dnn_dropout, batch_norm, loss_reduction, head_version,
        {"n_classes": n_classes, "multi_label": multi_label, "thresholds": thresholds, "head_name": head_name},
        weight_column, label_vocabulary, linear_sparse_combiner,
    )


def dnn_linear_combined_regressor(
    linear_feature_columns: Sequence,
    dnn_feature_columns: Sequence,
    dnn_hidden_units: Sequence[int],
    label_dimension: int = 1,
    linear_optimizer: tf_keras.optimizers.Optimizer | str | None = None,
    dnn_optimizer: tf_keras.optimizers.Optimizer | str | None = None,
    dnn_activation_fn=tf.nn.relu,
    dnn_dropout: float | None = None,
    batch_norm: bool = False,
    weight_column=None,
    loss_reduction: str = V2_HEAD_REDUCTION,
    head_version: str | None = None,
    linear_sparse_combiner: str = "sum",
    head_name: str | None = None,
) -> DNNLinearCombinedModel:
    """A compiled model equivalent to a canned `DNNLinearCombinedRegressor`: DNN logits + linear logits."""
    return _dnn_linear_combined(
        linear_feature_columns, dnn_feature_columns, dnn_hidden_units, label_dimension,
        linear_optimizer, dnn_optimizer, dnn_activation_fn, dnn_dropout, batch_norm, loss_reduction, head_version,
        {"label_dimension": label_dimension, "head_name": head_name}, weight_column, linear_sparse_combiner=linear_sparse_combiner,
    )


def _head_twin(head, what: str) -> tuple[str, dict]:
    """A head-based canned estimator's head (compat.estimator_heads', what the rewrite makes of tf.estimator's and
    tf.contrib.estimator's): ("classifier" | "regressor", that builder's head arguments), or one error."""
    twin = getattr(head, "canned_twin", None)
    if twin is None:
        raise TypeError(f"{what}(head={head!r}): the head must be one of tf.estimator's heads (migrated: "
                        "compat.estimator_heads)")
    return twin()


def dnn_estimator(head, hidden_units: Sequence[int], feature_columns: Sequence, optimizer=None,
                  activation_fn=tf.nn.relu, dropout: float | None = None, batch_norm: bool = False) -> CannedModel:
    """A compiled model equivalent to a head-based `DNNEstimator`: the DNNClassifier or DNNRegressor of its head
    (the same network, variable names and head), checked when the program runs."""
    kind, arguments = _head_twin(head, "DNNEstimator")
    builder = dnn_classifier if kind == "classifier" else dnn_regressor
    return builder(feature_columns=feature_columns, hidden_units=hidden_units, optimizer=optimizer,
                   activation_fn=activation_fn, dropout=dropout, batch_norm=batch_norm, **arguments)


def linear_estimator(head, feature_columns: Sequence, optimizer=None, sparse_combiner: str = "sum") -> CannedModel:
    """A compiled model equivalent to a head-based `LinearEstimator`: the LinearClassifier or LinearRegressor of
    its head, checked when the program runs."""
    kind, arguments = _head_twin(head, "LinearEstimator")
    builder = linear_classifier if kind == "classifier" else linear_regressor
    return builder(feature_columns=feature_columns, optimizer=optimizer, sparse_combiner=sparse_combiner,
                   **arguments)


def dnn_linear_combined_estimator(head, linear_feature_columns: Sequence, dnn_feature_columns: Sequence,
                                  dnn_hidden_units: Sequence[int], linear_optimizer=None, dnn_optimizer=None,
                                  dnn_activation_fn=tf.nn.relu, dnn_dropout: float | None = None,
                                  batch_norm: bool = False,
                                  linear_sparse_combiner: str = "sum") -> DNNLinearCombinedModel:
    """A compiled model equivalent to a head-based `DNNLinearCombinedEstimator`: the DNNLinearCombinedClassifier or
    Regressor of its head, checked when the program runs."""
    kind, arguments = _head_twin(head, "DNNLinearCombinedEstimator")
    builder = dnn_linear_combined_classifier if kind == "classifier" else dnn_linear_combined_regressor
    return builder(linear_feature_columns=linear_feature_columns, dnn_feature_columns=dnn_feature_columns,
                   dnn_hidden_units=dnn_hidden_units, linear_optimizer=linear_optimizer, dnn_optimizer=dnn_optimizer,
                   dnn_activation_fn=dnn_activation_fn, dnn_dropout=dnn_dropout, batch_norm=batch_norm,
                   linear_sparse_combiner=linear_sparse_combiner, **arguments)


def baseline_estimator(head, optimizer=None) -> BaselineModel:
    """A compiled model equivalent to a head-based `BaselineEstimator`: the BaselineClassifier or
    BaselineRegressor of its head, checked when the program runs."""
    kind, arguments = _head_twin(head, "BaselineEstimator")
    if optimizer is not None:  # (the baselines' own default otherwise: Ftrl at 0.3)
        arguments["optimizer"] = optimizer
    return (baseline_classifier if kind == "classifier" else baseline_regressor)(**arguments)


def has_categorical_features(model) -> bool:
    """Whether a `compat.canned` model reads a feature through a non-numeric column (categorical,
    bucketized, indicator, embedding): `migrate convert-checkpoint` cannot rebuild such a model from the
    checkpoint alone (`compat.canned_checkpoint` converts it with the program's model)."""
    layers = getattr(model, "layers", [])
    columns = [c for layer in layers if isinstance(layer, (LinearModel, tf_keras.layers.DenseFeatures))
               for c in (layer.feature_columns if isinstance(layer, LinearModel) else layer._feature_columns)]
    return any(type(column).__name__ != "NumericColumn" for column in columns)


def inference_model(model: tf_keras.Model) -> tf_keras.Model:
    """A functional model of built-in tf_keras layers only (features dict -> the same logits), holding the
    model's current weights, without optimizer: `inference_model(model).save("m.keras")` gives a file that
    `tf_keras.models.load_model` re-creates in a process that never imports this package. What
    `convert-checkpoint` writes as model.keras.

    The DNN layers are shared as they are. The linear part (`LinearModel`, the Estimator's one weight per
    column) becomes `DenseFeatures` + `Dense` holding the same numbers (`_plain_linear_logits`).
    """
    try:
        linear = model.get_layer("linear_model")
    except ValueError:
        return tf_keras.Model(model.inputs, model.outputs, name=model.name)
    logits = _plain_linear_logits(linear, model.input)
    if isinstance(model, DNNLinearCombinedModel):
        dnn_logits, _ = model.get_layer("add_logits").input  # built as Add([dnn, linear])
        logits = tf_keras.layers.Add(name="add_logits")([dnn_logits, logits])
    return tf_keras.Model(model.inputs, logits, name=model.name)


def _plain_linear_logits(linear: LinearModel, inputs):
    """The linear model's logits through built-in layers, on `inputs`, holding `linear`'s current weights.

    A categorical column's weights combined over its ids are an `embedding_column` of the same table with the
    linear model's combiner (the same `safe_embedding_lookup_sparse`); a dense column's weights multiply it. So one
    `DenseFeatures` gives the dense columns ("linear_model"), another each categorical column's sum
    ("linear_model_sums": an embedding of a column may sit beside the column itself, under the same name),
    and one `Dense` layer applies the dense columns' weights, adds the sums through identity blocks, and
    adds the bias.
    """
    dense_columns = [c for c in linear.feature_columns if not _is_categorical(c)]
    sums = {  # the embedding column -> the linear model's categorical column it sums the weights of
        tf.feature_column.embedding_column(
            column, dimension=linear.units, combiner=linear.sparse_combiner, initializer=tf_keras.initializers.Zeros()
        ): column
        for column in linear.feature_columns if _is_categorical(column)
    }
    parts, blocks = [], []
    if dense_columns:
        dense_features = tf_keras.layers.DenseFeatures(dense_columns, name="linear_model")
        parts.append(dense_features(inputs))
        own = {variable.name: variable for variable in linear.variables}
        for variable in dense_features.variables:  # a dense column's own state (an embedding_column's table)
            variable.assign(own[variable.name])
        # DenseFeatures concatenates its columns in name order
        blocks += [linear.column_weights(c) for c in sorted(dense_columns, key=lambda c: c.name)]
    if sums:
        sum_features = tf_keras.layers.DenseFeatures(list(sums), name="linear_model_sums")
        parts.append(sum_features(inputs))
        for embedding in sorted(sums, key=lambda c: c.name):
            weights = linear.column_weights(sums[embedding])
            sum_features._state_manager.get_variable(embedding, "embedding_weights").assign(weights)
            blocks.append(tf.eye(linear.units, dtype=weights.dtype))
    net = parts[0] if len(parts) == 1 else tf_keras.layers.Concatenate(name="linear_inputs")(parts)
    dense = tf_keras.layers.Dense(linear.units, name="linear_logits")
    logits = dense(net)
    dense.kernel.assign(tf.concat(blocks, axis=0))
    dense.bias.assign(linear.bias)
    return logits


def model_optimizers(model: tf_keras.Model) -> dict[str, tf_keras.optimizers.Optimizer]:
    """The optimizer of each part of a canned model: {"dnn": ...} / {"linear": ...} / both / {"baseline": ...}."""
    if isinstance(model, DNNLinearCombinedModel):
        return {"dnn": model.optimizer, "linear": model.linear_optimizer}
    part = model.name if model.name in ("linear", "baseline") else "dnn"
    return {part: model.optimizer}


@tf_keras.saving.register_keras_serializable(package="compat.canned")
class BaselineModel(CannedHead, tf_keras.Model):
    """The model of a canned `BaselineClassifier` / `BaselineRegressor`: one trainable bias per output
    (`baseline/bias`, zero at first, as the Estimator's), which is every example's logits whatever its
    features. The batch size comes from the features (all but the weight column, whose batch sizes must
    agree), as the Estimator's baseline read it. A subclassed model: it takes any features dict."""

    def __init__(self, units: int, name: str = "baseline", trainable: bool = True, *,
                 label_vocabulary: Sequence[str] | None = None, weight_column=None, head_version: str | None = None,
                 multi_label: bool = False, thresholds: Sequence[float] = (), head_name: str | None = None,
                 **kwargs):
        super().__init__(name=name, trainable=trainable, **kwargs)  # subclassed: no inputs to declare
        self._set_head(label_vocabulary, weight_column, head_version, multi_label, thresholds, head_name)
        self.units = units
        with tf.name_scope(name):
            self.bias = self.add_weight(name="bias", shape=(units,), initializer="zeros")

    def call(self, features, training=None):
        return tf.math.multiply(self.bias, tf.ones(tf.stack([self._batch_size(features), self.units])))

    def _batch_size(self, features):
        if not isinstance(features, dict):
            return tf.shape(features)[0]
        weight_key = None if self.weight_column is None else self.weight_column.key
        sizes = [tf.shape(value)[0] for key, value in features.items() if key != weight_key]
        if not sizes:
            raise ValueError("a baseline model needs at least one feature besides the weight column: its batch "
                             "size is the number of examples")
        for size in sizes[1:]:
            tf.debugging.assert_equal(sizes[0], size, message="features of different batch sizes")
        return sizes[0]

    def get_config(self):
        return {"units": self.units, "name": self.name, "trainable": self.trainable, **self._head_config()}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        head = cls._pop_head_config(config)
        return cls(**config, **head)


def baseline_classifier(
    n_classes: int = 2,
    optimizer: tf_keras.optimizers.Optimizer | str = "Ftrl",
    label_vocabulary: Sequence[str] | None = None,
    weight_column=None,
    loss_reduction: str = V2_HEAD_REDUCTION,
    head_version: str | None = None,
    multi_label: bool = False,
    thresholds: Sequence[float] = (),
    head_name: str | None = None,
) -> BaselineModel:
    """A compiled model equivalent to a canned `BaselineClassifier`: it learns each class's share of the labels
    (binary: one logit; `multi_label`, `thresholds`: a BaselineEstimator's head's, as `dnn_classifier`'s). A name
    as optimizer gets learning rate 0.3, as there."""
    _check_head(label_vocabulary, n_classes, multi_label, thresholds)
    v1 = is_v1_head(loss_reduction, head_version)
    model = BaselineModel(_classifier_units(n_classes, multi_label), label_vocabulary=label_vocabulary,
                          weight_column=weight_column, head_version=_version(v1), multi_label=multi_label,
                          thresholds=thresholds, head_name=head_name)
    return _compile(model, estimator_optimizer(optimizer, v1, BASELINE_LEARNING_RATE), loss_reduction, n_classes,
                    multi_label=multi_label)


def baseline_regressor(
    label_dimension: int = 1,
    optimizer: tf_keras.optimizers.Optimizer | str = "Ftrl",
    weight_column=None,
    loss_reduction: str = V2_HEAD_REDUCTION,
    head_version: str | None = None,
    head_name: str | None = None,
) -> BaselineModel:
    """A compiled model equivalent to a canned `BaselineRegressor`: it learns the labels' mean (squared-error
    head). A name as optimizer gets learning rate 0.3, as there."""
    v1 = is_v1_head(loss_reduction, head_version)
    model = BaselineModel(label_dimension, weight_column=weight_column, head_version=_version(v1),
                          head_name=head_name)
    optimizer = estimator_optimizer(optimizer, v1, BASELINE_LEARNING_RATE)
    return _compile(model, optimizer, loss_reduction, label_dimension=label_dimension)


@dataclass(frozen=True)
class Head:
    kind: str  # "binary", "multi_class", "multi_label" or "regression"
    v1: bool  # a tf.compat.v1.estimator head (its AUC is tf.compat.v1.metrics.auc's) rather than tf.estimator's
    summed: bool  # the loss summed over the batch (loss_reduction "sum") rather than averaged
    label_vocabulary: tuple[str, ...] | None = None  # a classifier's class names (None: "0", "1", ...)
    thresholds: tuple[float, ...] = ()  # a binary or multi-label head's: accuracy, precision and recall at each
    name: str | None = None  # a named head's: its metrics are keyed `<metric>/<name>`


def head_of(model: tf_keras.Model) -> Head:
    """The canned head a `compat.canned` model was compiled with."""
    loss = model.loss
    kinds = {
        tf_keras.losses.BinaryCrossentropy: "binary",
        tf_keras.losses.SparseCategoricalCrossentropy: "multi_class",
        tf_keras.losses.MeanSquaredError: "regression",
    }
    if type(loss) not in kinds:
        raise ValueError(f"model {model.name!r} was not built by compat.canned (loss: {loss!r})")
    summed = loss.reduction == V1_HEAD_REDUCTION
    version = getattr(model, "head_version", None)
    kind = "multi_label" if getattr(model, "multi_label", False) else kinds[type(loss)]
    return Head(kind, summed if version is None else version == "v1", summed,
                getattr(model, "label_vocabulary", None), tuple(getattr(model, "thresholds", ())),
                getattr(model, "head_name", None))
