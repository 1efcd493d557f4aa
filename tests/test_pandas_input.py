"""pandas_input_fn migrated, against the real thing: tests/legacy/pandas_program.py runs under the Estimator
(legacy env) and, rewritten (`tf.data.Dataset.from_tensor_slices((dict(frame), series))...`), under both
targets from the Estimator's own step 0 (converted): after 20 steps on the same batches the weights are the
Estimator's within 1e-5."""

from __future__ import annotations

import pytest

from tests.conftest import ROOT, assert_matches_estimator_checkpoint, run, run_migrated_from_estimator_start

pytestmark = [pytest.mark.slow, pytest.mark.legacy]
PROGRAM = ROOT / "tests" / "legacy" / "pandas_program.py"
STEPS = 20


@pytest.fixture(scope="module")
def estimator_dir(legacy_python, tmp_path_factory):
    model_dir = tmp_path_factory.mktemp("estimator") / "model"
    run([legacy_python, PROGRAM, "--model_dir", model_dir, "--max_steps", STEPS])
    return model_dir


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_pandas_input_fn_feeds_the_estimators_batches(target, estimator_dir, tmp_path):
    migrated, model_dir = run_migrated_from_estimator_start(PROGRAM, estimator_dir, target, tmp_path, "--max_steps", STEPS)
    assert "dict(frame)" in migrated.read_text() and "pandas_input_fn(" not in migrated.read_text()
    assert_matches_estimator_checkpoint(model_dir, estimator_dir, STEPS)
