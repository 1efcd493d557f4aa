"""tf.contrib.learn's RunConfig given to a tf.estimator Estimator (codemods/api.py, `_RENAMED`): the migrated fixture
`contrib_learn_runconfig` trains its wrapped model_fn to step 50 with the RunConfig's cadence, a checkpoint every 25
steps in its model_dir, as TensorFlow 1.x's Estimator took the contrib RunConfig's settings."""

import numpy as np
import pytest
import tensorflow as tf
from sklearn.datasets import load_digits

from tests.codemods.test_fixtures import FIXTURES
from tests.conftest import import_program, listed_checkpoint_steps


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_the_contrib_run_configs_cadence_is_kept(tmp_path, target):
    program = import_program(FIXTURES / "contrib_learn_runconfig" / f"{target}.py")
    digits = load_digits()
    images, labels = (digits.data / 16.0).astype(np.float32), digits.target.astype(np.int32)

    def train_input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": images}, labels)).repeat().batch(32)

    estimator = program.train(train_input_fn, str(tmp_path))
    assert listed_checkpoint_steps(tmp_path) == [0, 25, 50]
    assert int(estimator.optimizer.iterations) == 50
