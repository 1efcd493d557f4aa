"""Adadelta as TF1's `tf.compat.v1.train.AdadeltaOptimizer` and Keras 2's (legacy) `Adadelta` computed it, for
migrated programs to take the same steps.

tf_keras's own Adadelta computes the dense update alike, but on a sparse gradient (an embedding's, a linear model's
categorical column) it decays every row's accumulator, where TF1's and Keras 2's kernel (SparseApplyAdadelta) update
only the rows the batch touched. `Adadelta` runs those kernels (ApplyAdadelta and its sparse form): accum =
rho * accum + (1 - rho) * g^2; update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * g; accum_update =
rho * accum_update + (1 - rho) * update^2; var -= lr * update, with tf_keras's optimizer machinery (checkpoints,
`fit`, `apply_gradients`). Its slots are `accum` and `accum_update`, starting at zero, as TF1's. Defaults are TF1's
(epsilon 1e-8); Keras 2's instances give their own (1e-7).
"""

from __future__ import annotations

import tensorflow as tf
import tf_keras


@tf_keras.saving.register_keras_serializable(package="compat")
class Adadelta(tf_keras.optimizers.Optimizer):
    """TF1's (and Keras 2's) Adadelta update, bit for bit, dense and sparse."""

    def __init__(self, learning_rate=0.001, rho: float = 0.95, epsilon: float = 1e-8, name: str = "Adadelta",
                 **kwargs):
        super().__init__(name=name, **kwargs)
        self._learning_rate = self._build_learning_rate(learning_rate)
        self.rho = rho
        self.epsilon = epsilon

    def build(self, var_list):
        super().build(var_list)
        if getattr(self, "_built", False):
            return
        self._built = True
        self._accums = [self.add_variable_from_reference(var, "accum") for var in var_list]
        self._accum_updates = [self.add_variable_from_reference(var, "accum_update") for var in var_list]

    def update_step(self, gradient, variable):
        """One update of `variable` by `gradient` (dense, or IndexedSlices with unique indices)."""
        dtype = variable.dtype
        index = self._index_dict[self._var_key(variable)]
        common = dict(
            var=variable.handle,
            accum=self._accums[index].handle,
            accum_update=self._accum_updates[index].handle,
            lr=tf.cast(self.learning_rate, dtype),
            rho=tf.cast(self.rho, dtype),
            epsilon=tf.cast(self.epsilon, dtype),
        )
        if isinstance(gradient, tf.IndexedSlices):
            tf.raw_ops.ResourceSparseApplyAdadelta(grad=gradient.values, indices=gradient.indices, **common)
        else:
            tf.raw_ops.ResourceApplyAdadelta(grad=gradient, **common)

    def get_config(self):
        config = super().get_config()
        config.update(learning_rate=self._serialize_hyperparameter(self._learning_rate), rho=self.rho,
                      epsilon=self.epsilon)
        return config
