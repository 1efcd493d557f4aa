"""A model_fn calling a tf.keras model (TensorFlow's official MNIST shape), wrapped as written
(compat.wrapped_model_fns), against the real Estimator.

tests/legacy/keras_model_fn_program.py builds a `tf.keras.Sequential` with `input_shape` inside its model_fn: in
Estimator's graph Keras made its Input a placeholder and its layers TF1 graph layers; a wrapped model_fn must give
Keras the same answer (a Sequential built from TF2 KerasTensors and TF1 layers recursed for ever), and its layers'
variables and Adam slots the Estimator's names. The reference runs as TensorFlow 1.x ran it (tests/legacy/
run_as_tf1.py), 20 steps; migrated (both targets) and started on the Estimator's model.ckpt-0, every variable of its
model.ckpt-20 (Adam's slots included) within 1e-5, the same evaluation and predictions; its export (a raw receiver
over a placeholder the program made in its own function: a tf.TensorSpec now) serves the Estimator's logits.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from sklearn.datasets import load_digits

from tests.conftest import ROOT, assert_wrapped_run_matches_estimator, run, run_wrapped_from_estimator_start

pytestmark = [pytest.mark.slow, pytest.mark.legacy]
PROGRAM = ROOT / "tests" / "legacy" / "keras_model_fn_program.py"
AS_TF1 = ROOT / "tests" / "legacy" / "run_as_tf1.py"
STEPS = 20


@pytest.fixture(scope="module")
def estimator_dir(legacy_python, tmp_path_factory):
    model_dir = tmp_path_factory.mktemp("estimator") / "model"
    run([legacy_python, AS_TF1, PROGRAM, "--model_dir", model_dir, "--max_steps", STEPS,
         "--results", model_dir / "results.json", "--export_dir", model_dir / "export"])
    return model_dir


def served(export_base) -> np.ndarray:
    """The logits of the one SavedModel under export_base, fed digits' first 20 images as `image`."""
    (export,) = export_base.iterdir()
    signature = tf.saved_model.load(str(export)).signatures["serving_default"]
    return signature(image=tf.constant((load_digits().data[:20] / 16.0).astype(np.float32)))["logits"].numpy()


@pytest.mark.parametrize("target", ["loop"])  # one target: tests/conftest.py, "Targets"
def test_the_keras_model_in_the_model_fn_takes_the_estimators_steps(estimator_dir, target, tmp_path):
    code, model_dir, results = run_wrapped_from_estimator_start(PROGRAM, estimator_dir, target, tmp_path, STEPS,
                                                                "--export_dir", tmp_path / "export")
    assert "image = tf.TensorSpec(shape=[None, 64], dtype=tf.float32)" in code
    assert_wrapped_run_matches_estimator(model_dir, estimator_dir, STEPS, ("conv2d/kernel", "dense/kernel",
                                         "conv2d/kernel/Adam"), results, {"accuracy", "loss", "global_step"})
    np.testing.assert_allclose(served(tmp_path / "export"), served(estimator_dir / "export"), rtol=0, atol=1e-4)
