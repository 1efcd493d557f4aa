"""Canned estimators beyond DNNClassifier, end to end: the real Estimator (legacy env) against the programs
`migrate rewrite` makes of it. From the Estimator's own step 0 (converted by `convert-checkpoint`) and the
same unshuffled batches, 20 migrated steps give the Estimator's `model.ckpt-20` within 1e-5, and the migrated
`evaluate` (compat.estimator_evaluation) and `predict` (compat.estimator_prediction) then give the Estimator's metrics and
predictions, key for key (predictions: dtypes too)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from compat.convert import convert_checkpoint
from tests.conftest import MODERN_PYTHON, assert_matches_estimator_checkpoint, migrate_file, run
from tests.legacy.canned_programs import PROGRAMS

pytestmark = [pytest.mark.slow, pytest.mark.legacy]
STEPS = 20
# Weights agree within 1e-5; metrics computed from them agree to this relative tolerance. AUCs count
# examples per threshold bucket: one example crossing a bucket edge moves them by about 1e-5.
METRICS_RTOL = 1e-4


@pytest.fixture(scope="module")
def estimator_runs(legacy_python, tmp_path_factory):
    """Each program written out and run by the real Estimator: its source, model_dir, metrics and predictions."""
    runs = {}
    for name, source in PROGRAMS.items():
        work = tmp_path_factory.mktemp(name)
        program = work / f"{name}.py"
        program.write_text(source)
        metrics = work / "metrics.json"
        run([legacy_python, program, "--model_dir", work / "estimator", "--max_steps", STEPS,
             "--metrics_out", metrics])
        runs[name] = (program, work / "estimator", json.loads(metrics.read_text()))
    return runs


@pytest.mark.parametrize("target", ["keras", "loop"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_migrated_canned_estimator_takes_the_estimators_steps(name, target, estimator_runs, tmp_path):
    program, estimator_dir, estimator_outputs = estimator_runs[name]
    model_dir = tmp_path / "model"
    convert_checkpoint(estimator_dir / "model.ckpt-0", out=model_dir)
    migrated = migrate_file(program, tmp_path / "migrated", target)
    metrics_out = tmp_path / "metrics.json"
    run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--max_steps", STEPS, "--metrics_out", metrics_out])

    assert_matches_estimator_checkpoint(model_dir, estimator_dir, STEPS)

    migrated_outputs = json.loads(metrics_out.read_text())
    migrated_metrics = migrated_outputs["metrics"]
    assert sorted(migrated_metrics) == sorted(estimator_outputs["metrics"])
    assert migrated_metrics["global_step"] == estimator_outputs["metrics"]["global_step"] == STEPS
    for key, expected in estimator_outputs["metrics"].items():
        assert migrated_metrics[key] == pytest.approx(expected, rel=METRICS_RTOL, abs=1e-6), key

    assert len(migrated_outputs["predictions"]) == len(estimator_outputs["predictions"]) == 100
    for index, (actual, expected) in enumerate(zip(migrated_outputs["predictions"], estimator_outputs["predictions"])):
        assert sorted(actual) == sorted(expected), index
        for key, (dtype, values) in expected.items():
            assert actual[key][0] == dtype, f"example {index}: {key}"
            if dtype.startswith("float"):
                np.testing.assert_allclose(
                    np.array(actual[key][1], float), np.array(values, float), rtol=METRICS_RTOL, atol=1e-5,
                    err_msg=f"example {index}: {key}",
                )
            else:
                assert actual[key][1] == values, f"example {index}: {key}"
