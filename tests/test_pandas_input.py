"""pandas_input_fn migrated, against the real thing: tests/legacy/pandas_program.py runs under the Estimator
(legacy env) and, rewritten (`tf.data.Dataset.from_tensor_slices((dict(frame), series))...`), under both
targets from the Estimator's own step 0 (converted): after 20 steps on the same batches the weights are the
Estimator's within 1e-5."""

from __future__ import annotations

import pytest

from compat.convert import convert_checkpoint
from tests.conftest import MODERN_PYTHON, ROOT, assert_matches_estimator_checkpoint, migrate_file, run

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
    model_dir = tmp_path / "model"
    convert_checkpoint(estimator_dir / "model.ckpt-0", out=model_dir)
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    assert "dict(frame)" in migrated.read_text() and "pandas_input_fn(" not in migrated.read_text()
    run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--max_steps", STEPS])
    assert_matches_estimator_checkpoint(model_dir, estimator_dir, STEPS)
