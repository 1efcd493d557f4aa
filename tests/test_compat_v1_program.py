"""A program that switched TensorFlow 2's behaviour off to run its 1.x code (tests/legacy/compat_v1_program.py:
`import tensorflow.compat.v1 as tf`, `tf.disable_v2_behavior()`, a model_fn reading `shape[-1].value`) trains 20
steps under the real Estimator. `migrate rewrite` keeps of the switch what the program's own code reads
(`disable_v2_tensorshape()`: the migrated training runs eagerly; before, the kept switch stopped it at its first
step), and its placeholders describing the serving features become TensorSpecs. Migrated for each target and
started on a directory holding only the Estimator's model.ckpt-0, it ends with every variable of the Estimator's
model.ckpt-20 within 1e-5, the same evaluation and predictions, and an export serving the Estimator's values, also
as tf.contrib.predictor served exports (compat.contrib_predictor, the Estimator's export and the migrated one)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.datasets import load_digits

from estimator_migrate.compat import contrib_predictor
from tests.conftest import (
    ROOT,
    assert_wrapped_run_matches_estimator,
    run_wrapped_from_estimator_start,
    served_raw_digits,
    wrapped_reference,
)

pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("compat_v1_program")]
PROGRAM = ROOT / "tests" / "legacy" / "compat_v1_program.py"
STEPS = 20


@pytest.fixture(scope="module")
def estimator_dir(legacy_python, tmp_path_factory):
    model_dir = tmp_path_factory.mktemp("estimator") / "model"
    return wrapped_reference(legacy_python, PROGRAM, model_dir, STEPS, "--export_dir", model_dir.parent / "export")


@pytest.mark.parametrize("target", ["keras"])  # one target: tests/conftest.py, "Targets"
def test_a_program_that_switched_tf2_off_keeps_tf1_shapes_and_continues_the_estimator(estimator_dir, target, tmp_path):
    source, model_dir, results = run_wrapped_from_estimator_start(PROGRAM, estimator_dir, target, tmp_path, STEPS,
                                                                  "--export_dir", tmp_path / "export")
    assert "disable_v2_behavior" not in source and "\ntf.disable_v2_tensorshape()\n" in source
    assert 'tf.TensorSpec(shape=[None, 64], dtype=tf.float32, name="pixels")' in source
    assert_wrapped_run_matches_estimator(model_dir, estimator_dir, STEPS, ("hidden/w", "logits/kernel", "hidden/w/Adam"),
                                         results, {"accuracy", "loss", "global_step"})
    expected, got = served_raw_digits(estimator_dir.parent / "export"), served_raw_digits(tmp_path / "export")
    assert sorted(got) == sorted(expected) == ["classes", "logits"]
    for key, value in expected.items():
        np.testing.assert_allclose(got[key], value, rtol=0, atol=1e-4, err_msg=key)
    # tf.contrib.predictor's way of serving them (compat.contrib_predictor): the export's MetaGraph loaded into a
    # session, fed by the signature's keys: the Estimator's export gives its predict()'s logits, the migrated one too
    predictions = json.loads((estimator_dir / "results.json").read_text())
    pixels = (load_digits().data[:20] / 16.0).astype(np.float32)
    for export_base in (estimator_dir.parent / "export", tmp_path / "export"):
        (export,) = export_base.iterdir()
        predict_fn = contrib_predictor.from_saved_model(str(export))
        assert sorted(predict_fn.feed_tensors) == ["pixels"]
        served = predict_fn({"pixels": pixels})
        np.testing.assert_allclose(served["logits"], predictions["logits"], rtol=0, atol=1e-4, err_msg=str(export))
        assert served["classes"].tolist() == predictions["classes"]
