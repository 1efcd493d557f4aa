"""NumPy's removed aliases in a TF 1.x program (rules/numpy_aliases.py): the migrated program runs on the NumPy
TensorFlow 2.21 installs, where each of them raised AttributeError, and computes what the aliases meant."""

import numpy as np
import pytest
import tensorflow as tf

from tests.codemods.test_fixtures import FIXTURES
from tests.conftest import import_program

FIXTURE = FIXTURES / "numpy_removed_aliases"


def test_the_names_are_gone_from_this_numpy():
    for name in ("int", "float", "object", "str", "float_", "NaN", "NINF", "product", "alltrue"):
        with pytest.raises(AttributeError):
            getattr(np, name)


def test_the_migrated_program_runs_and_computes_what_the_aliases_meant(tmp_path):
    program = import_program(FIXTURE / "keras.py")
    features, labels, weights, floor = program.load()
    assert features.dtype == np.float64 and labels.dtype == np.dtype(int) and weights.dtype == np.float64
    assert labels.tolist() == (features.sum(axis=1) > 2).astype(int).tolist() and floor == np.inf
    assert program.class_names([0, 1]).dtype == object
    assert program.class_names([0, 1], object="digit").tolist() == ["digit: 0", "digit: 1"]
    accuracy = program.main(str(tmp_path / "model"))  # (its estimator trains on them: 20 steps, then evaluates)
    assert tf.train.latest_checkpoint(str(tmp_path / "model")).endswith("-20") and 0.4 < accuracy <= 1.0
