"""`Estimator.predict` for the migrated canned models: the same dicts, under the same keys, with the same dtypes.

A canned Estimator's `predict(input_fn)` yields, per example, what its head predicts from the logits:
- classifiers: `logits`, `probabilities` (softmax; binary: of [0, logit]), `class_ids` (int64, shape [1]),
  `classes` (the class id as bytes, shape [1]; the class name given a `label_vocabulary`), `all_class_ids`
  (int32), `all_classes` (bytes); binary heads also `logistic` (the sigmoid);
- regressors: `predictions` (the logits).
Labels in the input are ignored, as Estimator ignored them. `predict_keys` keeps only those keys;
`yield_single_examples=False` yields whole batches.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import tensorflow as tf
import tf_keras

from .canned import Head, head_of
from .forwarded_features import forwarded


def _class_predictions(class_logits: tf.Tensor, vocabulary) -> dict[str, tf.Tensor]:
    """What a classifier head predicts from the logits over all classes (binary: [0, logit])."""
    n_classes = class_logits.shape[-1]
    class_ids = tf.argmax(class_logits, axis=-1)[:, None]  # int64, as Estimator's
    all_class_ids = tf.tile(tf.range(n_classes)[None, :], [tf.shape(class_logits)[0], 1])  # int32
    return {
        "probabilities": tf.nn.softmax(class_logits),
        "class_ids": class_ids,
        "classes": _class_names(class_ids, vocabulary),
        "all_class_ids": all_class_ids,
        "all_classes": _class_names(all_class_ids, vocabulary),
    }


def all_classes(logits: tf.Tensor, vocabulary) -> tf.Tensor:
    """Every class's name for each example of a batch of logits over the classes."""
    all_class_ids = tf.tile(tf.range(logits.shape[-1])[None, :], [tf.shape(logits)[0], 1])
    return _class_names(all_class_ids, vocabulary)


def _class_names(ids: tf.Tensor, vocabulary) -> tf.Tensor:
    """Class ids as Estimator's class names: the label_vocabulary's, or "0", "1"... (strings)."""
    if vocabulary is None:
        return tf.strings.as_string(ids)
    return tf.gather(tf.constant(list(vocabulary)), ids)


def head_predictions(head: Head, logits: tf.Tensor) -> dict[str, tf.Tensor]:
    """The head's predictions for a batch of logits, keyed as Estimator's PredictionKeys (TensorFlow ops:
    eager for `predict`, traced for `compat.estimator_export`)."""
    if head.kind == "regression":
        return {"predictions": logits}
    if head.kind == "multi_label":  # TensorFlow 2's MultiLabelHead also gave every class's name
        predictions = {"logits": logits, "probabilities": tf.math.sigmoid(logits)}
        if not head.v1:
            predictions["classes"] = all_classes(logits, head.label_vocabulary)
        return predictions
    if head.kind == "binary":
        two_class_logits = tf.concat([tf.zeros_like(logits), logits], axis=-1)
        predictions = {"logits": logits, "logistic": tf.math.sigmoid(logits)}
        return {**predictions, **_class_predictions(two_class_logits, head.label_vocabulary)}
    return {"logits": logits, **_class_predictions(logits, head.label_vocabulary)}


def predict(
    model: tf_keras.Model,
    dataset: tf.data.Dataset,
    predict_keys: str | list[str] | None = None,
    yield_single_examples: bool = True,
) -> Iterator[dict[str, np.ndarray]]:
    """What a canned Estimator's `predict(input_fn, ...)` yields, for a `compat.canned` model."""
    head = head_of(model)
    predictions_of = tf.function(lambda features: forwarded(model, features, head_predictions(
        head, model(features, training=False))))
    batches = (tf.nest.map_structure(np.asarray, predictions_of(features_of(batch))) for batch in dataset)
    return as_estimator_yields(batches, predict_keys, yield_single_examples)


def features_of(batch):
    """The features of an input batch: Estimator.predict dropped the labels of (features, labels)."""
    return batch[0] if isinstance(batch, tuple) else batch


def as_estimator_yields(batches, predict_keys, yield_single_examples: bool):
    """Per-batch predictions (a dict of arrays, or one array) as Estimator.predict yielded them: limited to
    `predict_keys`, then one example at a time (or a batch at a time)."""
    keys = [predict_keys] if isinstance(predict_keys, str) else predict_keys
    for predictions in batches:
        if isinstance(predictions, dict) and keys is not None:
            unknown = sorted(set(keys) - set(predictions))
            if unknown:
                raise ValueError(f"predict_keys {unknown} are not among the predictions: {sorted(predictions)}")
            predictions = {key: predictions[key] for key in keys}
        if not yield_single_examples:
            yield predictions
        elif not isinstance(predictions, dict):
            yield from predictions
        else:
            for index in range(len(next(iter(predictions.values())))):
                yield {key: value[index] for key, value in predictions.items()}
