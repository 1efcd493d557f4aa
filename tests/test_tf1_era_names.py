"""A program written for TensorFlow 1.x (tests/legacy/tf1_era_program.py: `tf.app.flags`, `tf.logging`,
`tf.layers`, `tf.nn.dropout(x, keep_prob)`, `tf.losses`, `tf.metrics`, `tf.train.AdamOptimizer`, ...) trains
20 steps under the real Estimator with TensorFlow 1.x's API (tests/legacy/run_as_tf1.py). `migrate rewrite`
spells those names `tf.compat.v1.<name>` (codemods/rules/tf1_names.py); before it did, the migrated program
stopped at its first line of flags under TensorFlow 2.21. Migrated for each target and started on a directory
holding only the Estimator's model.ckpt-0, it ends with every variable of the Estimator's model.ckpt-20 within
1e-5 and the same evaluation and predictions; its export, whose raw serving features were placeholders built
outside any graph (TensorSpecs in the migrated program), serves the Estimator's export's values."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import (
    ROOT,
    assert_wrapped_run_matches_estimator,
    run,
    run_wrapped_from_estimator_start,
    served_raw_digits,
)

pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("tf1_era_names")]
PROGRAM = ROOT / "tests" / "legacy" / "tf1_era_program.py"
AS_TF1 = ROOT / "tests" / "legacy" / "run_as_tf1.py"
STEPS = 20


@pytest.fixture(scope="module")
def estimator_dir(legacy_python, tmp_path_factory):
    model_dir = tmp_path_factory.mktemp("estimator") / "model"
    run([legacy_python, AS_TF1, PROGRAM, "--model_dir", model_dir, "--max_steps", STEPS, "--keep_prob", 1.0,
         "--results", model_dir / "results.json", "--export_dir", model_dir.parent / "export"])
    return model_dir


@pytest.mark.parametrize("target", ["loop"])  # one target: tests/conftest.py, "Targets"
def test_tf1_names_keep_their_meaning_step_for_step(estimator_dir, target, tmp_path):
    source, model_dir, results = run_wrapped_from_estimator_start(PROGRAM, estimator_dir, target, tmp_path, STEPS,
                                                                  "--keep_prob", 1.0, "--export_dir", tmp_path / "export")
    # TF1's dropout takes keep_prob where TensorFlow 2's takes rate: the call keeps TF1's function
    assert "tf.compat.v1.nn.dropout(net, params[\"keep_prob\"])" in source
    for tf1_only in ("tf.app.", "tf.logging.", "tf.layers.", "tf.train.AdamOptimizer", "tf.losses.", "tf.metrics."):
        assert tf1_only not in source.replace("tf.compat.v1.", "compat."), tf1_only
    assert_wrapped_run_matches_estimator(model_dir, estimator_dir, STEPS, ("hidden/w", "logits/kernel", "hidden/w/Adam"),
                                         results, {"accuracy", "loss", "global_step"})
    assert "tf.TensorSpec(shape=[None, 64], dtype=tf.float32, name=\"pixels\")" in source
    expected, got = served_raw_digits(estimator_dir.parent / "export"), served_raw_digits(tmp_path / "export")
    assert sorted(got) == sorted(expected) == ["classes", "logits"]
    for key, value in expected.items():
        np.testing.assert_allclose(got[key], value, rtol=0, atol=1e-4, err_msg=key)

