"""compat.rmsprop against the real optimizers it stands in for, which TF 2.21 and tf_keras still ship:
`tf.compat.v1.train.RMSPropOptimizer` (run eagerly) and `tf_keras.optimizers.legacy.RMSprop`. From the same
start and gradients, five steps give bit-identical variables, dense and sparse (with a repeated index),
centered or not, with and without momentum; tf_keras.optimizers.RMSprop, the obvious replacement, does not.
The optimizer's state saves and restores with tf.train.Checkpoint, and its config round-trips."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import tensorflow as tf
import tf_keras

from estimator_migrate.compat.rmsprop import EstimatorRMSProp, keras_legacy_rmsprop, tf1_rmsprop

SETTINGS = list(itertools.product([False, True], [False, True], [0.0, 0.5]))  # sparse, centered, momentum
_rng = np.random.default_rng(0)
START = _rng.normal(size=(6, 3)).astype(np.float32)
GRADIENTS = [_rng.normal(size=(6, 3)).astype(np.float32) for _ in range(5)]


def _train(optimizer, sparse: bool) -> np.ndarray:
    variable = tf.Variable(START)
    for gradient in GRADIENTS:
        if sparse:  # rows 4, 1 and 4 again: duplicates are summed first, as every optimizer here does
            gradient = tf.IndexedSlices(tf.constant(gradient[:3]), tf.constant([4, 1, 4]), tf.constant([6, 3]))
        optimizer.apply_gradients([(tf.convert_to_tensor(gradient) if not sparse else gradient, variable)])
    return variable.numpy()


@pytest.mark.parametrize("sparse,centered,momentum", SETTINGS)
def test_tf1_flavour_takes_tf1_rmsprop_optimizers_steps(sparse, centered, momentum):
    arguments = dict(learning_rate=0.01, decay=0.8, momentum=momentum, epsilon=1e-6, centered=centered)
    reference = _train(tf.compat.v1.train.RMSPropOptimizer(**arguments), sparse)
    np.testing.assert_array_equal(_train(tf1_rmsprop(**arguments), sparse), reference)


@pytest.mark.parametrize("sparse,centered,momentum", SETTINGS)
def test_keras_legacy_flavour_takes_keras_legacy_rmsprops_steps(sparse, centered, momentum):
    arguments = dict(learning_rate=0.01, rho=0.8, momentum=momentum, epsilon=1e-6, centered=centered)
    reference = _train(tf_keras.optimizers.legacy.RMSprop(**arguments), sparse)
    np.testing.assert_array_equal(_train(keras_legacy_rmsprop(**arguments), sparse), reference)


def test_tf_keras_rmsprop_is_not_a_replacement():
    tf1 = _train(tf.compat.v1.train.RMSPropOptimizer(0.01), sparse=False)
    legacy = _train(tf_keras.optimizers.legacy.RMSprop(0.01), sparse=False)
    new = _train(tf_keras.optimizers.RMSprop(0.01), sparse=False)
    assert np.abs(new - tf1).max() > 1e-2  # TF1's mean square starts at 1
    assert np.abs(new - legacy).max() > 1e-6  # epsilon outside the square root


def test_state_restores_and_training_continues_identically(tmp_path):
    def fresh():
        variable = tf.Variable(START)
        return variable, tf1_rmsprop(0.01, momentum=0.5, centered=True)

    variable, optimizer = fresh()
    for gradient in GRADIENTS[:2]:
        optimizer.apply_gradients([(tf.constant(gradient), variable)])
    path = tf.train.Checkpoint(variable=variable, optimizer=optimizer).save(str(tmp_path / "ckpt"))
    for gradient in GRADIENTS[2:]:
        optimizer.apply_gradients([(tf.constant(gradient), variable)])

    restored_variable, restored = fresh()
    restored.build([restored_variable])
    tf.train.Checkpoint(variable=restored_variable, optimizer=restored).restore(path).assert_consumed()
    assert int(restored.iterations) == 2
    for gradient in GRADIENTS[2:]:
        restored.apply_gradients([(tf.constant(gradient), restored_variable)])
    np.testing.assert_array_equal(restored_variable.numpy(), variable.numpy())
    assert sorted(v.name.split("/")[0] for v in restored.variables if "/" in v.name) == ["mg", "momentum", "rms"]


def test_config_round_trips_and_bad_flavour_is_refused():
    optimizer = tf1_rmsprop(0.02, decay=0.7, momentum=0.1, epsilon=1e-9, centered=True)
    copy = EstimatorRMSProp.from_config(optimizer.get_config())
    assert (copy.flavour, copy.rho, copy.momentum, copy.epsilon, copy.centered) == ("tf1", 0.7, 0.1, 1e-9, True)
    assert float(copy.learning_rate) == pytest.approx(0.02)
    with pytest.raises(ValueError, match="flavour must be 'tf1' or 'keras_legacy', got 'tf2'"):
        EstimatorRMSProp(flavour="tf2")
