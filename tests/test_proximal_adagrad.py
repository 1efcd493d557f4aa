"""compat.proximal_adagrad against the real `tf.compat.v1.train.ProximalAdagradOptimizer` (TF 2.21 still ships
it; run eagerly): from the same start and gradients, five steps give bit-identical variables, dense and sparse
(with a repeated index), with and without l1/l2. The state saves and restores with tf.train.Checkpoint, and the
config round-trips."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import tensorflow as tf
import tf_keras

from estimator_migrate.compat.proximal_adagrad import ProximalAdagrad

_rng = np.random.default_rng(0)
START = _rng.normal(size=(6, 3)).astype(np.float32)
GRADIENTS = [_rng.normal(size=(6, 3)).astype(np.float32) for _ in range(5)]


def _train(optimizer, sparse: bool, variable=None, gradients=GRADIENTS) -> np.ndarray:
    variable = variable if variable is not None else tf.Variable(START)
    for gradient in gradients:
        if sparse:  # rows 4, 1 and 4 again: duplicates are summed first, as both optimizers do
            gradient = tf.IndexedSlices(tf.constant(gradient[:3]), tf.constant([4, 1, 4]), tf.constant([6, 3]))
        optimizer.apply_gradients([(gradient if sparse else tf.convert_to_tensor(gradient), variable)])
    return variable.numpy()


@pytest.mark.parametrize("sparse,l1,l2", list(itertools.product([False, True], [0.0, 2.0], [0.0, 0.1])))
def test_takes_tf1_proximal_adagrads_steps(sparse, l1, l2):
    arguments = dict(learning_rate=0.1, initial_accumulator_value=0.2, l1_regularization_strength=l1,
                     l2_regularization_strength=l2)
    reference = _train(tf.compat.v1.train.ProximalAdagradOptimizer(**arguments), sparse)
    np.testing.assert_array_equal(_train(ProximalAdagrad(**arguments), sparse), reference)
    if l1:
        assert (reference == 0).any()  # l1 really shrank some weights to zero: the case is exercised


def test_state_restores_and_training_continues_identically(tmp_path):
    def fresh():
        return tf.Variable(START), ProximalAdagrad(0.1, l1_regularization_strength=0.05)

    variable, optimizer = fresh()
    _train(optimizer, False, variable, GRADIENTS[:2])
    path = tf.train.Checkpoint(variable=variable, optimizer=optimizer).save(str(tmp_path / "state"))
    whole = _train(optimizer, False, variable, GRADIENTS[2:])

    variable, optimizer = fresh()
    optimizer.build([variable])
    tf.train.Checkpoint(variable=variable, optimizer=optimizer).restore(path).assert_consumed()
    np.testing.assert_array_equal(_train(optimizer, False, variable, GRADIENTS[2:]), whole)


def test_config_round_trips():
    optimizer = ProximalAdagrad(0.3, initial_accumulator_value=0.5, l1_regularization_strength=0.1,
                                l2_regularization_strength=0.2)
    again = tf_keras.optimizers.deserialize(tf_keras.optimizers.serialize(optimizer))
    assert isinstance(again, ProximalAdagrad)
    assert again.get_config() == optimizer.get_config()
