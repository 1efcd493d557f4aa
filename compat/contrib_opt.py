"""tf.contrib.opt's most used optimizers, as TensorFlow 1.x had them (TF1 optimizers: a kept model_fn minimizes
with them as it did).

- `LazyAdamOptimizer` (TensorFlow's official Transformer, embedding models): Adam whose sparse updates (an
  embedding's gathered rows) move only the rows the batch touched, their moments too; dense updates are Adam's.
  Its slots and accumulators are Adam's, under Adam's names.
- `AdamWOptimizer`, `MomentumWOptimizer` and `extend_with_decoupled_weight_decay(OptimizerClass)`: the optimizer's
  update after decaying each variable (or the rows a sparse update touches) by `weight_decay` times its value
  (Loshchilov & Hutter's decoupled weight decay); `minimize` and `apply_gradients` take `decay_var_list` (only
  those decayed).
"""

from __future__ import annotations

import tensorflow as tf

_Adam = tf.compat.v1.train.AdamOptimizer


class LazyAdamOptimizer(_Adam):
    """Adam updating, for a sparse gradient, only the rows it touches (variable, first and second moments)."""

    def _lazy_rows(self, grad, var, indices, update_rows, subtract_rows):
        dtype = var.dtype.base_dtype
        beta1_power, beta2_power = (tf.cast(power, dtype) for power in self._get_beta_accumulators())
        beta1, beta2 = tf.cast(self._beta1_t, dtype), tf.cast(self._beta2_t, dtype)
        step_size = tf.cast(self._lr_t, dtype) * tf.sqrt(1 - beta2_power) / (1 - beta1_power)
        m_rows = beta1 * tf.gather(self.get_slot(var, "m"), indices) + (1 - beta1) * grad
        v_rows = beta2 * tf.gather(self.get_slot(var, "v"), indices) + (1 - beta2) * tf.square(grad)
        updates = [update_rows(self.get_slot(var, "m"), indices, m_rows),
                   update_rows(self.get_slot(var, "v"), indices, v_rows)]
        change = step_size * m_rows / (tf.sqrt(v_rows) + tf.cast(self._epsilon_t, dtype))
        return tf.group(subtract_rows(var, indices, change), *updates)

    def _apply_sparse(self, grad, var):
        return self._lazy_rows(
            grad.values, var, grad.indices,
            lambda ref, i, rows: tf.compat.v1.scatter_update(ref, i, rows, use_locking=self._use_locking),
            lambda ref, i, rows: tf.compat.v1.scatter_sub(ref, i, rows, use_locking=self._use_locking))

    def _resource_apply_sparse(self, grad, var, indices):
        return self._lazy_rows(
            grad, var, indices,
            lambda variable, i, rows: variable.scatter_update(tf.IndexedSlices(rows, i)),
            lambda variable, i, rows: variable.scatter_sub(tf.IndexedSlices(rows, i)))


class DecoupledWeightDecayExtension:
    """Mixed in before a TF1 optimizer class: each variable decayed by `weight_decay` times its value before the
    optimizer's own update (the rows a sparse update touches, for a sparse gradient)."""

    def __init__(self, weight_decay, **kwargs):
        self._weight_decay = weight_decay
        self._weight_decay_tensor = None
        self._decayed_refs = None  # None: every variable (minimize/apply_gradients set it)
        super().__init__(**kwargs)

    def minimize(self, loss, global_step=None, var_list=None,
                 gate_gradients=tf.compat.v1.train.Optimizer.GATE_OP, aggregation_method=None,
                 colocate_gradients_with_ops=False, name=None, grad_loss=None, decay_var_list=None):
        self._decay_only(decay_var_list)
        return super().minimize(loss, global_step=global_step, var_list=var_list, gate_gradients=gate_gradients,
                                aggregation_method=aggregation_method,
                                colocate_gradients_with_ops=colocate_gradients_with_ops, name=name,
                                grad_loss=grad_loss)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None, decay_var_list=None):
        self._decay_only(decay_var_list)
        return super().apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def _decay_only(self, decay_var_list) -> None:
        # (variables compare by reference: TensorFlow 2's are not hashable)
        self._decayed_refs = {variable.ref() for variable in decay_var_list} if decay_var_list else None

    def _prepare(self):
        weight_decay = self._weight_decay() if callable(self._weight_decay) else self._weight_decay
        self._weight_decay_tensor = tf.convert_to_tensor(weight_decay, name="weight_decay")
        super()._prepare()

    def _decays(self, var) -> bool:
        return self._decayed_refs is None or var.ref() in self._decayed_refs

    def _decay(self, var):
        if not self._decays(var):
            return tf.no_op()
        return var.assign_sub(tf.cast(self._weight_decay_tensor, var.dtype.base_dtype) * var, self._use_locking)

    def _decay_rows(self, var, indices, resource: bool):
        if not self._decays(var):
            return tf.no_op()
        rows = -tf.cast(self._weight_decay_tensor, var.dtype.base_dtype) * tf.gather(var, indices)
        if resource:
            return var.scatter_add(tf.IndexedSlices(rows, indices))
        return tf.compat.v1.scatter_add(var, indices, rows, use_locking=self._use_locking)

    def _apply_dense(self, grad, var):
        with tf.control_dependencies([self._decay(var)]):
            return super()._apply_dense(grad, var)

    def _resource_apply_dense(self, grad, var):
        with tf.control_dependencies([self._decay(var)]):
            return super()._resource_apply_dense(grad, var)

    def _apply_sparse(self, grad, var):
        with tf.control_dependencies([self._decay_rows(var, grad.indices, resource=False)]):
            return super()._apply_sparse(grad, var)

    def _resource_apply_sparse(self, grad, var, indices):
        with tf.control_dependencies([self._decay_rows(var, indices, resource=True)]):
            return super()._resource_apply_sparse(grad, var, indices)


def extend_with_decoupled_weight_decay(base_optimizer):
    """The TF1 optimizer class `base_optimizer` with decoupled weight decay (its first constructor argument)."""

    class OptimizerWithDecoupledWeightDecay(DecoupledWeightDecayExtension, base_optimizer):
        def __init__(self, weight_decay, *args, **kwargs):
            super().__init__(weight_decay, *args, **kwargs)

    return OptimizerWithDecoupledWeightDecay


class AdamWOptimizer(DecoupledWeightDecayExtension, _Adam):
    """Adam with decoupled weight decay."""

    def __init__(self, weight_decay, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False,
                 name="AdamW"):
        super().__init__(weight_decay, learning_rate=learning_rate, beta1=beta1, beta2=beta2, epsilon=epsilon,
                         use_locking=use_locking, name=name)


class MomentumWOptimizer(DecoupledWeightDecayExtension, tf.compat.v1.train.MomentumOptimizer):
    """Momentum with decoupled weight decay."""

    def __init__(self, weight_decay, learning_rate, momentum, use_locking=False, name="MomentumW",
                 use_nesterov=False):
        super().__init__(weight_decay, learning_rate=learning_rate, momentum=momentum, use_locking=use_locking,
                         name=name, use_nesterov=use_nesterov)
