"""`tf.keras.estimator.model_to_estimator` (compat/keras_estimators.py) against the real Estimator:
tests/legacy/keras_estimator_program.py (TensorFlow's own tutorial shape: a compiled Sequential model turned
into an Estimator) trains to step 10, then, started again, to step 20 under TensorFlow 2.15. Rewritten for
each target, the same program is started on a directory holding only the Estimator's model.ckpt-10 (Adam's
moments already non-zero), which it continues by itself: at step 20 every weight, Adam slot and
hyperparameter equals the Estimator's model.ckpt-20 within 1e-5, and evaluate() and predict() return the
Estimator's results. A migrated run SIGKILLed after a save and started again ends at its max_steps. The
model_to_estimator contract (a compiled tf_keras model, the Estimator's errors, the model given left
untrained) is checked in the modern environment alone."""

from __future__ import annotations

import ast
import json
import shutil

import numpy as np
import pytest
import tensorflow as tf
import tf_keras

from tests.conftest import (
    MODERN_PYTHON,
    ROOT,
    kill_after_a_save_and_restart,
    latest_saved_step,
    migrate_file,
    run,
)

PROGRAM = ROOT / "tests" / "legacy" / "keras_estimator_program.py"
STEPS = 20


@pytest.fixture(scope="module")
def estimator_dir(legacy_python, tmp_path_factory):
    """The Estimator trained to step 10, then, in a second process, to 20 (its input_fn started over, as a
    restarted Estimator's did), evaluated and predicting (results.json)."""
    model_dir = tmp_path_factory.mktemp("estimator") / "model"
    run([legacy_python, PROGRAM, "--model_dir", model_dir, "--max_steps", 10])
    run([legacy_python, PROGRAM, "--model_dir", model_dir, "--max_steps", STEPS, "--results", model_dir / "results.json"])
    return model_dir


def _estimator_values(prefix) -> dict:
    """An object-based checkpoint's values by their path under the Keras model (a migrated one's `model/`
    prefix dropped), without the object graph and the Estimator's own step."""
    reader = tf.train.load_checkpoint(str(prefix))
    return {key.removeprefix("model/"): reader.get_tensor(key) for key in reader.get_variable_to_shape_map()
            if key.startswith(("model/", "layer_with_weights", "optimizer/")) and "/iter/" not in key}


def _slow(test):
    """A test of real training runs, on one xdist worker (--dist loadgroup): the reference is made once."""
    return pytest.mark.slow(pytest.mark.legacy(pytest.mark.xdist_group("keras_estimator")(test)))


@_slow
@pytest.mark.parametrize("target", ["keras"])  # one target: tests/conftest.py, "Targets"
def test_continues_the_estimator_checkpoint_step_for_step(estimator_dir, target, tmp_path):
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    code = ast.parse(migrated.read_text())
    source = ast.unparse(ast.Module(body=code.body[1:], type_ignores=[]))  # the code after the docstring, no comments
    assert "tf.keras" not in source and "tf.estimator" not in source
    assert "keras_estimators.model_to_estimator(keras_model=model" in source
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    for path in estimator_dir.glob("model.ckpt-10.*"):
        shutil.copy(path, model_dir)
    (model_dir / "checkpoint").write_text('model_checkpoint_path: "model.ckpt-10"\n')
    results = tmp_path / "results.json"
    run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--max_steps", STEPS, "--results", results])

    expected = _estimator_values(estimator_dir / f"model.ckpt-{STEPS}")
    started = _estimator_values(estimator_dir / "model.ckpt-10")
    got = _estimator_values(tf.train.latest_checkpoint(str(model_dir)))
    assert latest_saved_step(model_dir) == STEPS
    assert set(got) == set(expected) and any("OPTIMIZER_SLOT" in key for key in expected)
    for key, value in expected.items():
        if "kernel" in key:
            assert not np.allclose(value, started[key]), f"{key} did not train"
        np.testing.assert_allclose(got[key], value, rtol=0, atol=1e-5, err_msg=key)
    want, have = (json.loads(path.read_text()) for path in (estimator_dir / "results.json", results))
    assert have["metrics"].keys() == want["metrics"].keys() == {"accuracy", "loss", "global_step"}
    for key, value in want["metrics"].items():
        assert have["metrics"][key] == pytest.approx(value, rel=1e-5), key
    np.testing.assert_allclose(have["logits"], want["logits"], rtol=0, atol=1e-4)


@_slow
@pytest.mark.parametrize("target", ["loop"])  # one target: tests/conftest.py, "Targets"
def test_sigkill_and_restart_ends_at_max_steps(target, tmp_path):
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    model_dir, steps = tmp_path / "model", 400
    kill_after_a_save_and_restart(migrated, target, model_dir, steps)
    reader = tf.train.load_checkpoint(tf.train.latest_checkpoint(str(model_dir)))
    # the optimizer's step (the loop's checkpoint holds it once, as its `step`)
    (key,) = [key for key in reader.get_variable_to_shape_map() if key.startswith(("optimizer/iter/", "step/"))]
    assert reader.get_tensor(key) == steps


def _compiled(optimizer="adam"):
    model = tf_keras.Sequential([tf_keras.layers.Dense(3, input_shape=(4,))])
    model.compile(optimizer=optimizer, loss="mse", metrics=["mae"])
    return model


def test_trains_a_clone_with_the_legacy_optimizer_and_leaves_the_model_given_as_it_was(tmp_path):
    """As Estimator: the estimator starts from the model's weights, trains a clone with the optimizer's legacy
    class (what Estimator's graph ran), and the model handed to model_to_estimator keeps its weights."""
    from estimator_migrate.compat import estimator_training, keras_estimators

    model = _compiled()
    before = [w.copy() for w in model.get_weights()]
    estimator = keras_estimators.model_to_estimator(keras_model=model, model_dir=tmp_path)
    assert estimator is not model and isinstance(estimator.optimizer, tf_keras.optimizers.legacy.Adam)
    for start, weight in zip(before, estimator.get_weights(), strict=True):
        np.testing.assert_array_equal(start, weight)
    data = tf.data.Dataset.from_tensor_slices((np.ones((8, 4), np.float32), np.zeros((8, 3), np.float32))).batch(4)
    estimator_training.train(estimator, input_fn=lambda: data, steps=2)
    assert int(estimator.optimizer.iterations) == 2
    assert not np.allclose(estimator.get_weights()[0], before[0])
    for start, weight in zip(before, model.get_weights(), strict=True):
        np.testing.assert_array_equal(start, weight)
    metrics = estimator_training.evaluate(estimator, input_fn=lambda: data)
    assert set(metrics) == {"loss", "mae", "global_step"} and metrics["global_step"] == 2


def test_refuses_what_the_estimator_refused_and_a_keras_3_model(tmp_path):
    import keras

    from estimator_migrate.compat import keras_estimators

    with pytest.raises(ValueError, match="Either `keras_model` or `keras_model_path`"):
        keras_estimators.model_to_estimator()
    uncompiled = tf_keras.Sequential([tf_keras.layers.Dense(3, input_shape=(4,))])
    with pytest.raises(ValueError, match="has not been compiled yet"):
        keras_estimators.model_to_estimator(keras_model=uncompiled, model_dir=tmp_path)
    with pytest.raises(ValueError, match='must be one of "checkpoint" or "saver"'):
        keras_estimators.model_to_estimator(keras_model=_compiled(), model_dir=tmp_path, checkpoint_format="h5")
    with pytest.raises(ValueError, match="metric names"):
        keras_estimators.model_to_estimator(keras_model=_compiled(), model_dir=tmp_path,
                                            metric_names_map={"accuracy": "acc"})
    keras_3 = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    keras_3.compile(optimizer="adam", loss="mse")
    with pytest.raises(TypeError, match="not a tf_keras model: TensorFlow >= 2.16's tf.keras is Keras 3"):
        keras_estimators.model_to_estimator(keras_model=keras_3, model_dir=tmp_path)


def test_metric_names_map_renames_the_evaluated_metrics(tmp_path):
    from estimator_migrate.compat import estimator_training, keras_estimators

    estimator = keras_estimators.model_to_estimator(keras_model=_compiled(), model_dir=tmp_path,
                                                    metric_names_map={"mae": "mean_absolute_error"})
    data = tf.data.Dataset.from_tensor_slices((np.ones((8, 4), np.float32), np.zeros((8, 3), np.float32))).batch(4)
    metrics = estimator_training.evaluate(estimator, input_fn=lambda: data)
    assert set(metrics) == {"loss", "mean_absolute_error", "global_step"}


def test_a_checkpoint_in_the_saver_format_is_one_error(tmp_path):
    """checkpoint_format='saver' wrote TF1 names, which the migrated model does not read: one error at the
    resume, nothing loaded."""
    from estimator_migrate.compat import estimator_training, keras_estimators
    from estimator_migrate.compat.legacy_checkpoint import CheckpointError

    with tf.Graph().as_default():
        tf.compat.v1.get_variable("dense/kernel", [4, 3])
        tf.compat.v1.train.get_or_create_global_step()
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            tf.compat.v1.train.Saver().save(session, str(tmp_path / "model.ckpt"), global_step=5)
    estimator = keras_estimators.model_to_estimator(keras_model=_compiled(), model_dir=tmp_path)
    data = tf.data.Dataset.from_tensor_slices((np.ones((8, 4), np.float32), np.zeros((8, 3), np.float32))).batch(4)
    with pytest.raises(CheckpointError, match="not an object-based model_to_estimator checkpoint"):
        estimator_training.train(estimator, input_fn=lambda: data, steps=2)
