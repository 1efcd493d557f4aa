"""Keras metric objects in a wrapped model_fn's eval_metric_ops (compat.wrapped_model_fns): TensorFlow 2's Estimator
took `eval_metric_ops={"auc": metric}` (updated in the model_fn) beside TF1's (value, update_op) pairs, its
variables local ones. tests/legacy/keras_metrics_model_fn_program.py trains 30 steps and evaluates twice under the
real Estimator; migrated and run from its model.ckpt-0, each evaluation gives the Estimator's metrics (the second
starting from zero again, as the first), and the checkpoint holds the Estimator's variables only."""

from __future__ import annotations

import json

import pytest

from tests.conftest import (
    ROOT,
    assert_tf1_variables_match,
    run_wrapped_from_estimator_start,
    wrapped_reference,
)

PROGRAM = ROOT / "tests" / "legacy" / "keras_metrics_model_fn_program.py"
STEPS = 30


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.parametrize("target", ["keras"])  # one target: tests/conftest.py, "Targets"
def test_keras_metrics_evaluate_as_the_estimators_each_evaluation_from_zero(target, legacy_python, tmp_path):
    estimator_dir = wrapped_reference(legacy_python, PROGRAM, tmp_path / "estimator", STEPS)
    _, model_dir, results = run_wrapped_from_estimator_start(PROGRAM, estimator_dir, target, tmp_path / "run", STEPS)
    assert_tf1_variables_match(model_dir, estimator_dir / f"model.ckpt-{STEPS}", estimator_dir / "model.ckpt-0", STEPS,
                               ("hidden/kernel", "logits/kernel"))
    expected, got = (json.loads(path.read_text())["metrics"] for path in (estimator_dir / "results.json", results))
    assert expected[0] == expected[1] and set(expected[0]) == {"auc", "accuracy", "mean_probability", "loss",
                                                               "global_step"}
    for mine, theirs in zip(got, expected, strict=True):
        assert mine == pytest.approx(theirs, rel=1e-5)


def test_a_keras_metric_never_updated_is_estimators_error():
    import numpy as np
    import tensorflow as tf
    import tf_keras

    from estimator_migrate.compat.estimator_training import ModeKeys
    from estimator_migrate.compat.wrapped_model_fns import EstimatorSpec, WrappedModelFn

    def model_fn(features, labels, mode):
        loss = tf.reduce_mean(tf.compat.v1.layers.dense(features["x"], 1, name="out"))
        if mode == ModeKeys.EVAL:
            return EstimatorSpec(mode, loss=loss, eval_metric_ops={"auc": tf_keras.metrics.AUC()})
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, tf.compat.v1.train.get_global_step())
        return EstimatorSpec(mode, loss=loss, train_op=train_op)

    dataset = tf.data.Dataset.from_tensor_slices(({"x": np.ones([4, 2], np.float32)}, np.ones([4], np.float32)))
    model = WrappedModelFn(model_fn)
    model.make_variables(dataset.batch(2).element_spec, ModeKeys.TRAIN)
    with pytest.raises(ValueError, match=r'Please call update_state\(\.\.\.\) on the "auc" metric'):
        model.estimator_evaluate(dataset.batch(2))
