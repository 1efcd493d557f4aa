"""`tf.estimator.export.TensorServingInputReceiver` (the model_fn given the receiver's one tensor as its features,
not in a dict) -> compat.estimator_export's. tests/legacy/tensor_receiver_program.py (TF 1.x code) exported by the
real Estimator and, migrated for both targets, from the Estimator's model.ckpt-0: the same signature, its input
named `input`, the same outputs for the same images. It was kept as it was, with no word, and stopped the program
(TensorFlow >= 2.16 has no tf.estimator)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf

from estimator_migrate.compat import estimator_export
from tests.conftest import ROOT, run_wrapped_from_estimator_start, wrapped_reference

PROGRAM = ROOT / "tests" / "legacy" / "tensor_receiver_program.py"
STEPS = 10


def served(results) -> tuple[list, dict]:
    """The exported serving_default signature's inputs, and its outputs for six images."""
    export_dir = json.loads(results.read_text())["export_dir"]
    signature = tf.saved_model.load(export_dir).signatures["serving_default"]  # (model_dir is absolute)
    images = tf.constant(np.linspace(1, 0, 6 * 16, dtype=np.float32).reshape(6, 16))
    return sorted(signature.structured_input_signature[1]), {
        key: value.numpy() for key, value in signature(input=images).items()}


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.parametrize("target", ["keras"])  # one target: tests/conftest.py, "Targets"
def test_a_tensor_receivers_export_serves_the_estimators_signature(target, legacy_python, tmp_path):
    estimator_dir = wrapped_reference(legacy_python, PROGRAM, tmp_path / "estimator", STEPS, as_tf1=True)
    migrated, _, results = run_wrapped_from_estimator_start(PROGRAM, estimator_dir, target, tmp_path / "run", STEPS)
    assert "estimator_export.TensorServingInputReceiver(features=images" in migrated
    expected_inputs, expected = served(estimator_dir / "results.json")
    inputs, got = served(results)
    assert inputs == expected_inputs == ["input"]
    assert got.keys() == expected.keys() == {"classes", "probabilities"}
    np.testing.assert_array_equal(got["classes"], expected["classes"])
    np.testing.assert_allclose(got["probabilities"], expected["probabilities"], atol=1e-5)


def test_a_tensor_receiver_takes_a_tensor_feature_only():
    def receiver():
        images = tf.compat.v1.placeholder(tf.float32, [None, 4])
        return estimator_export.TensorServingInputReceiver({"images": images}, images)

    with tf.Graph().as_default(), pytest.raises(ValueError, match="feature must be a Tensor, SparseTensor, or"):
        estimator_export._receiver(receiver)
