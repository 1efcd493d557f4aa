"""Estimator heads in a model_fn kept as written (tier 2, compat.wrapped_model_fns).

A custom model_fn often leaves its loss, metrics, predictions and exports to a head:

    head = tf.estimator.BinaryClassHead()                       # TensorFlow 2's heads
    head = tf.contrib.estimator.binary_classification_head()    # TensorFlow 1.x's
    return head.create_estimator_spec(features=features, mode=mode, labels=labels, logits=logits,
                                      train_op_fn=lambda loss: optimizer.minimize(loss, global_step))

TensorFlow >= 2.16 has neither. The rewrite names the heads here (`estimator_heads.BinaryClassHead`,
`estimator_heads.binary_classification_head`, the same arguments), and each builds, in the model_fn's TF1 graph,
what the Estimator's head built: the same loss (labels reshaped and looked up in `label_vocabulary`, example
weights from `weight_column`, the reduction), predictions, export outputs and evaluation metrics under the same
keys (suffixed `/<name>` for a named head), the train_op from `train_op_fn` or a TF1 optimizer's
`minimize(loss, global_step)`, the same summaries.

The two generations differ where their Estimators did, and each keeps its own: TensorFlow 1.x's heads
(`tf.contrib.estimator.*_head`) computed their metrics with `tf.compat.v1.metrics` (AUC-PR by the trapezoidal
rule, accuracy at a threshold counting `>=`), added the graph's UPDATE_OPS to the train_op, and took a TF1
optimizer; TensorFlow 2's heads computed them as Keras metrics do (AUC-PR interpolated, accuracy at a threshold
counting `>`) and took a Keras optimizer, which `optimizer.get_updates` applied without counting steps (here: one
error saying to give `train_op_fn`).
"""

from __future__ import annotations

import collections
import contextlib
import inspect

import tensorflow as tf
from tensorflow.python.ops import lookup_ops  # TF1's vocabulary tables (tf.compat.v1.lookup has not these)

from .estimator_training import ModeKeys
from .wrapped_model_fns import ClassificationOutput, EstimatorSpec, PredictOutput, RegressionOutput

# Reductions by the names both generations spelled them (tf.compat.v1.losses.Reduction, tf.keras.losses.Reduction)
_REDUCTIONS = {
    "weighted_sum": "weighted_sum", "sum": "weighted_sum",
    "weighted_sum_over_batch_size": "weighted_sum_over_batch_size",
    "sum_over_batch_size": "weighted_sum_over_batch_size", "auto": "weighted_sum_over_batch_size",
    "weighted_mean": "weighted_mean", "weighted_sum_by_nonzero_weights": "weighted_sum_by_nonzero_weights",
}
_V2_REDUCTIONS = ("weighted_sum", "weighted_sum_over_batch_size")
SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"

_SERVING_KEYS = {"default": "serving_default", "classify": "classification", "regress": "regression",
                 "predict": "predict"}


class _Head:
    """What the heads share: example weights, the reduced loss, the spec for each mode."""

    def __init__(self, weight_column=None, loss_reduction=SUM_OVER_BATCH_SIZE, loss_fn=None, name=None, v1=False):
        reduction = _REDUCTIONS.get(str(loss_reduction))
        if reduction is None or (not v1 and reduction not in _V2_REDUCTIONS):
            raise ValueError(f"Invalid loss_reduction: {loss_reduction}")
        self._weight_column = weight_column
        self._reduction = reduction
        self._loss_reduction = loss_reduction
        self._loss_fn = loss_fn
        self._name = name
        self._v1 = v1

    @property
    def name(self):
        return self._name

    @property
    def loss_reduction(self):
        return self._loss_reduction

    def _key(self, key: str) -> str:
        return f"{key}/{self._name}" if self._name else key

    def _check_logits(self, logits):
        logits = tf.convert_to_tensor(logits)
        if logits.shape.rank is not None and logits.shape[-1] is not None \
                and logits.shape[-1] != self.logits_dimension:
            raise ValueError(f"logits shape must be [D0, D1, ... DN, logits_dimension], got {logits.shape}.")
        return logits

    def _dense_labels(self, labels, logits, dimension):
        """`labels` of shape [D0, ... DN] or [D0, ... DN, dimension], as [D0, ... DN, dimension]."""
        if labels is None:
            raise ValueError("You must provide a labels Tensor. Given: None. Suggested troubleshooting steps: "
                             "Check that your data contain your label feature. Check that your input_fn properly "
                             "parses and returns labels.")
        if isinstance(labels, tf.SparseTensor):
            raise ValueError(f"SparseTensor labels are not supported. labels must be a Tensor of shape "
                             f"[D0, D1, ..., DN, {dimension}], got a SparseTensor")
        labels = tf.convert_to_tensor(labels)
        if labels.shape.rank is not None and logits.shape.rank is not None \
                and labels.shape.rank == logits.shape.rank - 1:
            labels = tf.expand_dims(labels, -1)
        if labels.shape.rank is not None and labels.shape[-1] is not None and labels.shape[-1] != dimension:
            raise ValueError(f"Mismatched label shape. Expected labels dimension={dimension}. "
                             f"Received {labels.shape[-1]}.")
        return labels

    def _weights(self, features, logits, per_logit: bool = False):
        """The example weights `weight_column` reads from the features (1.0 without one), shaped as the
        logits' [D0, ... DN, 1] (or per logit, where the head allows it)."""
        if self._weight_column is None:
            return 1.0
        column = self._weight_column
        key = column if isinstance(column, str) else column.key
        if key not in features:
            raise ValueError(f"weight_column {key!r} is not in the features: {sorted(features)}")
        weights = tf.cast(features[key], tf.float32)
        normalizer = None if isinstance(column, str) else getattr(column, "normalizer_fn", None)
        if normalizer is not None:
            weights = normalizer(weights)
        if weights.shape.rank is not None and logits.shape.rank is not None:
            if weights.shape.rank == logits.shape.rank - 1:
                weights = tf.expand_dims(weights, -1)
            elif weights.shape[-1] is not None and weights.shape[-1] != 1 \
                    and not (per_logit and weights.shape[-1] == self.logits_dimension):
                raise ValueError(f"weights shape must be [D0, D1, ... DN]{' or [D0, D1, ... DN, logits_dimension]' * per_logit}"
                                 f" or [D0, D1, ... DN, 1], got {weights.shape}")
        return weights

    def _loss_of(self, labels, logits, features, default):
        if self._loss_fn is None:
            return default(labels, logits)
        # the Estimator's heads gave a loss_fn the features when it names them
        if "features" in inspect.signature(self._loss_fn).parameters:
            return self._loss_fn(labels=labels, logits=logits, features=features)
        return self._loss_fn(labels=labels, logits=logits)

    def _losses(self, features, logits, labels):
        """(training loss, unreduced loss, weights, processed labels)."""
        labels = self._processed_labels(logits, labels)
        unreduced = self._unreduced_loss(labels, logits, features)
        weights = self._weights(features, logits, per_logit=self._per_logit_weights)
        # (TensorFlow 1.x's heads put it in the LOSSES collection, as tf.compat.v1.losses does; TensorFlow 2's not)
        collection = tf.compat.v1.GraphKeys.LOSSES if self._v1 else None
        training = tf.compat.v1.losses.compute_weighted_loss(unreduced, weights=weights, reduction=self._reduction,
                                                             loss_collection=collection)
        return training, unreduced, weights, labels

    _per_logit_weights = False

    def loss(self, labels, logits, features=None, mode=None, regularization_losses=None):
        """TensorFlow 2's `Head.loss`: the reduced, regularized training loss."""
        training, *_ = self._losses(features, self._check_logits(logits), labels)
        return training + tf.math.add_n(regularization_losses) if regularization_losses is not None else training

    def create_loss(self, features, mode, logits, labels):
        """TensorFlow 1.x's `_Head.create_loss`: (training_loss, unreduced_loss, weights, processed_labels)."""
        return LossSpec(*self._losses(features, self._check_logits(logits), labels))

    def canned_twin(self) -> tuple[str, dict]:
        """What a head-based canned estimator given this head is (DNNEstimator(head=MultiClassHead(3)) is the
        DNNClassifier of n_classes=3, the same model, variables and head): ("classifier" | "regressor", the
        classifier's or regressor's head arguments), or one error naming what it has no twin for."""
        what = type(self).__name__
        reduction = {"weighted_sum": "sum", "weighted_sum_over_batch_size": "sum_over_batch_size"}.get(self._reduction)
        unmatched = [setting for setting, given in (
            ("loss_reduction", reduction is None), ("loss_fn", self._loss_fn is not None),
            ("classes_for_class_based_metrics", bool(getattr(self, "_metric_classes", ()))),
            ("label_vocabulary", isinstance(self, MultiLabelHead) and self._label_vocabulary is not None),
            ("inverse_link_fn", getattr(self, "_inverse_link_fn", None) is not None)) if given]
        kind = self._canned_kind
        if kind is None or unmatched:
            raise ValueError(
                f"a canned estimator given {what}{' with ' + ', '.join(unmatched) if unmatched else ''} is not "
                "migrated: the canned classifiers and regressors have no such head (a custom model_fn returning "
                "head.create_estimator_spec(...) is)")
        arguments = {"weight_column": self._weight_column, "loss_reduction": reduction,
                     "head_version": "v1" if self._v1 else "v2", "head_name": self._name, **self._canned_arguments()}
        return kind, arguments

    _canned_kind = None

    def predictions(self, logits, keys=None):
        """The head's predictions of `logits` (those of `keys`, when given)."""
        predictions = self._predictions(self._check_logits(logits))
        return predictions if not keys else {key: predictions[key] for key in keys}

    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None, trainable_variables=None,
                              train_op_fn=None, update_ops=None, regularization_losses=None):
        """The EstimatorSpec the Estimator's head returned for `mode`."""
        with tf.name_scope(self._name or "head"):
            logits = self._check_logits(logits)
            predictions = self._predictions(logits)
            if mode == ModeKeys.PREDICT:
                return EstimatorSpec(ModeKeys.PREDICT, predictions=predictions,
                                     export_outputs=self._export_outputs(predictions))
            training, unreduced, weights, labels = self._losses(features, logits, labels)
            given = regularization_losses if self._v1 else regularization_losses is not None
            regularization = tf.math.add_n(regularization_losses) if given else None
            loss = training + regularization if regularization is not None else training
            if mode == ModeKeys.EVAL:
                with tf.name_scope("metrics"):
                    metrics = self._metrics(labels, predictions, unreduced, weights)
                    if regularization is not None:
                        metrics[self._key("regularization_loss")] = tf.compat.v1.metrics.mean(regularization)
                return EstimatorSpec(ModeKeys.EVAL, predictions=predictions, loss=loss, eval_metric_ops=metrics)
            # (TensorFlow 1.x's heads also ran the graph's UPDATE_OPS with it)
            update_ops = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS) if self._v1 else update_ops
            train_op = _train_op(loss, optimizer, train_op_fn, update_ops, self._v1)
        with tf.name_scope(""):
            tf.compat.v1.summary.scalar(self._key("loss"), loss)
            if self._v1 and self._reduction == "weighted_sum":
                tf.compat.v1.summary.scalar(self._key("average_loss"),
                                            training / tf.reduce_sum(weights * tf.ones_like(unreduced)))
            if regularization is not None:
                tf.compat.v1.summary.scalar(self._key("regularization_loss"), regularization)
        return EstimatorSpec(ModeKeys.TRAIN, predictions=predictions, loss=loss, train_op=train_op)

def _train_op(loss, optimizer, train_op_fn, update_ops, v1: bool):
    """The train_op of a head's TRAIN spec: a TF1 optimizer's `minimize(loss, global_step)` or `train_op_fn(loss)`,
    grouped with `update_ops`. TensorFlow 2's heads made it in a `training` name scope of the graph's root, which
    names what the optimizer makes there (`training/beta1_power`); TensorFlow 1.x's in the head's scope."""
    if optimizer is not None and train_op_fn is not None:
        raise ValueError("train_op_fn and optimizer cannot both be set.")
    if optimizer is None and train_op_fn is None:
        raise ValueError("train_op_fn and optimizer cannot both be None.")
    if optimizer is not None and not isinstance(optimizer, tf.compat.v1.train.Optimizer):
        raise ValueError(
            f"create_estimator_spec(optimizer={type(optimizer).__name__}): a Keras optimizer, which TensorFlow 2's "
            "head applied with get_updates, is not migrated; give the head train_op_fn=lambda loss: "
            "tf.compat.v1.train.<Optimizer>(...).minimize(loss, global_step=tf.compat.v1.train.get_global_step()) "
            "instead")
    with contextlib.ExitStack() as scopes:
        if not v1:
            scopes.enter_context(tf.compat.v1.name_scope(""))
            scopes.enter_context(tf.compat.v1.name_scope("training"))
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step()) \
            if optimizer is not None else train_op_fn(loss)
        return tf.group(train_op, *update_ops) if update_ops else train_op


class _ClassifierHead(_Head):
    """What the classification heads share: class ids and names, and their export signatures."""

    _n_classes = 2
    _label_vocabulary = None

    def _class_ids(self, labels, vocabulary):
        """Labels as class ids: looked up in `vocabulary`, or integers checked to be in [0, n_classes)."""
        if vocabulary is not None:
            if labels.dtype != tf.string:
                raise ValueError(f"Labels dtype should be string if there is a vocabulary. Given: {labels.dtype}")
            labels = lookup_ops.index_table_from_tensor(tuple(vocabulary), name="class_id_lookup").lookup(labels)
        elif labels.dtype == tf.string:
            raise ValueError("Labels must be integers (or floats in [0, 1] for a binary head) when the head has no "
                             "label_vocabulary; got strings")
        checks = [tf.compat.v1.debugging.assert_less_equal(labels, tf.cast(self._n_classes - 1, labels.dtype),
                                                           message="Labels must be <= n_classes - 1"),
                  tf.compat.v1.debugging.assert_non_negative(labels, message="Labels must be >= 0")]
        with tf.control_dependencies(checks):
            return tf.identity(labels)

    def _classes(self, logits):
        """Each example's list of class names (the vocabulary, or "0", "1", ...)."""
        vocabulary = self._label_vocabulary
        names = tf.constant(list(vocabulary)) if vocabulary else tf.strings.as_string(tf.range(self._n_classes))
        return tf.tile(tf.expand_dims(names, 0), [tf.shape(logits)[0], 1])

    def _class_predictions(self, class_logits):
        """class_ids, classes (through the vocabulary), all_class_ids, all_classes of one logit per class."""
        class_ids = tf.expand_dims(tf.math.argmax(class_logits, axis=-1, name="class_ids"), -1)
        if self._label_vocabulary:
            classes = lookup_ops.index_to_string_table_from_tensor(
                self._label_vocabulary, name="class_string_lookup").lookup(class_ids)
        else:
            classes = tf.strings.as_string(class_ids, name="str_classes")
        return {"class_ids": class_ids, "classes": classes,
                "all_class_ids": tf.tile(tf.expand_dims(tf.range(self._n_classes), 0), [tf.shape(class_logits)[0], 1]),
                "all_classes": self._classes(class_logits)}

    _thresholds = ()

    def _threshold_metrics(self, labels, probabilities, weights) -> dict:
        """Accuracy, precision and recall at each of the head's thresholds."""
        metrics = {}
        labels = tf.cast(labels, tf.float32)
        for threshold in self._thresholds:
            # TensorFlow 1.x's heads counted a probability equal to the threshold as positive; Keras's BinaryAccuracy not
            positive = tf.math.greater_equal(probabilities, threshold) if self._v1 \
                else tf.math.greater(probabilities, threshold)
            metrics[f"accuracy/positive_threshold_{threshold:g}"] = tf.compat.v1.metrics.accuracy(
                labels, tf.cast(positive, tf.float32), weights=weights)
            for kind, metric in (("precision", tf.compat.v1.metrics.precision_at_thresholds),
                                 ("recall", tf.compat.v1.metrics.recall_at_thresholds)):
                value, update = metric(labels, probabilities, thresholds=(threshold,), weights=weights)
                metrics[f"{kind}/positive_threshold_{threshold:g}"] = (tf.squeeze(value), tf.squeeze(update))
        return metrics

    def _classification_outputs(self, predictions) -> dict:
        classification = ClassificationOutput(scores=predictions["probabilities"],
                                              classes=self._classes(predictions["logits"]))
        return {_SERVING_KEYS["default"]: classification, _SERVING_KEYS["classify"]: classification,
                _SERVING_KEYS["predict"]: PredictOutput(predictions)}


# TensorFlow 1.x's `_Head.create_loss` result
LossSpec = collections.namedtuple("LossSpec", ["training_loss", "unreduced_loss", "weights", "processed_labels"])


def _mean(values, weights, name):
    values = tf.cast(values, tf.float32)
    if not isinstance(weights, float):
        weights = tf.broadcast_to(weights, tf.shape(values))
        return tf.compat.v1.metrics.mean(values, weights=weights, name=name)
    return tf.compat.v1.metrics.mean(values, name=name)


def _weights_or_none(weights):
    return None if isinstance(weights, float) else weights


class BinaryClassHead(_ClassifierHead):
    """`tf.estimator.BinaryClassHead` (and, with `v1=True`, TensorFlow 1.x's binary classification head):
    sigmoid cross entropy of one logit per example."""

    logits_dimension = 1
    _canned_kind = "classifier"

    def _canned_arguments(self) -> dict:
        return {"n_classes": 2, "label_vocabulary": self._label_vocabulary, "thresholds": self._thresholds}

    def __init__(self, weight_column=None, thresholds=None, label_vocabulary=None, loss_reduction=SUM_OVER_BATCH_SIZE,
                 loss_fn=None, name=None, v1=False):
        super().__init__(weight_column, loss_reduction, loss_fn, name, v1)
        self._thresholds = tuple(thresholds) if thresholds else ()
        for threshold in self._thresholds:
            if threshold <= 0.0 or threshold >= 1.0:
                raise ValueError(f"thresholds not in (0, 1): {self._thresholds}.")
        if label_vocabulary is not None and not isinstance(label_vocabulary, list | tuple):
            raise ValueError(f"label_vocabulary should be a list or tuple. Given type: {type(label_vocabulary)}")
        self._label_vocabulary = label_vocabulary

    def _processed_labels(self, logits, labels):
        labels = self._dense_labels(labels, logits, 1)
        if self._label_vocabulary is not None:
            labels = self._class_ids(labels, self._label_vocabulary)
            return tf.cast(labels, tf.float32)
        labels = tf.cast(labels, tf.float32)
        return self._class_ids(labels, None)

    def _unreduced_loss(self, labels, logits, features):
        return self._loss_of(labels, logits, features,
                             lambda y, z: tf.compat.v1.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=z))

    def _predictions(self, logits):
        logistic = tf.math.sigmoid(logits, name="logistic")
        two_class_logits = tf.concat((tf.zeros_like(logits), logits), axis=-1, name="two_class_logits")
        return {"logits": logits, "logistic": logistic,
                "probabilities": tf.nn.softmax(two_class_logits, name="probabilities"),
                **self._class_predictions(two_class_logits)}

    def _export_outputs(self, predictions):
        return {**self._classification_outputs(predictions),
                _SERVING_KEYS["regress"]: RegressionOutput(predictions["logistic"])}

    def _metrics(self, labels, predictions, unreduced, weights):
        logistic, class_ids = predictions["logistic"], predictions["class_ids"]
        w = _weights_or_none(weights)
        label_mean = _mean(labels, weights, "label/mean")
        broadcast = w if w is None else tf.broadcast_to(w, tf.shape(logistic))
        pr_summation = "trapezoidal" if self._v1 else "careful_interpolation"
        metrics = {
            "average_loss": _mean(unreduced, weights, "average_loss"),
            "accuracy": tf.compat.v1.metrics.accuracy(labels, class_ids, weights=w, name="accuracy"),
            "precision": tf.compat.v1.metrics.precision(labels, class_ids, weights=w, name="precision"),
            "recall": tf.compat.v1.metrics.recall(labels, class_ids, weights=w, name="recall"),
            "prediction/mean": _mean(logistic, weights, "prediction/mean"),
            "label/mean": label_mean,
            "accuracy_baseline": (tf.maximum(label_mean[0], 1.0 - label_mean[0]),
                                  tf.maximum(label_mean[1], 1.0 - label_mean[1])),
            "auc": tf.compat.v1.metrics.auc(labels, logistic, weights=broadcast, name="auc"),
            "auc_precision_recall": tf.compat.v1.metrics.auc(labels, logistic, weights=broadcast, curve="PR",
                                                             summation_method=pr_summation,
                                                             name="auc_precision_recall"),
        }
        metrics.update(self._threshold_metrics(labels, logistic, w))
        return {self._key(key): pair for key, pair in metrics.items()}


class MultiClassHead(_ClassifierHead):
    """`tf.estimator.MultiClassHead` (and, with `v1=True`, TensorFlow 1.x's multi-class head): softmax cross
    entropy of `n_classes` logits per example."""

    def __init__(self, n_classes, weight_column=None, label_vocabulary=None, loss_reduction=SUM_OVER_BATCH_SIZE,
                 loss_fn=None, name=None, v1=False):
        if n_classes is None or n_classes <= 2:
            raise ValueError(f"n_classes must be > 2: {n_classes}.")
        if label_vocabulary is not None and not isinstance(label_vocabulary, list | tuple):
            raise ValueError(f"label_vocabulary should be a list or a tuple. Given type: {type(label_vocabulary)}")
        if label_vocabulary is not None and len(label_vocabulary) != n_classes:
            raise ValueError(f"Length of label_vocabulary must be n_classes ({n_classes}). "
                             f"Given: {len(label_vocabulary)}")
        super().__init__(weight_column, loss_reduction, loss_fn, name, v1)
        self._n_classes = n_classes
        self._label_vocabulary = label_vocabulary

    _canned_kind = "classifier"

    @property
    def logits_dimension(self):
        return self._n_classes

    def _canned_arguments(self) -> dict:
        return {"n_classes": self._n_classes, "label_vocabulary": self._label_vocabulary}

    def _processed_labels(self, logits, labels):
        labels = self._dense_labels(labels, logits, 1)
        if self._label_vocabulary is None and not labels.dtype.is_integer:
            raise ValueError(f"Labels dtype should be integer. Instead got {labels.dtype}.")
        return self._class_ids(labels, self._label_vocabulary)

    def _unreduced_loss(self, labels, logits, features):
        return self._loss_of(labels, logits, features, lambda y, z: tf.expand_dims(  # (the dimension it squeezed)
            tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=y, logits=z,
                                                             reduction=tf.compat.v1.losses.Reduction.NONE), -1))

    def _predictions(self, logits):
        return {"logits": logits, "probabilities": tf.nn.softmax(logits, name="probabilities"),
                **self._class_predictions(logits)}

    def _export_outputs(self, predictions):
        return self._classification_outputs(predictions)

    def _metrics(self, labels, predictions, unreduced, weights):
        return {
            self._key("average_loss"): _mean(unreduced, weights, "average_loss"),
            self._key("accuracy"): tf.compat.v1.metrics.accuracy(labels, predictions["class_ids"],
                                                                 weights=_weights_or_none(weights), name="accuracy"),
        }


class MultiLabelHead(_ClassifierHead):
    """`tf.estimator.MultiLabelHead` (and, with `v1=True`, TensorFlow 1.x's multi-label head): a sigmoid cross
    entropy per class, averaged over the `n_classes` logits of each example. Labels are multi-hot, or a
    SparseTensor of class ids (or of names, through `label_vocabulary`)."""

    def __init__(self, n_classes, weight_column=None, thresholds=None, label_vocabulary=None,
                 loss_reduction=SUM_OVER_BATCH_SIZE, loss_fn=None, classes_for_class_based_metrics=None, name=None,
                 v1=False):
        if n_classes is None or n_classes < 2:
            raise ValueError(f"n_classes must be > 1 for multi-label classification. Given: {n_classes}")
        thresholds = tuple(thresholds) if thresholds else ()
        for threshold in thresholds:
            if threshold <= 0.0 or threshold >= 1.0:
                raise ValueError(f"thresholds must be in (0, 1) range. Given: {threshold}")
        if label_vocabulary is not None and not isinstance(label_vocabulary, list | tuple):
            raise ValueError(f"label_vocabulary must be a list or tuple. Given type: {type(label_vocabulary)}")
        if label_vocabulary is not None and len(label_vocabulary) != n_classes:
            raise ValueError(f"Length of label_vocabulary must be n_classes ({n_classes}). "
                             f"Given: {len(label_vocabulary)}")
        classes = tuple(classes_for_class_based_metrics or ())
        if classes and isinstance(classes[0], str):
            if not label_vocabulary:
                raise ValueError("label_vocabulary must be provided when classes_for_class_based_metrics are strings.")
            classes = tuple(list(label_vocabulary).index(name) for name in classes)
        for class_id in classes:
            if class_id < 0 or class_id >= n_classes:
                raise ValueError(f"All classes_for_class_based_metrics must be in range [0, {n_classes - 1}]. "
                                 f"Given: {class_id}")
        super().__init__(weight_column, loss_reduction, loss_fn, name, v1)
        self._n_classes = n_classes
        self._thresholds = thresholds
        self._label_vocabulary = label_vocabulary
        self._metric_classes = classes

    _canned_kind = "classifier"

    @property
    def logits_dimension(self):
        return self._n_classes

    def _canned_arguments(self) -> dict:
        return {"n_classes": self._n_classes, "multi_label": True, "thresholds": self._thresholds}

    def _processed_labels(self, logits, labels):
        if labels is None:
            return self._dense_labels(labels, logits, self._n_classes)  # (its error)
        if isinstance(labels, tf.SparseTensor):
            if labels.dtype == tf.string:
                ids = lookup_ops.index_table_from_tensor(tuple(self._label_vocabulary),
                                                         name="class_id_lookup").lookup(labels.values)
                labels = tf.SparseTensor(labels.indices, ids, labels.dense_shape)
            elif not labels.values.dtype.is_integer:
                raise ValueError(f"Labels dtype should be integer. Instead got {labels.values.dtype}.")
            else:
                message = f"labels must be an integer SparseTensor with values in [0, {self._n_classes})"
                checks = [tf.compat.v1.debugging.assert_less(labels.values, tf.cast(self._n_classes, labels.dtype),
                                                             message=message),
                          tf.compat.v1.debugging.assert_non_negative(labels.values, message=message)]
                with tf.control_dependencies(checks):
                    labels = tf.SparseTensor(labels.indices, tf.identity(labels.values), labels.dense_shape)
            labels = tf.cast(tf.sparse.to_indicator(labels, self._n_classes), tf.int64)
        else:
            labels = tf.convert_to_tensor(labels)
            message = "labels must be an integer indicator Tensor with values in [0, 1]"
            checks = [tf.compat.v1.debugging.assert_less_equal(labels, tf.cast(1, labels.dtype), message=message),
                      tf.compat.v1.debugging.assert_non_negative(labels, message=message)]
            with tf.control_dependencies(checks):
                labels = tf.identity(labels)
        return self._dense_labels(labels, logits, self._n_classes)

    def _unreduced_loss(self, labels, logits, features):
        return self._loss_of(labels, logits, features, lambda y, z: tf.reduce_mean(  # (averaged over the classes)
            tf.compat.v1.losses.sigmoid_cross_entropy(multi_class_labels=y, logits=z,
                                                      reduction=tf.compat.v1.losses.Reduction.NONE),
            axis=-1, keepdims=True))

    def _predictions(self, logits):
        predictions = {"logits": logits, "probabilities": tf.math.sigmoid(logits, name="probabilities")}
        if not self._v1:  # TensorFlow 2's head also gave each example's class names
            predictions["classes"] = self._classes(logits)
        return predictions

    def _export_outputs(self, predictions):
        return self._classification_outputs(predictions)

    def _metrics(self, labels, predictions, unreduced, weights):
        probabilities = predictions["probabilities"]
        w = _weights_or_none(weights)
        pr_summation = "trapezoidal" if self._v1 else "careful_interpolation"
        metrics = {
            "average_loss": _mean(unreduced, weights, "average_loss"),
            "auc": tf.compat.v1.metrics.auc(labels, probabilities, weights=w, name="auc"),
            "auc_precision_recall": tf.compat.v1.metrics.auc(labels, probabilities, weights=w, curve="PR",
                                                             summation_method=pr_summation,
                                                             name="auc_precision_recall"),
            **self._threshold_metrics(labels, probabilities, w),
        }
        for class_id in self._metric_classes:
            named = self._label_vocabulary[class_id] if self._label_vocabulary else f"class{class_id}"
            class_labels, class_probabilities = labels[..., class_id:class_id + 1], probabilities[..., class_id:class_id + 1]
            metrics[f"probability_mean/{named}"] = _mean(class_probabilities, weights, None)
            metrics[f"auc/{named}"] = tf.compat.v1.metrics.auc(class_labels, class_probabilities, weights=w)
            metrics[f"auc_precision_recall/{named}"] = tf.compat.v1.metrics.auc(
                class_labels, class_probabilities, weights=w, curve="PR", summation_method=pr_summation)
        return {self._key(key): pair for key, pair in metrics.items()}


class RegressionHead(_Head):
    """`tf.estimator.RegressionHead` (and, with `v1=True`, TensorFlow 1.x's regression head): squared error
    of `label_dimension` values per example; `inverse_link_fn` maps the logits to the predictions."""

    _per_logit_weights = True

    def __init__(self, label_dimension=1, weight_column=None, loss_reduction=SUM_OVER_BATCH_SIZE, loss_fn=None,
                 inverse_link_fn=None, name=None, v1=False):
        if label_dimension < 1:
            raise ValueError(f"Invalid label_dimension {label_dimension}.")
        super().__init__(weight_column, loss_reduction, loss_fn, name, v1)
        self._label_dimension = label_dimension
        self._inverse_link_fn = inverse_link_fn

    _canned_kind = "regressor"

    @property
    def logits_dimension(self):
        return self._label_dimension

    def _canned_arguments(self) -> dict:
        return {"label_dimension": self._label_dimension}

    def _processed_labels(self, logits, labels):
        return tf.cast(self._dense_labels(labels, logits, self._label_dimension), tf.float32)

    def _unreduced_loss(self, labels, logits, features):
        return self._loss_of(labels, logits, features, lambda y, z: tf.compat.v1.losses.mean_squared_error(
            labels=y, predictions=z, reduction=tf.compat.v1.losses.Reduction.NONE))

    def _predictions(self, logits):
        if self._inverse_link_fn is None:
            return {"predictions": logits}
        return {"predictions": self._inverse_link_fn(logits), "logits": logits}

    def _export_outputs(self, predictions):
        regression = RegressionOutput(predictions["predictions"])
        return {_SERVING_KEYS["default"]: regression, _SERVING_KEYS["regress"]: regression,
                _SERVING_KEYS["predict"]: PredictOutput(predictions)}

    def _metrics(self, labels, predictions, unreduced, weights):
        return {
            self._key("average_loss"): _mean(unreduced, weights, "average_loss"),
            self._key("prediction/mean"): _mean(predictions["predictions"], weights, "prediction/mean"),
            self._key("label/mean"): _mean(labels, weights, "label/mean"),
        }


class PoissonRegressionHead(RegressionHead):
    """`tf.estimator.PoissonRegressionHead` (and, with `v1=True`, TensorFlow 1.x's): `tf.nn.log_poisson_loss` of the
    logits as log rates, the predictions their exp."""

    def __init__(self, label_dimension=1, weight_column=None, loss_reduction=SUM_OVER_BATCH_SIZE,
                 compute_full_loss=True, name=None, v1=False):
        self._compute_full_loss = compute_full_loss
        super().__init__(label_dimension, weight_column, loss_reduction, self._poisson_loss, tf.math.exp, name, v1)

    def _poisson_loss(self, labels, logits):
        return tf.nn.log_poisson_loss(targets=labels, log_input=logits, compute_full_loss=self._compute_full_loss)


class LogisticRegressionHead(RegressionHead):
    """`tf.estimator.LogisticRegressionHead` (and, with `v1=True`, TensorFlow 1.x's): sigmoid cross entropy of one
    logit against a label in [0, 1], the predictions its sigmoid."""

    def __init__(self, weight_column=None, loss_reduction=SUM_OVER_BATCH_SIZE, name=None, v1=False):
        super().__init__(1, weight_column, loss_reduction, self._logistic_loss, tf.math.sigmoid, name, v1)

    @staticmethod
    def _logistic_loss(labels, logits):
        checks = [tf.compat.v1.debugging.assert_less_equal(labels, tf.cast(1, labels.dtype),
                                                           message="Labels must be in range [0, 1]"),
                  tf.compat.v1.debugging.assert_non_negative(labels, message="Labels must be in range [0, 1]")]
        with tf.control_dependencies(checks):
            return tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.identity(labels), logits=logits)


class MultiHead:
    """`tf.estimator.MultiHead(heads, head_weights)` (and, with `v1=True`, TensorFlow 1.x's `multi_head`): heads
    of their own names over slices of the logits (or a dict of logits by head name), labels a dict by head name;
    the loss the weighted sum of theirs, their metrics and a `loss/<name>` each, their predictions keyed
    (head name, key), their export signatures under `<name>` / `<name>/<key>` (the first head's the default) and
    every head's predictions merged as `predict`."""

    def __init__(self, heads, head_weights=None, v1=False):
        if not heads:
            raise ValueError(f"Must specify heads. Given: {heads}")
        if head_weights and len(head_weights) != len(heads):
            raise ValueError("heads and head_weights must have the same size. "
                             f"Given len(heads): {len(heads)}. Given len(head_weights): {len(head_weights)}.")
        for head in heads:
            if not head.name:
                raise ValueError(f"All given heads must have name specified. Given: {head}")
        self._heads = tuple(heads)
        self._head_weights = tuple(head_weights) if head_weights else ()
        self._v1 = v1

    @property
    def name(self):
        return "_".join(head.name for head in self._heads)

    @property
    def logits_dimension(self):
        return sum(head.logits_dimension for head in self._heads)

    def _split(self, logits) -> dict:
        if isinstance(logits, dict):
            missing = [head.name for head in self._heads if head.name not in logits]
            if missing:
                raise ValueError(f"logits has missing values for head(s): {missing}")
            return logits
        logits, split, start = tf.convert_to_tensor(logits), {}, 0
        for head in self._heads:
            split[head.name] = logits[..., start:start + head.logits_dimension]
            start += head.logits_dimension
        return split

    def _merged(self, losses):
        if self._head_weights:
            losses = [loss * weight for loss, weight in zip(losses, self._head_weights, strict=True)]
        return tf.math.add_n(losses)

    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None, trainable_variables=None,
                              train_op_fn=None, update_ops=None, regularization_losses=None):
        """The EstimatorSpec the Estimator's multi-head returned for `mode`."""
        logits = self._split(logits)
        if labels is not None and not isinstance(labels, dict):
            raise ValueError(f"labels must be a dict. Given: {labels}")
        specs = [head.create_estimator_spec(features=features, mode=mode, logits=logits[head.name],
                                            labels=labels[head.name] if labels else None,
                                            train_op_fn=lambda loss: tf.no_op()) for head in self._heads]
        predictions = {(head.name, key): value for head, spec in zip(self._heads, specs, strict=True)
                       for key, value in spec.predictions.items()}
        if mode == ModeKeys.PREDICT:
            return EstimatorSpec(mode, predictions=predictions, export_outputs=self._export_outputs(specs))
        loss = self._merged([spec.loss for spec in specs])
        given = regularization_losses if self._v1 else regularization_losses is not None
        if given and self._v1:
            raise ValueError("TensorFlow 1.x's multi_head took no regularization_losses")
        regularization = tf.math.add_n(regularization_losses) if given else None
        if regularization is not None:
            loss += regularization
        if mode == ModeKeys.EVAL:
            metrics = {}
            for head, spec in zip(self._heads, specs, strict=True):
                metrics[f"loss/{head.name}"] = tf.compat.v1.metrics.mean(spec.loss)
                metrics.update(spec.eval_metric_ops)
            if regularization is not None:
                metrics["regularization_loss"] = tf.compat.v1.metrics.mean(regularization)
            return EstimatorSpec(mode, predictions=predictions, loss=loss, eval_metric_ops=metrics)
        train_op = _train_op(loss, optimizer, train_op_fn, update_ops, self._v1)
        with tf.compat.v1.name_scope(""):
            tf.compat.v1.summary.scalar("loss", loss)
        return EstimatorSpec(mode, predictions=predictions, loss=loss, train_op=train_op)

    def _export_outputs(self, specs) -> dict:
        first = specs[0].export_outputs
        outputs = {_SERVING_KEYS["default"]: first[_SERVING_KEYS["default"]]}
        merged = {}
        for head, spec in zip(self._heads, specs, strict=True):
            for key, output in spec.export_outputs.items():
                outputs[head.name if key == _SERVING_KEYS["default"] else f"{head.name}/{key}"] = output
                if key == _SERVING_KEYS["predict"] and isinstance(output, PredictOutput):
                    merged.update({f"{head.name}/{name}": value for name, value in output.outputs.items()})
        outputs[_SERVING_KEYS["predict"]] = PredictOutput(merged)
        return outputs


# TensorFlow 1.x's tf.contrib.estimator factories: the same heads as TF 1.x built them (its metrics and
# UPDATE_OPS), the reduction SUM_OVER_BATCH_SIZE unless given.


def binary_classification_head(weight_column=None, thresholds=None, label_vocabulary=None,
                               loss_reduction=SUM_OVER_BATCH_SIZE, loss_fn=None, name=None) -> BinaryClassHead:
    """`tf.contrib.estimator.binary_classification_head`."""
    return BinaryClassHead(weight_column, thresholds, label_vocabulary, loss_reduction, loss_fn, name, v1=True)


def multi_class_head(n_classes, weight_column=None, label_vocabulary=None, loss_reduction=SUM_OVER_BATCH_SIZE,
                     loss_fn=None, name=None) -> MultiClassHead:
    """`tf.contrib.estimator.multi_class_head`."""
    return MultiClassHead(n_classes, weight_column, label_vocabulary, loss_reduction, loss_fn, name, v1=True)


def multi_label_head(n_classes, weight_column=None, thresholds=None, label_vocabulary=None,
                     loss_reduction=SUM_OVER_BATCH_SIZE, loss_fn=None, classes_for_class_based_metrics=None,
                     name=None) -> MultiLabelHead:
    """`tf.contrib.estimator.multi_label_head`."""
    return MultiLabelHead(n_classes, weight_column, thresholds, label_vocabulary, loss_reduction, loss_fn,
                          classes_for_class_based_metrics, name, v1=True)


def regression_head(weight_column=None, label_dimension=1, loss_reduction=SUM_OVER_BATCH_SIZE, loss_fn=None,
                    inverse_link_fn=None, name=None) -> RegressionHead:
    """`tf.contrib.estimator.regression_head`."""
    return RegressionHead(label_dimension, weight_column, loss_reduction, loss_fn, inverse_link_fn, name, v1=True)


def poisson_regression_head(weight_column=None, label_dimension=1, loss_reduction=SUM_OVER_BATCH_SIZE,
                            compute_full_loss=True, name=None) -> PoissonRegressionHead:
    """`tf.contrib.estimator.poisson_regression_head`."""
    return PoissonRegressionHead(label_dimension, weight_column, loss_reduction, compute_full_loss, name, v1=True)


def logistic_regression_head(weight_column=None, loss_reduction=SUM_OVER_BATCH_SIZE,
                             name=None) -> LogisticRegressionHead:
    """`tf.contrib.estimator.logistic_regression_head`."""
    return LogisticRegressionHead(weight_column, loss_reduction, name, v1=True)


def multi_head(heads, head_weights=None) -> MultiHead:
    """`tf.contrib.estimator.multi_head`."""
    return MultiHead(heads, head_weights, v1=True)
