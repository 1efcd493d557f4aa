"""RMSProp as the Estimator's optimizers computed it, for migrated programs to take the same steps.

tf_keras.optimizers.RMSprop differs from both optimizers an Estimator program used:
- TF1's `tf.compat.v1.train.RMSPropOptimizer` starts its mean square at 1.0 (Keras: 0.0), always keeps a
  momentum slot and updates with the ApplyRMSProp kernels: mom = momentum * mom + lr * g / sqrt(ms + eps);
  var -= mom. Its defaults: decay (Keras's rho) 0.9, momentum 0.0, epsilon 1e-10.
- Keras 2's legacy `tf.keras.optimizers.legacy.RMSprop` (v2 canned estimators make it of "RMSProp") uses the
  same kernels with momentum > 0, but without momentum adds epsilon after the square root:
  var -= lr * g / (sqrt(ms) + eps), and its sparse update decays every row's mean square.
`EstimatorRMSProp` does either, bit for bit, with tf_keras's optimizer machinery (checkpoints, `fit`,
`apply_gradients`); its slots are `rms`, `momentum` and (centered) `mg`, as both legacy optimizers named them.
"""

from __future__ import annotations

import tensorflow as tf
import tf_keras

TF1 = "tf1"
KERAS_LEGACY = "keras_legacy"


@tf_keras.saving.register_keras_serializable(package="compat")
class EstimatorRMSProp(tf_keras.optimizers.Optimizer):
    """RMSProp with TF1's (`flavour="tf1"`) or Keras 2 legacy's (`"keras_legacy"`) update and start."""

    def __init__(
        self,
        learning_rate=0.001,
        rho: float = 0.9,
        momentum: float = 0.0,
        epsilon: float = 1e-7,
        centered: bool = False,
        flavour: str = KERAS_LEGACY,
        name: str = "EstimatorRMSProp",
        **kwargs,
    ):
        if flavour not in (TF1, KERAS_LEGACY):
            raise ValueError(f"flavour must be {TF1!r} or {KERAS_LEGACY!r}, got {flavour!r}")
        super().__init__(name=name, **kwargs)
        self._learning_rate = self._build_learning_rate(learning_rate)
        self.rho = rho
        self.momentum = momentum
        self.epsilon = epsilon
        self.centered = centered
        self.flavour = flavour

    @property
    def _uses_kernels(self) -> bool:
        """TF1 always updates through its momentum slot; Keras legacy only with momentum > 0."""
        return self.flavour == TF1 or self.momentum > 0

    def build(self, var_list):
        super().build(var_list)
        if getattr(self, "_built", False):
            return
        self._built = True
        self._slots = {"rms": [], "momentum": [], "mg": []}
        for var in var_list:
            start = tf.ones(var.shape, var.dtype) if self.flavour == TF1 else None
            self._slots["rms"].append(self.add_variable_from_reference(var, "rms", initial_value=start))
            if self.centered:
                self._slots["mg"].append(self.add_variable_from_reference(var, "mg"))
            if self._uses_kernels:
                self._slots["momentum"].append(self.add_variable_from_reference(var, "momentum"))

    def _slot(self, name: str, variable):
        return self._slots[name][self._index_dict[self._var_key(variable)]]

    def update_step(self, gradient, variable):
        """One update of `variable` by `gradient` (dense, or IndexedSlices with unique indices)."""
        dtype = variable.dtype
        lr = tf.cast(self.learning_rate, dtype)
        rho = tf.cast(self.rho, dtype)
        epsilon = tf.cast(self.epsilon, dtype)
        rms = self._slot("rms", variable)
        mg = self._slot("mg", variable) if self.centered else None
        sparse = isinstance(gradient, tf.IndexedSlices)
        if self._uses_kernels:
            common = dict(
                var=variable.handle, ms=rms.handle, mom=self._slot("momentum", variable).handle, lr=lr,
                rho=rho, momentum=tf.cast(self.momentum, dtype), epsilon=epsilon,
            )
            if sparse:
                common.update(grad=gradient.values, indices=gradient.indices)
                if self.centered:
                    tf.raw_ops.ResourceSparseApplyCenteredRMSProp(mg=mg.handle, **common)
                else:
                    tf.raw_ops.ResourceSparseApplyRMSProp(**common)
            elif self.centered:
                tf.raw_ops.ResourceApplyCenteredRMSProp(mg=mg.handle, grad=gradient, **common)
            else:
                tf.raw_ops.ResourceApplyRMSProp(grad=gradient, **common)
            return
        # Keras 2 legacy without momentum: epsilon after the square root.
        if sparse:
            rms.assign(rms * rho)
            rms.scatter_add(tf.IndexedSlices(tf.square(gradient.values) * (1 - rho), gradient.indices))
            denominator = tf.gather(rms, gradient.indices)
            if self.centered:
                mg.assign(mg * rho)
                mg.scatter_add(tf.IndexedSlices(gradient.values * (1 - rho), gradient.indices))
                denominator -= tf.square(tf.gather(mg, gradient.indices))
            step = -lr * gradient.values / (tf.sqrt(denominator) + epsilon)
            variable.scatter_add(tf.IndexedSlices(step, gradient.indices))
            return
        rms.assign(rho * rms + (1 - rho) * tf.square(gradient))
        denominator = rms
        if self.centered:
            mg.assign(rho * mg + (1 - rho) * gradient)
            denominator = rms - tf.square(mg)
        variable.assign(variable - lr * gradient / (tf.sqrt(denominator) + epsilon))

    def get_config(self):
        config = super().get_config()
        config.update(
            learning_rate=self._serialize_hyperparameter(self._learning_rate),
            rho=self.rho,
            momentum=self.momentum,
            epsilon=self.epsilon,
            centered=self.centered,
            flavour=self.flavour,
        )
        return config


def tf1_rmsprop(learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, centered=False) -> EstimatorRMSProp:
    """`tf.compat.v1.train.RMSPropOptimizer(...)`, same arguments (use_locking and name aside)."""
    return EstimatorRMSProp(learning_rate, decay, momentum, epsilon, centered, flavour=TF1)


def keras_legacy_rmsprop(learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False) -> EstimatorRMSProp:
    """`tf.keras.optimizers.legacy.RMSprop(...)` of Keras 2, same arguments (name aside)."""
    return EstimatorRMSProp(learning_rate, rho, momentum, epsilon, centered, flavour=KERAS_LEGACY)
