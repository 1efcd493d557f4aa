"""The optimizer a compat.canned builder makes of what a canned Estimator took, when the program only shows it
at run time (a parameter, a config entry, a factory): TF1 optimizer instances become twins taking the real TF1
optimizer's steps; names get the learning rate each estimator family gave names; functions are called; anything
else is one clear error."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
import tf_keras

from estimator_migrate.compat import canned
from estimator_migrate.compat.proximal_adagrad import ProximalAdagrad
from estimator_migrate.compat.rmsprop import EstimatorRMSProp

train = tf.compat.v1.train
_rng = np.random.default_rng(1)
START = _rng.normal(size=(5, 2)).astype(np.float32)
GRADIENTS = [_rng.normal(size=(5, 2)).astype(np.float32) for _ in range(6)]
TF1_OPTIMIZERS = {
    "sgd": lambda: train.GradientDescentOptimizer(0.1),
    "momentum": lambda: train.MomentumOptimizer(0.05, 0.9),
    "nesterov": lambda: train.MomentumOptimizer(0.05, 0.9, use_nesterov=True),
    "adam": lambda: train.AdamOptimizer(0.01, beta1=0.8, beta2=0.99, epsilon=1e-6),
    "adagrad": lambda: train.AdagradOptimizer(0.1, initial_accumulator_value=0.3),
    "proximal_adagrad": lambda: train.ProximalAdagradOptimizer(0.1, l1_regularization_strength=0.5,
                                                                l2_regularization_strength=0.1),
    "rmsprop": lambda: train.RMSPropOptimizer(0.01, decay=0.8, momentum=0.5, centered=True),
    "ftrl": lambda: train.FtrlOptimizer(0.1, l1_regularization_strength=0.2, l2_regularization_strength=0.1),
}


def _steps(optimizer) -> np.ndarray:
    variable = tf.Variable(START)
    for gradient in GRADIENTS:
        optimizer.apply_gradients([(tf.constant(gradient), variable)])
    return variable.numpy()


@pytest.mark.parametrize("name", sorted(TF1_OPTIMIZERS))
def test_a_tf1_optimizer_instance_becomes_a_twin_taking_its_steps(name):
    twin = canned.estimator_optimizer(TF1_OPTIMIZERS[name](), True, None)
    assert isinstance(twin, tf_keras.optimizers.Optimizer)
    np.testing.assert_allclose(_steps(twin), _steps(TF1_OPTIMIZERS[name]()), rtol=1e-5, atol=1e-6)


def test_names_get_each_families_learning_rate():
    v1_dnn = canned.dnn_regressor([tf.feature_column.numeric_column("x")], [2], optimizer="Adagrad",
                                  loss_reduction="sum").optimizer
    v2_dnn = canned.dnn_regressor([tf.feature_column.numeric_column("x")], [2], optimizer="Adagrad").optimizer
    assert (float(v1_dnn.learning_rate), float(v1_dnn.epsilon)) == (pytest.approx(0.05), 0.0)
    assert float(v2_dnn.learning_rate) == pytest.approx(0.001)  # Keras's own default: v2 DNNs pass no rate
    columns = [tf.feature_column.numeric_column(key) for key in "abcd"]
    linear = canned.linear_regressor(columns, optimizer="Ftrl").optimizer
    assert float(linear.learning_rate) == pytest.approx(0.2)
    combined = canned.dnn_linear_combined_regressor(columns[:2], columns[2:], [2], linear_optimizer="Ftrl",
                                                    dnn_optimizer="RMSProp")
    assert float(combined.linear_optimizer.learning_rate) == pytest.approx(0.005)  # min(0.005, 2 ** -0.5)
    assert isinstance(combined.optimizer, EstimatorRMSProp)
    assert float(combined.optimizer.learning_rate) == pytest.approx(0.001)


def test_functions_are_called_and_keras_optimizers_kept():
    keras = tf_keras.optimizers.SGD(0.3)
    assert canned.estimator_optimizer(keras, True, None) is keras
    made = canned.estimator_optimizer(lambda: train.ProximalAdagradOptimizer(0.2), True, None)
    assert isinstance(made, ProximalAdagrad) and float(made.learning_rate) == pytest.approx(0.2)


def test_anything_else_is_one_clear_error():
    with pytest.raises(ValueError, match=r"optimizer='Adadelta': canned estimators take the names"):
        canned.estimator_optimizer("Adadelta", True, None)
    with pytest.raises(TypeError, match=r"dnn_optimizer=.*ProximalGradientDescentOptimizer.*takes an optimizer name"):
        canned.estimator_optimizer(train.ProximalGradientDescentOptimizer(0.1), True, None, "dnn_optimizer")


def test_a_tf1_optimizer_met_by_a_v2_head_is_one_clear_error():
    """TensorFlow 2's tf.estimator classes refused TF1 optimizers: a program giving one ran on 1.x, where its
    estimator was the v1 one. A v2 head (the loss averaged) would train differently: refused, naming the fix."""
    with pytest.raises(TypeError, match=r'optimizer=.*MomentumOptimizer.*v2 canned head.*loss_reduction="sum"'):
        canned.dnn_regressor([tf.feature_column.numeric_column("x")], [2],
                             optimizer=train.MomentumOptimizer(0.1, 0.9))
    v1 = canned.dnn_regressor([tf.feature_column.numeric_column("x")], [2],
                              optimizer=lambda: train.MomentumOptimizer(0.1, 0.9), loss_reduction="sum")
    assert float(v1.optimizer.momentum) == pytest.approx(0.9)
