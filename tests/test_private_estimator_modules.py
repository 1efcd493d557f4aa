"""Estimator's objects imported from its private modules (codemods/api.py, `_PRIVATE_MODULES`): the migrated fixture
`private_estimator_modules`, whose model_fn returns `model_fn_lib.EstimatorSpec` with an `export_output.PredictOutput`
and whose RunConfig, Estimator, numpy_input_fns, specs and exporter came from `tensorflow.python.estimator...`, trains
to its max_steps, checkpoints at its RunConfig's cadence and exports the PredictOutput's signature: every one of those
names became its compat twin (none of the private modules exists in TensorFlow 2.21)."""

import numpy as np
import pytest
import tensorflow as tf
from sklearn.datasets import load_digits

from tests.codemods.test_fixtures import FIXTURES
from tests.conftest import import_program, listed_checkpoint_steps


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_the_migrated_program_trains_checkpoints_and_exports(tmp_path, target):
    code = (FIXTURES / "private_estimator_modules" / f"{target}.py").read_text().split('"""')[2]  # (past the docstring)
    assert "tensorflow.python.estimator" not in code and "tensorflow_estimator" not in code
    program = import_program(FIXTURES / "private_estimator_modules" / f"{target}.py")
    digits = load_digits()
    images, labels = (digits.data[:640] / 16.0).astype(np.float32), digits.target[:640].astype(np.int32)
    metrics, exports = program.main(images, labels, str(tmp_path))
    assert metrics["global_step"] == 60 and 0.5 < metrics["accuracy"] <= 1.0
    assert listed_checkpoint_steps(tmp_path)[-1] == 60
    (export,) = exports
    served = tf.saved_model.load(export).signatures["serving_default"](x=tf.constant(images[:4]))
    assert sorted(served) == ["classes", "probabilities"] and served["probabilities"].shape == (4, 10)
