"""ProximalAdagrad as TF1's `tf.compat.v1.train.ProximalAdagradOptimizer` computed it (the canned estimators'
DNN optimizer in many wide-and-deep programs), for migrated programs to take the same steps.

tf_keras has no ProximalAdagrad. `ProximalAdagrad` runs TF1's own kernels (ApplyProximalAdagrad and its
sparse form): accum += g^2; prox = var - lr * g / sqrt(accum); var = sign(prox) * max(|prox| - lr * l1, 0)
/ (1 + lr * l2), with tf_keras's optimizer machinery (checkpoints, `fit`, `apply_gradients`). Its slot is
`accumulator`, started at `initial_accumulator_value` (0.1), as TF1's.
"""

from __future__ import annotations

import tensorflow as tf
import tf_keras


@tf_keras.saving.register_keras_serializable(package="compat")
class ProximalAdagrad(tf_keras.optimizers.Optimizer):
    """TF1's ProximalAdagrad update (l1 and l2 regularization strengths), bit for bit."""

    def __init__(
        self,
        learning_rate=0.001,
        initial_accumulator_value: float = 0.1,
        l1_regularization_strength: float = 0.0,
        l2_regularization_strength: float = 0.0,
        name: str = "ProximalAdagrad",
        **kwargs,
    ):
        if initial_accumulator_value <= 0.0:
            raise ValueError(f"initial_accumulator_value must be positive, got {initial_accumulator_value}")
        super().__init__(name=name, **kwargs)
        self._learning_rate = self._build_learning_rate(learning_rate)
        self.initial_accumulator_value = initial_accumulator_value
        self.l1_regularization_strength = l1_regularization_strength
        self.l2_regularization_strength = l2_regularization_strength

    def build(self, var_list):
        super().build(var_list)
        if getattr(self, "_built", False):
            return
        self._built = True
        self._accumulators = [
            self.add_variable_from_reference(
                var, "accumulator", initial_value=tf.fill(var.shape, tf.cast(self.initial_accumulator_value, var.dtype))
            )
            for var in var_list
        ]

    def update_step(self, gradient, variable):
        """One update of `variable` by `gradient` (dense, or IndexedSlices with unique indices)."""
        dtype = variable.dtype
        accumulator = self._accumulators[self._index_dict[self._var_key(variable)]]
        common = dict(
            var=variable.handle,
            accum=accumulator.handle,
            lr=tf.cast(self.learning_rate, dtype),
            l1=tf.cast(self.l1_regularization_strength, dtype),
            l2=tf.cast(self.l2_regularization_strength, dtype),
        )
        if isinstance(gradient, tf.IndexedSlices):
            tf.raw_ops.ResourceSparseApplyProximalAdagrad(grad=gradient.values, indices=gradient.indices, **common)
        else:
            tf.raw_ops.ResourceApplyProximalAdagrad(grad=gradient, **common)

    def get_config(self):
        config = super().get_config()
        config.update(
            learning_rate=self._serialize_hyperparameter(self._learning_rate),
            initial_accumulator_value=self.initial_accumulator_value,
            l1_regularization_strength=self.l1_regularization_strength,
            l2_regularization_strength=self.l2_regularization_strength,
        )
        return config
