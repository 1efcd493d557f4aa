"""`tf.estimator.add_metrics` (compat/added_metrics.py) against the real Estimator: tests/legacy/added_metrics_program.py
trains a DNNRegressor and a custom model_fn, each given metrics of the program's own, to step 30 under TensorFlow
2.15 and evaluates them. Rewritten for each target and started on a copy of the Estimator's model_dirs (training
done: it evaluates the Estimator's model.ckpt-30), the migrated program returns the Estimator's metrics: the added
RMSE, the feature-weighted error and the `mae` that replaced the model_fn's own equal to the Estimator's as
float32 values; the head's own metrics within 1e-6 (the migrated canned head computes them in float64). The
add_metrics contract (Estimator's argument check, TF1 metric pairs) is checked in the modern environment."""

from __future__ import annotations

import functools
import json
import shutil

import pytest

from estimator_migrate.compat import added_metrics
from tests.conftest import MODERN_PYTHON, ROOT, migrate_file, run

PROGRAM = ROOT / "tests" / "legacy" / "added_metrics_program.py"
ADDED = {"canned": ("rmse", "ink_weighted_error"), "custom": ("rmse", "mae")}


@pytest.fixture(scope="module")
def estimator_dir(legacy_python, tmp_path_factory):
    model_dir = tmp_path_factory.mktemp("estimator") / "model"
    run([legacy_python, PROGRAM, "--model_dir", model_dir, "--results", model_dir / "results.json"])
    return model_dir


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.xdist_group("added_metrics")
@pytest.mark.parametrize("target", ["loop"])  # one target: tests/conftest.py, "Targets"
def test_migrated_estimators_evaluate_the_added_metrics_as_the_estimator(target, estimator_dir, tmp_path):
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    assert "added_metrics.add_metrics(regressor, my_rmse)" in migrated.read_text()
    model_dir = tmp_path / "model"
    shutil.copytree(estimator_dir, model_dir)
    run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--results", tmp_path / "results.json"])
    expected = json.loads((estimator_dir / "results.json").read_text())
    found = json.loads((tmp_path / "results.json").read_text())
    for name, metrics in expected.items():
        assert found[name].keys() == metrics.keys()
        for key in ADDED[name]:
            assert found[name][key] == metrics[key], (name, key)  # the same float32 from the same TF1 metric
        assert found[name] == pytest.approx(metrics, rel=1e-6), name


def test_metric_fns_taking_other_arguments_are_estimators_error():
    def weighted(labels, predictions, weights):
        return {}

    with pytest.raises(ValueError, match=r"has following not expected args: \['weights'\]"):
        added_metrics.add_metrics(object(), weighted)
    estimator = type("Estimator", (), {})()
    assert added_metrics.add_metrics(estimator, functools.partial(weighted, weights=None)) is estimator
    assert len(estimator.added_metric_fns) == 1


def test_a_metric_that_is_not_a_tf1_pair_is_one_error_naming_it():
    def keras_style(labels, predictions):
        return {"auc": object()}

    with pytest.raises(TypeError, match=r"keras_style's 'auc' must be a \(value, update_op\) pair"):
        added_metrics.call_metric_fns([keras_style], {}, None, {}, None)
