"""`tf.contrib.estimator.forward_features(estimator, keys, sparse_default_values)` (TensorFlow 1.x) for a migrated
estimator.

TensorFlow 1.x's returned an Estimator whose model_fn added features to the PREDICT spec's predictions (a key
column, so that batch predictions can be matched with their examples: Google Cloud's training samples), and to
its `predict` and `serving_default` export outputs where those were a PredictOutput. The migrated estimator
carries the keys (`forwarded_features`): `predict` yields the features beside the predictions, and an export's
prediction signature outputs them, from the receiver's features. As TF 1.x's: all features when `keys` is None;
a feature missing or already a prediction is a ValueError; a sparse one is made dense only with its default
value in `sparse_default_values`, and is an error otherwise.
"""

from __future__ import annotations

from typing import NamedTuple

import tensorflow as tf


class Forwarding(NamedTuple):
    keys: tuple[str, ...] | None  # None: every feature
    sparse_default_values: dict


def forward_features(estimator, keys=None, sparse_default_values=None):
    """The estimator, its predictions carrying the features named by `keys` (all of them: None)."""
    if isinstance(keys, str):
        keys = (keys,)
    elif keys is not None:
        if not isinstance(keys, list | tuple):
            raise TypeError(f"keys should be either a string or a list of strings. Given: {type(keys)}")
        for key in keys:
            if not isinstance(key, str):
                raise TypeError("All items in the given keys list should be a string. There exist an item with "
                                f"type: {type(key)}")
        keys = tuple(keys)
    estimator.forwarded_features = Forwarding(keys, dict(sparse_default_values or {}))
    return estimator


def forwarded_values(model, features, predictions) -> dict:
    """The features `model` forwards, by key, checked against `predictions` (a dict of tensors) as TF 1.x's
    forward_features checked them; empty when it forwards none."""
    forwarding = getattr(model, "forwarded_features", None)
    if forwarding is None:
        return {}
    if not isinstance(predictions, dict):
        raise ValueError(f"Predictions should be a dict to be able to forward features. Given: {type(predictions)}")
    keys = list(features) if forwarding.keys is None else forwarding.keys
    for key in keys:
        if key not in features:
            raise ValueError(f'keys should be exist in features. Key "{key}" is not in features dict. features dict '
                             f"has following keys: {list(features)}. Please check arguments of forward_features.")
        if key in predictions:
            raise ValueError(f"Cannot forward feature key ({key}). Since it does exist in predictions. Existing "
                             f"prediction keys: {list(predictions)}. Please check arguments of forward_features.")
    return {key: _dense(key, features[key], forwarding.sparse_default_values) for key in keys}


def forwarded(model, features, predictions):
    """`predictions` with the features `model` forwards added (as they are when it forwards none)."""
    return {**predictions, **forwarded_values(model, features, predictions)} \
        if getattr(model, "forwarded_features", None) is not None else predictions


def with_forwarded_outputs(export_outputs: dict | None, values: dict) -> dict | None:
    """A PREDICT spec's export outputs with forwarded `values` added to its `predict` and `serving_default`
    outputs where they are a PredictOutput (`kind` "predict"), as TF 1.x's forward_features added them."""
    for name in ("predict", "serving_default"):
        output = (export_outputs or {}).get(name)
        if output is not None and output.kind == "predict":
            output.outputs.update(values)
    return export_outputs


def _dense(key: str, feature, sparse_default_values: dict):
    if isinstance(feature, tf.SparseTensor):
        if key not in sparse_default_values:
            raise ValueError(f"Feature ({key}) should be a Tensor. Please use `keys` argument of forward_features to "
                             "filter unwanted features, or add key to argument `sparse_default_values`. Type of "
                             f"features[{key}] is {type(feature)}.")
        return tf.sparse.to_dense(feature, default_value=sparse_default_values[key])
    if key in sparse_default_values:
        raise ValueError(f"Feature ({key}) is expected to be a `SparseTensor`.")
    return tf.convert_to_tensor(feature)
