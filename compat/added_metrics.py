"""`tf.estimator.add_metrics(estimator, metric_fn)` (and tf.contrib.estimator's) for a migrated estimator.

Estimator's add_metrics returned an Estimator whose EVAL model_fn called `metric_fn` with those of `features`,
`labels`, `predictions` and `config` it names, and put the metrics it returned, TF1 `(value, update_op)` pairs,
among the evaluation's (replacing any of the same name). The migrated estimator carries its metric_fns
(`added_metric_fns`): a model_fn kept as written calls them in its EVAL graph as Estimator did
(compat.wrapped_model_fns); a canned model's evaluation hands them each batch's features, labels and head
predictions in a TF1 graph and session of their own (`GraphMetrics`), where their update ops run per batch and
their values are read once at the end, as in Estimator's evaluation.

`add_metrics` returns the estimator it is given, now with the metric: Estimator returned a new one sharing its
model_dir. Programs reassign it (`estimator = add_metrics(estimator, fn)`); one evaluating the estimator it
passed in gets the added metrics from it too.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable

import numpy as np
import tensorflow as tf

VALID_ARGUMENTS = ("features", "labels", "predictions", "config")


def _arguments(metric_fn: Callable) -> list[str]:
    """The names metric_fn takes, as Estimator read them (a functools.partial's bound ones left out)."""
    if isinstance(metric_fn, functools.partial):
        bound = set(metric_fn.keywords)
        return [name for name in _arguments(metric_fn.func)[len(metric_fn.args):] if name not in bound]
    return [name for name in inspect.signature(metric_fn).parameters if name != "self"]


def add_metrics(estimator, metric_fn: Callable):
    """`tf.estimator.add_metrics(estimator, metric_fn)`: the estimator, evaluating metric_fn's metrics too."""
    invalid = [name for name in _arguments(metric_fn) if name not in VALID_ARGUMENTS]
    if invalid:
        raise ValueError(f"metric_fn ({metric_fn}) has following not expected args: {invalid}")  # Estimator's error
    estimator.added_metric_fns = (*getattr(estimator, "added_metric_fns", ()), metric_fn)
    return estimator


def call_metric_fns(metric_fns, features, labels, predictions, config) -> dict:
    """The metrics the metric_fns return, each given what it names; a later one's replaces an earlier's."""
    given = {"features": features, "labels": labels, "predictions": predictions, "config": config}
    metrics = {}
    for metric_fn in metric_fns:
        named = getattr(metric_fn, "__name__", repr(metric_fn))  # (a functools.partial has no name)
        returned = metric_fn(**{name: given[name] for name in _arguments(metric_fn)})
        if not isinstance(returned, dict):
            raise TypeError(f"metric_fn {named} must return a dict of metrics, got {type(returned).__name__}")
        for name, pair in returned.items():
            if not (isinstance(pair, tuple | list) and len(pair) == 2):
                raise TypeError(
                    f"metric_fn {named}'s {name!r} must be a (value, update_op) pair, as "
                    f"tf.compat.v1.metrics.* return (got {type(pair).__name__}: a Keras Metric object is not migrated)"
                )
        metrics.update(returned)
    return metrics


def _placeholder(value: np.ndarray):
    dtype = tf.string if value.dtype.kind in "OSU" else tf.as_dtype(value.dtype)
    return tf.compat.v1.placeholder(dtype, [None, *value.shape[1:]])


class GraphMetrics:
    """The metric_fns' metrics over an evaluation's batches (numpy structures), in a TF1 graph of their own."""

    def __init__(self, metric_fns, config):
        self._metric_fns, self._config = metric_fns, config
        self._session = None

    def _build(self, features, labels, predictions) -> None:
        graph = tf.Graph()
        with graph.as_default():
            self._inputs = tf.nest.map_structure(_placeholder, (features, labels, predictions))
            metrics = call_metric_fns(self._metric_fns, *self._inputs, self._config)
            self._values = {name: value for name, (value, _) in metrics.items()}
            self._updates = [update for _, update in metrics.values()]
            initialize = tf.compat.v1.group(tf.compat.v1.global_variables_initializer(),
                                            tf.compat.v1.local_variables_initializer())
        self._session = tf.compat.v1.Session(graph=graph)
        self._session.run(initialize)

    def update(self, features, labels, predictions) -> None:
        """Run the update ops on one batch."""
        batch = tf.nest.map_structure(np.asarray, (features, labels, predictions))
        if self._session is None:
            self._build(*batch)
        feeds = dict(zip(tf.nest.flatten(self._inputs), tf.nest.flatten(batch), strict=True))
        self._session.run(self._updates, feed_dict=feeds)

    def result(self) -> dict:
        """The metrics' values after the batches (none: no batch was given)."""
        if self._session is None:
            return {}
        values = self._session.run(self._values)
        self._session.close()
        return {name: np.asarray(value).item() if np.ndim(value) == 0 else np.asarray(value)
                for name, value in values.items()}
