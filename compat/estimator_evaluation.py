"""`Estimator.evaluate` for the migrated canned models: the same metrics, under the same keys.

A canned Estimator's `evaluate(input_fn, steps)` returns the metrics of its head, computed over every batch
of the input (or the first `steps`), plus `loss` and `global_step`. `evaluate` computes them for a model
built by `compat.canned`, reading the head (binary, multi-class, regression; v1 or v2) from how the model
was compiled:

- `loss`: the mean over batches of the training loss of each batch (v1 heads: summed over the batch; v2:
  averaged), as Estimator's `metrics.mean(estimator_spec.loss)`; `average_loss`: the mean over examples.
- with a `weight_column`, every metric weighs each example by its weight, as the Estimator's head did.
- classifiers: `accuracy`; binary ones also `precision`, `recall`, `prediction/mean` (of the sigmoid),
  `label/mean`, `accuracy_baseline`, `auc` and `auc_precision_recall` (v1 heads: `tf.compat.v1.metrics.auc`
  with its 200 thresholds and trapezoidal sums, re-computed here because it only runs in graph mode; v2
  heads: the Keras AUC metric they use).
- regressors: `prediction/mean`, `label/mean`.

With `summary_dir`, the metrics are also written there as scalars at the model's step, as Estimator wrote
them to `model_dir/eval`, so TensorBoard shows the evaluation curve where it did.

`PeriodicEvaluation` is `train_and_evaluate`'s evaluation schedule as a callback of the migrated training.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence

import numpy as np
import tensorflow as tf
import tf_keras
from google.protobuf import message
from tensorflow.core.framework import summary_pb2

from . import added_metrics, backup_listeners
from .canned import head_of
from .estimator_export import Exporter
from .estimator_prediction import head_predictions

_AUC_THRESHOLDS = 200
_AUC_EPSILON = 1e-6  # tf.compat.v1.metrics.auc's smoothing of recall, precision and the false-positive rate
_THRESHOLD_EPSILON = 1e-7


class _V1Auc:
    """tf.compat.v1.metrics.auc(curve, num_thresholds=200, summation_method="trapezoidal"), eagerly."""

    def __init__(self):
        inner = [(i + 1) / (_AUC_THRESHOLDS - 1) for i in range(_AUC_THRESHOLDS - 2)]
        self.thresholds = np.array([-_THRESHOLD_EPSILON, *inner, 1 + _THRESHOLD_EPSILON], np.float32)
        self.counts = np.zeros((4, _AUC_THRESHOLDS))  # tp, fn, tn, fp per threshold

    def update(self, labels: np.ndarray, predictions: np.ndarray, weights: np.ndarray) -> None:
        positive = predictions.reshape(-1, 1) > self.thresholds
        label = labels.reshape(-1, 1).astype(bool)
        weights = weights.reshape(-1, 1)
        for row, cells in enumerate((label & positive, label & ~positive, ~label & ~positive, ~label & positive)):
            self.counts[row] += (cells * weights).sum(axis=0)

    def result(self, curve: str) -> float:
        tp, fn, tn, fp = self.counts
        recall = (tp + _AUC_EPSILON) / (tp + fn + _AUC_EPSILON)
        if curve == "ROC":
            x, y = fp / (fp + tn + _AUC_EPSILON), recall
        else:
            x, y = recall, (tp + _AUC_EPSILON) / (tp + fp + _AUC_EPSILON)
        return float(np.sum((x[:-1] - x[1:]) * (y[:-1] + y[1:]) / 2.0))


class _AtThresholds:
    """A binary or multi-label head's accuracy, precision and recall at each of its thresholds (keys
    `<metric>/positive_threshold_<t>`), over every (example, class) pair, weighted by its example's weight. TensorFlow
    1.x's heads counted a probability equal to the threshold as positive in accuracy (Keras's, TF 2's heads, do
    not), and both divided precision and recall as their metrics did (TF1's with an epsilon of 1e-7)."""

    def __init__(self, head, means: _Means):
        self.head, self.means = head, means
        self.counts = {threshold: np.zeros(3) for threshold in head.thresholds}  # tp, fp, fn

    def update(self, labels: np.ndarray, probabilities: np.ndarray, weights: np.ndarray) -> None:
        probabilities = probabilities.astype(np.float32)
        weights = np.broadcast_to(weights, labels.shape)
        for threshold, counts in self.counts.items():
            positive = probabilities >= threshold if self.head.v1 else probabilities > threshold
            self.means.add(f"accuracy/positive_threshold_{threshold:g}", positive == labels, weights)
            strictly = (probabilities > threshold).astype(np.float64)
            counts += [np.sum(strictly * labels * weights), np.sum(strictly * (1 - labels) * weights),
                       np.sum((1 - strictly) * labels * weights)]

    def result(self) -> dict[str, float]:
        epsilon = 1e-7 if self.head.v1 else 0.0
        metrics = {}
        for threshold, (tp, fp, fn) in self.counts.items():
            metrics[f"precision/positive_threshold_{threshold:g}"] = _ratio(tp, epsilon + tp + fp)
            metrics[f"recall/positive_threshold_{threshold:g}"] = _ratio(tp, epsilon + tp + fn)
        return metrics


class _Means:
    """Running weighted means: name -> (weighted total, total weight)."""

    def __init__(self):
        self.sums: dict[str, list[float]] = {}

    def add(self, name: str, values, weights: np.ndarray | float = 1.0) -> None:
        """Add `values`, each weighted by `weights` broadcast to their shape (tf.metrics.mean's weights)."""
        values = np.asarray(values, np.float64)
        weights = np.broadcast_to(np.asarray(weights, np.float64), values.shape)
        total = self.sums.setdefault(name, [0.0, 0.0])
        total[0] += float((values * weights).sum())
        total[1] += float(weights.sum())

    def mean(self, name: str) -> float:
        total, count = self.sums[name]
        return total / count if count else 0.0


def _example_weights(model: tf_keras.Model, features, batch_size: int) -> np.ndarray:
    """The batch's example weights ([batch, 1]) from the model's weight_column; ones without one."""
    weights = model.example_weights(features) if getattr(model, "weight_column", None) is not None else None
    return np.ones((batch_size, 1)) if weights is None else np.asarray(weights, np.float64)


def _sigmoid_cross_entropy(logits: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Each logit's sigmoid cross entropy, in tf.nn's stable form."""
    return np.maximum(logits, 0) - logits * labels + np.log1p(np.exp(-np.abs(logits)))


def _update_aucs(head, v1_auc: _V1Auc, keras_aucs: dict, labels: np.ndarray, probabilities: np.ndarray,
                 weights: np.ndarray) -> None:
    """A sigmoid head's AUCs over every (example, class) pair, each weighted by its example's weight: v1 heads'
    tf.compat.v1.metrics.auc, v2 heads' Keras AUC."""
    probabilities = probabilities.astype(np.float32)
    if head.v1:
        v1_auc.update(labels, probabilities, np.broadcast_to(weights, labels.shape))
    else:
        for metric in keras_aucs.values():
            metric.update_state(labels, probabilities, sample_weight=weights)


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator > 0 else 0.0


def evaluate(
    model: tf_keras.Model, dataset: tf.data.Dataset, steps: int | None = None, summary_dir: str | None = None
) -> dict[str, float]:
    """The metrics a canned Estimator's `evaluate(input_fn, steps)` returns, for a `compat.canned` model.

    `dataset` yields (features, labels) batches; `steps=None` evaluates all of it, as Estimator did.
    """
    head = head_of(model)
    logits_of = tf.function(lambda features: model(features, training=False))
    means, v1_auc = _Means(), _V1Auc()
    keras_aucs = {"auc": tf_keras.metrics.AUC(), "auc_precision_recall": tf_keras.metrics.AUC(curve="PR")}
    counts = {"tp": 0.0, "fp": 0.0, "fn": 0.0}
    at_thresholds = _AtThresholds(head, means)
    batches = dataset if steps is None else dataset.take(steps)
    metric_fns = getattr(model, "added_metric_fns", ())  # compat.added_metrics
    added = added_metrics.GraphMetrics(metric_fns, getattr(model, "estimator_config", None)) if metric_fns else None
    for features, labels in batches:
        logits = logits_of(features)
        if added is not None:
            added.update(features, labels, head_predictions(head, logits))
        logits = logits.numpy().astype(np.float64)
        labels = np.asarray(model.head_labels(labels, logits)).reshape(logits.shape[0], -1)
        weights = _example_weights(model, features, logits.shape[0])
        if head.kind == "multi_label":
            labels = labels.astype(np.float64)
            unreduced = _sigmoid_cross_entropy(logits, labels).mean(axis=1, keepdims=True)  # over the classes
            probabilities = 1.0 / (1.0 + np.exp(-logits))
            _update_aucs(head, v1_auc, keras_aucs, labels, probabilities, weights)
            at_thresholds.update(labels, probabilities, weights)
        elif head.kind == "multi_class":
            shifted = logits - logits.max(axis=1, keepdims=True)
            log_softmax = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
            unreduced = -np.take_along_axis(log_softmax, labels.astype(np.int64), axis=1)
            means.add("accuracy", np.argmax(logits, axis=1).reshape(-1, 1) == labels, weights)
        elif head.kind == "binary":
            labels = labels.astype(np.float64)
            unreduced = _sigmoid_cross_entropy(logits, labels)
            logistic = 1.0 / (1.0 + np.exp(-logits))
            predicted = (logits > 0).astype(np.float64)
            means.add("accuracy", predicted == labels, weights)
            means.add("prediction/mean", logistic, weights)
            means.add("label/mean", labels, weights)
            counts["tp"] += float(np.sum(predicted * labels * weights))
            counts["fp"] += float(np.sum(predicted * (1 - labels) * weights))
            counts["fn"] += float(np.sum((1 - predicted) * labels * weights))
            _update_aucs(head, v1_auc, keras_aucs, labels, logistic, weights)
            at_thresholds.update(labels, logistic, weights)
        else:
            labels = labels.astype(np.float64)
            unreduced = (logits - labels) ** 2
            means.add("prediction/mean", logits, weights)
            means.add("label/mean", labels, weights)
        means.add("average_loss", unreduced, weights)
        weighted = unreduced * weights
        means.add("loss", weighted.sum() if head.summed else weighted.sum() / weighted.size)

    metrics = {name: means.mean(name) for name in means.sums}
    if head.kind in ("binary", "multi_label"):
        if head.v1:
            metrics["auc"], metrics["auc_precision_recall"] = v1_auc.result("ROC"), v1_auc.result("PR")
        else:
            metrics.update({name: float(metric.result()) for name, metric in keras_aucs.items()})
    if head.kind == "binary":
        label_mean = metrics.get("label/mean", 0.0)
        metrics["accuracy_baseline"] = max(label_mean, 1.0 - label_mean)
        metrics["precision"] = _ratio(counts["tp"], counts["tp"] + counts["fp"])
        metrics["recall"] = _ratio(counts["tp"], counts["tp"] + counts["fn"])
    metrics.update(at_thresholds.result())
    if head.name:  # a named head's metrics (the Estimator's own mean loss keeps its key)
        metrics = {key if key == "loss" else f"{key}/{head.name}": value for key, value in metrics.items()}
    if added is not None:
        metrics.update(added.result())  # as Estimator: an added metric replaces the head's of the same name
    return finish_evaluation(metrics, model, summary_dir)


def evaluate_model(model: tf_keras.Model, dataset: tf.data.Dataset, steps: int | None = None,
                   summary_dir: str | None = None, hooks: Sequence = ()) -> dict[str, float]:
    """Estimator's evaluate for a migrated model: a model_fn kept as written (compat.wrapped_model_fns) runs
    its own EVAL spec, `hooks` (SessionRunHooks) around each batch; a canned model gives its head's metrics."""
    if hasattr(model, "estimator_evaluate"):
        return model.estimator_evaluate(dataset, steps, summary_dir, hooks)
    if hooks:
        raise ValueError("evaluation hooks run only with a model_fn kept as written (compat.wrapped_model_fns)")
    return evaluate(model, dataset, steps, summary_dir)


def finish_evaluation(metrics: dict[str, float], model: tf_keras.Model, summary_dir: str | None) -> dict[str, float]:
    """Write the metrics to `summary_dir` at the model's step (as Estimator wrote model_dir/eval) and add
    `global_step`, as Estimator's evaluate returned it."""
    step = int(model.optimizer.iterations.numpy())
    if summary_dir is not None:
        writer = tf.summary.create_file_writer(summary_dir)
        # record_if(True): inside fit, the TensorBoard callback only records every update_freq batches.
        with writer.as_default(), tf.summary.record_if(True):
            for name, value in metrics.items():
                _write_metric(name, value, step)
        writer.close()
    result = {**metrics, "global_step": step}
    backup_listeners.evaluated(result)
    return result


def write_checkpoint_path(summary_dir: str, checkpoint_path: str | None, step: int) -> None:
    """The checkpoint an evaluation read, as Estimator's evaluate wrote it beside the metrics: a string tensor
    tagged `checkpoint_path` (TensorBoard's text), at the evaluated step. Nothing when no checkpoint was read."""
    if checkpoint_path is None:
        return
    summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(
        tag="checkpoint_path", tensor=tf.make_tensor_proto(checkpoint_path, dtype=tf.string))])
    writer = tf.summary.create_file_writer(summary_dir)
    with writer.as_default(), tf.summary.record_if(True):
        tf.summary.experimental.write_raw_pb(summary.SerializeToString(), step=step)
    writer.close()


def _write_metric(name: str, value, step: int) -> None:
    """One metric written as Estimator's `_write_dict_to_summary` wrote it: a number as a scalar; an array (a
    metric over several thresholds) as a tensor summary under its name; a serialized Summary (an image metric's) as
    its values, tagged `<name>/<i>`; None, or anything else (with a warning), not at all."""
    if value is None:
        return
    if isinstance(value, bytes):
        try:
            summary = summary_pb2.Summary.FromString(value)
        except message.DecodeError:
            tf.get_logger().warning("Skipping summary for %s, cannot parse string to Summary.", name)
            return
        for index, summary_value in enumerate(summary.value):
            summary_value.tag = f"{name}/{index}"
        tf.summary.experimental.write_raw_pb(summary.SerializeToString(), step=step)
    elif isinstance(value, np.ndarray):
        summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(
            tag=name, node_name=name, tensor=tf.make_tensor_proto(value))])
        tf.summary.experimental.write_raw_pb(summary.SerializeToString(), step=step)
    elif isinstance(value, int | float | np.integer | np.floating):
        tf.summary.scalar(name, value, step=step)
    else:
        tf.get_logger().warning("Skipping summary for %s, must be a number, an array or a serialized Summary.", name)


class PeriodicEvaluation(tf_keras.callbacks.Callback):
    """`train_and_evaluate`'s evaluations (local mode), for `fit` or the migrated loop's `CallbackList`.

    As Estimator's evaluation listener: after each checkpoint save (every `every_steps` steps, or every
    `every_secs` seconds) the model is evaluated on a fresh `input_fn()`, unless the previous evaluation
    is less than `throttle_secs` old (the first save of the run always evaluates; the save of the
    restored state at the start never does), and once more at the end of training unless its last step was
    just evaluated. After each evaluation every exporter exports (`compat.estimator_export`'s, or a program's own
    `Exporter`) under `export_dir_base/<exporter name>`, called as Estimator called it: given the model, the latest
    checkpoint in `checkpoint_dir` (the one evaluated), the metrics, and whether the evaluated step reached
    `max_steps` (the final export).
    Each evaluation is `evaluate_model`'s: a wrapped model_fn's EVAL spec, with `hooks` (the EvalSpec's).
    `result` is what `train_and_evaluate` returned: (the last metrics, the last exporters' results), or
    (None, None) when no step was trained (max_steps already reached).
    """

    def __init__(
        self,
        input_fn: Callable[[], tf.data.Dataset],
        steps: int | None,
        throttle_secs: float,
        summary_dir: str | None = None,
        every_steps: int | None = None,
        every_secs: float | None = None,
        exporters: Sequence = (),
        export_dir_base: str | None = None,
        max_steps: int | None = None,
        hooks: Sequence = (),
        checkpoint_dir: str | None = None,
    ):
        super().__init__()
        for exporter in exporters:
            if not isinstance(exporter, Exporter):  # (Estimator's EvalSpec check)
                raise TypeError(f"`exporters` must be an Exporter (compat.estimator_export's, or a subclass of it), "
                                f"given {exporter!r}")
        self.checkpoint_dir = checkpoint_dir
        if (every_steps is None) == (every_secs is None):
            raise ValueError("give exactly one checkpoint cadence: every_steps or every_secs")
        if exporters and export_dir_base is None:
            raise ValueError("exporters need an export_dir_base (Estimator's: model_dir/export)")
        self.exporters, self.export_dir_base, self.max_steps = list(exporters), export_dir_base, max_steps
        self.input_fn, self.steps, self.throttle_secs = input_fn, steps, throttle_secs
        self.summary_dir, self.every_steps, self.every_secs = summary_dir, every_steps, every_secs
        self.hooks = list(hooks)
        self.result: tuple[dict | None, list | None] = (None, None)

    def on_train_begin(self, logs=None):
        self._saved_at = time.monotonic()
        self._evaluated_at: float | None = None
        self._evaluated_step: int | None = None
        self._trained = False

    def steps_due(self, step: int) -> int | None:
        """compat.chunked_calls: the next checkpoint step (on the clock: `seconds_due`)."""
        return (step // self.every_steps + 1) * self.every_steps if self.every_steps is not None else None

    def seconds_due(self) -> float | None:
        return None if self.every_secs is None else self._saved_at + self.every_secs - time.monotonic()

    def on_train_batch_end(self, batch, logs=None):
        self._trained = True
        if self.every_steps is not None:
            if int(self.model.optimizer.iterations.numpy()) % self.every_steps:
                return
        elif time.monotonic() - self._saved_at < self.every_secs:
            return
        self._saved_at = time.monotonic()
        if self._evaluated_at is None or time.monotonic() - self._evaluated_at >= self.throttle_secs:
            self._evaluate()

    def on_train_end(self, logs=None):
        if self._trained and self._evaluated_step != int(self.model.optimizer.iterations.numpy()):
            self._evaluate()

    def _evaluate(self) -> None:
        self._evaluated_at = time.monotonic()
        self._evaluated_step = int(self.model.optimizer.iterations.numpy())
        metrics = evaluate_model(self.model, self.input_fn(), self.steps, self.summary_dir, self.hooks)
        final = self.max_steps is not None and self._evaluated_step >= self.max_steps
        # as Estimator called them, given the checkpoint evaluated (saved at this step before this callback ran)
        checkpoint_path = tf.train.latest_checkpoint(self.checkpoint_dir) if self.checkpoint_dir else None
        if self.summary_dir is not None:
            write_checkpoint_path(self.summary_dir, checkpoint_path, metrics["global_step"])
        exports = [
            exporter.export(estimator=self.model, export_path=os.path.join(self.export_dir_base, exporter.name),
                            checkpoint_path=checkpoint_path, eval_result=metrics, is_the_final_export=final)
            for exporter in self.exporters
        ]
        self.result = (metrics, exports)
