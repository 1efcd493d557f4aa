"""SessionRunHooks of a wrapped model_fn (compat.wrapped_hooks) against the real Estimator:
tests/legacy/session_hooks_program.py trains under TensorFlow 2.15 with a LoggingTensorHook in its
training_hooks, a hook of its own in train(hooks=...) (fetches by object and by name, the global step read
with run_context.session.run, a stop requested at step 12) and an evaluation hook. Rewritten for each target
and started on that run's model.ckpt-0, the migrated program's hooks see the same values at every step
(equal floats), training stops at the same step with the same checkpoint, and the evaluation hook sees the
same batch losses."""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf

from estimator_migrate.compat.legacy_checkpoint import LegacyCheckpoint
from tests.conftest import MODERN_PYTHON, ROOT, estimator_start, migrate_file, run, tf1_variables_in

# On one xdist worker (--dist loadgroup): the module's reference runs (module fixtures) are made once.
pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("session_hooks")]
PROGRAM = ROOT / "tests" / "legacy" / "session_hooks_program.py"


@pytest.fixture(scope="module")
def estimator_dir(legacy_python, tmp_path_factory):
    model_dir = tmp_path_factory.mktemp("hooked") / "model"
    run([legacy_python, PROGRAM, "--model_dir", model_dir, "--record", model_dir / "record.json"])
    return model_dir


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_hooks_see_what_they_saw_under_the_estimator(estimator_dir, target, tmp_path):
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    assert "wrapped_model_fns.WrappedModelFn(model_fn" in migrated.read_text()
    model_dir = estimator_start(estimator_dir, tmp_path / "model")
    record = tmp_path / "record.json"
    run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--record", record])

    expected, got = (json.loads(path.read_text()) for path in (estimator_dir / "record.json", record))
    assert [r["step"] for r in expected["train"]] == list(range(1, 13))  # the hook's stop at 12, of 20
    assert got == expected
    reference = LegacyCheckpoint(estimator_dir / "model.ckpt-12")
    migrated_variables = tf1_variables_in(tf.train.latest_checkpoint(str(model_dir)))
    assert set(migrated_variables) == set(reference.shapes)
    for name, value in migrated_variables.items():
        np.testing.assert_allclose(value, reference.read(name), rtol=0, atol=1e-5, err_msg=name)
