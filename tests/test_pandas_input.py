"""pandas_input_fn migrated, against the real thing: tests/legacy/pandas_program.py runs under the Estimator
(legacy env, pandas < 2.2 as Estimator users had it) and, rewritten
(`tf.data.Dataset.from_tensor_slices((dict(frame), series))...`, built by a factory whose `shuffle` is a
parameter), under both targets (pandas 3) from the
Estimator's own model.ckpt-0, carried over by the migrated program itself: after 20 steps on the same batches,
a string column read through a vocabulary included, the weights are the Estimator's within 1e-5."""

from __future__ import annotations

import pytest

from tests.conftest import (
    MODERN_PYTHON,
    ROOT,
    assert_canned_model_holds_estimator_weights,
    estimator_start,
    migrate_file,
    run,
)

# On one xdist worker (--dist loadgroup): the module's reference runs (module fixtures) are made once.
pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("pandas_input")]
PROGRAM = ROOT / "tests" / "legacy" / "pandas_program.py"
STEPS = 20


@pytest.fixture(scope="module")
def estimator_dir(legacy_python, tmp_path_factory):
    model_dir = tmp_path_factory.mktemp("estimator") / "model"
    run([legacy_python, PROGRAM, "--model_dir", model_dir, "--max_steps", STEPS])
    return model_dir


def _programs_model():
    """The model the migrated program builds, with the program's feature columns."""
    import tensorflow as tf
    import tf_keras

    from estimator_migrate.compat import canned

    columns = [tf.feature_column.numeric_column(name) for name in ("ink", "left", "top")]
    columns.append(tf.feature_column.indicator_column(
        tf.feature_column.categorical_column_with_vocabulary_list("shade", ["light", "mid", "dark"])
    ))
    return canned.dnn_regressor(feature_columns=columns, hidden_units=[16, 8],
                                optimizer=tf_keras.optimizers.SGD(learning_rate=0.01), loss_reduction="sum")


@pytest.mark.parametrize("target", ["loop"])  # one target: tests/conftest.py, "Targets"
def test_pandas_input_fn_feeds_the_estimators_batches(target, estimator_dir, tmp_path):
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    code = migrated.read_text()
    assert "dict(frame)" in code and "pandas_input_fn(" not in code and "if shuffle else dataset" in code
    assert "canned.dnn_regressor(" in code and "hidden_units=[16, 8]" in code and "SGD(learning_rate=0.01)" in code
    model_dir = estimator_start(estimator_dir, tmp_path / "model")
    run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--max_steps", STEPS])
    assert_canned_model_holds_estimator_weights(_programs_model(), model_dir, estimator_dir, STEPS)
