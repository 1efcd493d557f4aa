"""compat.tpu_estimators on its own (modern environment): a TPUEstimator's model_fn and input_fns get the
params TPUEstimator gave them on CPU (the mode's batch size; use_tpu False for the model_fn), the
TPUEstimatorSpec's eval_metrics become the evaluation's metrics, and what TPUEstimator refused, or what does
not run here, fails with one error. Equivalence with the real TPUEstimator: tests/test_tpu_estimator.py."""

from __future__ import annotations

import logging

import numpy as np
import pytest
import tensorflow as tf

from estimator_migrate.compat import estimator_training
from estimator_migrate.compat.estimator_training import ModeKeys
from estimator_migrate.compat.tpu_estimators import TPUEstimatorSpec, TPUTrainingConfig, WrappedTPUModelFn

SEEN = []  # (what, mode, params) of every model_fn and input_fn call


def model_fn(features, labels, mode, params):
    SEEN.append(("model_fn", mode, dict(params)))
    logits = tf.compat.v1.layers.dense(features["x"], 2, name="logits",
                                       kernel_initializer=tf.compat.v1.glorot_uniform_initializer(seed=4))
    if mode == ModeKeys.PREDICT:
        return TPUEstimatorSpec(mode, predictions={"class": tf.argmax(logits, 1)})
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=features["y"], logits=logits))
    if mode == ModeKeys.EVAL:
        def metric_fn(y, logits):
            return {"accuracy": tf.compat.v1.metrics.accuracy(y, tf.argmax(logits, 1, output_type=tf.int32))}

        return TPUEstimatorSpec(mode, loss=loss, eval_metrics=(metric_fn, {"y": features["y"], "logits": logits}))
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, tf.compat.v1.train.get_global_step())
    return TPUEstimatorSpec(mode, loss=loss, train_op=train_op, host_call=(lambda loss: [], [tf.reshape(loss, [1])]))


def input_fn(params, mode):
    SEEN.append(("input_fn", mode, dict(params)))
    x = np.random.RandomState(0).rand(40, 4).astype(np.float32)
    return tf.data.Dataset.from_tensor_slices({"x": x, "y": (x.sum(axis=1) > 2).astype(np.int32)}).batch(
        params["batch_size"])


def _estimator(tmp_path, **kwargs):
    return estimator_training.configure(
        WrappedTPUModelFn(model_fn, params={"units": 3}, use_tpu=False, train_batch_size=8, eval_batch_size=10,
                          predict_batch_size=5, **kwargs),
        config=TPUTrainingConfig(model_dir=str(tmp_path), save_checkpoints_steps=5))


def test_params_carry_each_modes_batch_size_and_eval_metrics_are_evaluated(tmp_path, caplog):
    SEEN.clear()
    estimator = _estimator(tmp_path)
    with caplog.at_level(logging.WARNING, logger="estimator_migrate.compat.tpu_estimators"):
        estimator_training.train(estimator, input_fn, max_steps=5)
    assert "host_call is not run" in caplog.text
    metrics = estimator_training.evaluate(estimator, input_fn)
    predictions = list(estimator_training.predict(estimator, input_fn))
    assert set(metrics) == {"accuracy", "loss", "global_step"} and metrics["global_step"] == 5
    assert 0 <= metrics["accuracy"] <= 1 and len(predictions) == 40
    calls = {(what, mode): params for what, mode, params in SEEN}
    assert calls[("input_fn", ModeKeys.TRAIN)] == {"units": 3, "batch_size": 8}
    assert calls[("model_fn", ModeKeys.TRAIN)] == {"units": 3, "batch_size": 8, "use_tpu": False}
    assert calls[("input_fn", ModeKeys.EVAL)] == {"units": 3, "batch_size": 10}
    assert calls[("model_fn", ModeKeys.EVAL)] == {"units": 3, "batch_size": 10, "use_tpu": False}
    assert calls[("model_fn", ModeKeys.PREDICT)] == {"units": 3, "batch_size": 5, "use_tpu": False}


def test_the_estimators_own_attributes_read_its_model_dir(tmp_path):
    estimator = _estimator(tmp_path)
    assert estimator.latest_checkpoint() is None and estimator.model_dir == str(tmp_path)
    assert estimator.config.save_checkpoints_steps == 5
    assert (estimator.eval_dir(), estimator.eval_dir("holdout")) == (str(tmp_path / "eval"), str(tmp_path / "eval_holdout"))
    with pytest.raises(ValueError, match="Couldn't find a checkpoint"):
        estimator.get_variable_names()
    estimator_training.train(estimator, input_fn, max_steps=5)
    assert estimator.latest_checkpoint() == tf.train.latest_checkpoint(str(tmp_path))
    assert estimator.get_variable_names() == ["global_step", "logits/bias", "logits/kernel"]
    assert estimator.get_variable_value("global_step") == 5
    np.testing.assert_array_equal(estimator.get_variable_value("logits/kernel"),
                                  estimator.tf1_variables["logits/kernel"].numpy())
    with pytest.raises(ValueError, match="hidden/w is not a variable of the checkpoint"):
        estimator.get_variable_value("hidden/w")


def test_what_tpu_estimator_refused_is_refused():
    with pytest.raises(ValueError, match=r"use_tpu=True\): running on a TPU is not migrated"):
        WrappedTPUModelFn(model_fn, use_tpu=True, train_batch_size=8)
    with pytest.raises(ValueError, match="reserved keys"):
        WrappedTPUModelFn(model_fn, params={"batch_size": 8}, use_tpu=False)
    with pytest.raises(ValueError, match="does not include params argument"):
        WrappedTPUModelFn(lambda features, labels, mode: None, use_tpu=False)


def test_an_input_fn_without_params_is_refused(tmp_path):
    estimator = _estimator(tmp_path)
    with pytest.raises(ValueError, match=r"input_fn `\S*<lambda>` does not include params argument"):
        estimator_training.train(estimator, lambda: input_fn({"batch_size": 8}, ModeKeys.TRAIN), max_steps=1)


def test_a_scaffold_that_changes_the_session_is_refused(tmp_path):
    def with_init_op(features, labels, mode, params):
        spec = model_fn(features, labels, mode, params)
        return spec._replace(scaffold_fn=lambda: tf.compat.v1.train.Scaffold(init_op=tf.no_op()))

    estimator = estimator_training.configure(WrappedTPUModelFn(with_init_op, use_tpu=False, train_batch_size=8),
                                             config=TPUTrainingConfig(model_dir=str(tmp_path)))
    with pytest.raises(ValueError, match="Scaffold sets init_op"):
        estimator_training.train(estimator, input_fn, max_steps=1)
