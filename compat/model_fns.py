"""The runtime of custom `model_fn` Estimators migrated to Keras (codemods/model_fns.py writes the subclasses).
(Plural: migrated code imports this module by name, and a program's own `model_fn` would shadow it.)

A model_fn builds its layers inline, every time it runs (`tf.compat.v1.layers.dense(net, 10)`), and TF1's
graph gave each call site a fresh scope (`dense`, `dense_1`, ...). A migrated model's `call` keeps that
code: `self.layer(tf_keras.layers.Dense, 10)(net)` makes the layer the first time a pass reaches that
point and returns the same layer on every later pass (layers are counted in call order), named as the
Estimator named it, so a legacy checkpoint maps onto it by name (`load_estimator_checkpoint`).

The model_fn's loss goes to `compute_loss`, its optimizer to `compile`; `train_step` logs the step's own
loss (as Estimator's `loss` summary and NanTensorHook saw it), not Keras's running mean. Its EVAL and
PREDICT paths, when the program evaluates or predicts, become `evaluation_step` / `prediction_step`
(codemods/model_fn_paths.py), which `evaluate` and `predict` here run as Estimator ran them.
"""

from __future__ import annotations

import os
import re

import numpy as np
import tensorflow as tf
import tf_keras

from . import step_count
from .estimator_evaluation import finish_evaluation
from .estimator_prediction import as_estimator_yields, features_of
from .load import LoadResult, load_legacy_checkpoint, save_starting_checkpoint


def _snake_case(name: str) -> str:
    """A layer class's default layer name, as Keras and TF1 layers spell it (Conv2D -> conv2d)."""
    name = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


class EstimatorModel(tf_keras.Model):
    """Base of the models migrated from a model_fn: `params` as the Estimator gave them, inline layers."""

    def __init__(self, params=None, **kwargs):
        super().__init__(**kwargs)
        self.params = params
        self.model_fn_layers = []  # in the order a forward pass reaches them (tracked: checkpointed)
        self._next_layer = 0

    def __call__(self, *args, **kwargs):
        self.begin_pass()
        return super().__call__(*args, **kwargs)

    def begin_pass(self) -> None:
        """A forward pass (call, evaluation_step, prediction_step) walks the layers again from the first."""
        self._next_layer = 0

    def regularization_loss(self) -> tf.Tensor:
        """`tf.compat.v1.losses.get_regularization_loss()` of the model_fn: the sum of the losses its layers'
        regularizers give for the current weights (0.0 without any), which TF1 kept in a graph collection."""
        losses = self.losses
        return tf.add_n(losses) if losses else tf.constant(0.0)

    def layer(self, layer_class, *args, **kwargs):
        """The layer made at this point of the forward pass (made now on the first pass)."""
        if self._next_layer == len(self.model_fn_layers):
            base = kwargs.pop("name", None) or _snake_case(layer_class.__name__)
            # A TF1 graph made a second `dense` scope `dense_1`, a second `logits` `logits_1`.
            taken = {made.name for made in self.model_fn_layers}
            name, count = base, 0
            while name in taken:
                count += 1
                name = f"{base}_{count}"
            self.model_fn_layers.append(layer_class(*args, name=name, **kwargs))
        made = self.model_fn_layers[self._next_layer]
        self._next_layer += 1
        return made

    def train_step(self, data):
        with step_count.after_the_batch(data):
            x, y, sample_weight = tf_keras.utils.unpack_x_y_sample_weight(data)
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(x, y, y_pred, sample_weight)
            self.optimizer.minimize(loss, self.trainable_variables, tape=tape)
        return {"loss": loss}

    def make_variables(self, element_spec, mode: str | None = None) -> None:
        """Make the layers and the optimizer's slots from the input's structure (`dataset.element_spec`), so a
        checkpoint restores into them before training, and the first checkpoint holds the initial weights
        (the same in every `mode`)."""
        if self.built:
            return
        features = element_spec[0] if isinstance(element_spec, tuple) else element_spec
        self(tf.nest.map_structure(_zeros, features), training=False)
        self.optimizer.build(self.trainable_variables)


def replica_loss(loss: tf.Tensor) -> tf.Tensor:
    """A replica's loss as a TF1 optimizer minimized it under an Estimator's RunConfig(train_distribute=...):
    scaled by 1/replicas (optimizer.py, _scale_loss: every loss not reduced by SUM), so that the replicas'
    summed gradients are those of the mean loss. Unchanged outside a multi-replica strategy."""
    replicas = tf.distribute.get_strategy().num_replicas_in_sync
    return loss * (1.0 / replicas) if replicas > 1 else loss


# tf.compat.v1.metrics function -> the Keras metric computing the same value over the same inputs.
KERAS_METRICS = {
    "accuracy": tf_keras.metrics.Accuracy,
    "mean": tf_keras.metrics.Mean,
    "mean_squared_error": tf_keras.metrics.MeanSquaredError,
    "mean_absolute_error": tf_keras.metrics.MeanAbsoluteError,
    "root_mean_squared_error": tf_keras.metrics.RootMeanSquaredError,
    "precision": tf_keras.metrics.Precision,
    "recall": tf_keras.metrics.Recall,
}


def _update(metric: tf_keras.metrics.Metric, kind: str, given: dict) -> None:
    weights = given.get("weights")
    if kind == "mean":
        metric.update_state(given["values"], sample_weight=weights)
        return
    labels, predictions = given["labels"], given["predictions"]
    if kind in ("precision", "recall"):  # TF1 casts both to bool (nonzero is true); Keras thresholds at 0.5
        labels, predictions = (tf.cast(tf.cast(x, tf.bool), tf.float32) for x in (labels, predictions))
    metric.update_state(labels, predictions, sample_weight=weights)


def evaluate(model: EstimatorModel, dataset: tf.data.Dataset, steps: int | None = None,
             summary_dir: str | None = None) -> dict[str, float]:
    """Estimator.evaluate for a migrated model_fn: its eval_metric_ops over every batch (or the first
    `steps`), `loss` as the mean of the batch losses, `global_step`; also written to `summary_dir`."""

    @tf.function
    def evaluation_step(features, labels):
        model.begin_pass()
        return model.evaluation_step(features, labels)

    metrics = {name: KERAS_METRICS[kind]() for name, kind in model.EVAL_METRICS.items()}
    losses = []
    for features, labels in dataset if steps is None else dataset.take(steps):
        loss, given = evaluation_step(features, labels)
        losses.append(float(loss))
        for name, metric in metrics.items():
            _update(metric, model.EVAL_METRICS[name], given[name])
    results = {name: float(metric.result()) for name, metric in metrics.items()}
    results["loss"] = float(np.mean(losses)) if losses else 0.0
    return finish_evaluation(results, model, summary_dir)


def predict(model: EstimatorModel, dataset: tf.data.Dataset, predict_keys: str | list[str] | None = None,
            yield_single_examples: bool = True):
    """Estimator.predict for a migrated model_fn: its PREDICT branch's predictions, per example (or per batch),
    limited to `predict_keys` when the predictions are a dict."""

    @tf.function
    def prediction_step(features):
        model.begin_pass()
        return model.prediction_step(features)

    batches = (tf.nest.map_structure(np.asarray, prediction_step(features_of(batch))) for batch in dataset)
    return as_estimator_yields(batches, predict_keys, yield_single_examples)


def _zeros(spec: tf.TensorSpec) -> tf.Tensor:
    shape = [1 if size is None else size for size in spec.shape.as_list()]
    if spec.dtype == tf.string:
        return tf.constant(np.full(shape, "", dtype=object), dtype=tf.string)
    return tf.zeros(shape, spec.dtype)


def load_estimator_checkpoint(model: EstimatorModel, prefix: str | os.PathLike) -> LoadResult:
    """An Estimator's `model.ckpt-N` (a model_dir or a prefix) into a built migrated model: weights by their
    TF1 names (`dense/kernel` -> `<model name>/dense/kernel`), the optimizer's slots, the step."""
    scope = f"{model.name}/"
    return load_legacy_checkpoint(prefix, model, model.optimizer, lambda name: scope + name)


def convert_estimator_checkpoint(model: EstimatorModel, prefix: str | os.PathLike, model_dir: str | os.PathLike) -> str:
    """Write a migrated program's starting checkpoint: the Estimator's `model.ckpt-N` (a model_dir or a prefix)
    loaded into `model` (built: `make_variables`), saved as `ckpt-N` in `model_dir`, a directory of its own,
    where the migrated program's `restore_latest` continues at step N + 1 (both targets). Returns its path."""
    return save_starting_checkpoint(model, model_dir, lambda: load_estimator_checkpoint(model, prefix))

