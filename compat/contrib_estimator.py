"""tf.contrib.estimator's `clip_gradients_by_norm`, `replicate_model_fn` and `TowerOptimizer`, which TensorFlow 2
has no twin of.

TF 1.x programs clipped a canned estimator's gradients by wrapping its optimizer (the Machine Learning Crash Course
taught `tf.contrib.estimator.clip_gradients_by_norm(tf.train.GradientDescentOptimizer(lr), 5.0)`): the wrapper is a
TF1 optimizer that clips the gradients by their global norm (`tf.clip_by_global_norm`) and hands them to the wrapped
one. `clip_gradients_by_norm` returns the same wrapper, so a model_fn kept as written minimizes with it as it did; a
migrated canned estimator given it trains with the wrapped optimizer's tf_keras twin clipping by the same global norm
(`global_clipnorm`: compat.canned).

`replicate_model_fn(model_fn, loss_reduction, devices)` ran a model_fn on each GPU (TensorFlow's official models
1.x, behind a --multi_gpu flag), with optimizers wrapped in a `TowerOptimizer`. Over one device (no GPU or one:
TF 1.x's `single_device_model_fn`) it called the model_fn as it was, given copies of params and config, and a
TowerOptimizer was its optimizer: so they are here, the model_fn kept as written (compat.wrapped_model_fns). Over
several devices TF 1.x split each batch across them; that is one error (tf.distribute.MirroredStrategy in
RunConfig(train_distribute=...) is TensorFlow 2's way).
"""

from __future__ import annotations

import copy
import inspect

import tensorflow as tf


class ClipGradientsByNorm(tf.compat.v1.train.Optimizer):
    """A TF1 optimizer applying `optimizer`'s update to the gradients clipped to a global norm of `clip_norm`
    (tf.contrib.estimator's _TransformGradients with its clip_grads)."""

    def __init__(self, optimizer: tf.compat.v1.train.Optimizer, clip_norm):
        if not isinstance(optimizer, tf.compat.v1.train.Optimizer):
            raise TypeError(f"clip_gradients_by_norm takes a TF1 optimizer (tf.compat.v1.train.*), got "
                            f"{type(optimizer).__name__}: for a tf_keras optimizer, give it global_clipnorm={clip_norm!r}")
        super().__init__(use_locking=False, name="ClipByNorm" + optimizer.get_name())
        self.optimizer, self.clip_norm = optimizer, clip_norm

    def compute_gradients(self, *args, **kwargs):
        return self.optimizer.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        gradients, variables = zip(*grads_and_vars)
        clipped = tf.clip_by_global_norm(gradients, self.clip_norm)[0]
        return self.optimizer.apply_gradients(list(zip(clipped, variables)), global_step, name)

    def get_slot(self, *args, **kwargs):
        return self.optimizer.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self.optimizer.get_slot_names(*args, **kwargs)


def clip_gradients_by_norm(optimizer: tf.compat.v1.train.Optimizer, clip_norm) -> ClipGradientsByNorm:
    """`optimizer`, its gradients clipped to a global norm of `clip_norm` before each update."""
    return ClipGradientsByNorm(optimizer, clip_norm)


def replicate_model_fn(model_fn, loss_reduction=tf.compat.v1.losses.Reduction.SUM_BY_NONZERO_WEIGHTS, devices=None):
    """TF 1.x's replicate_model_fn over one device: a model_fn calling `model_fn` as it was."""
    if loss_reduction == tf.compat.v1.losses.Reduction.NONE:
        raise ValueError(f"Tower losses need to be reduced in some way, yet {loss_reduction} reduction is specified.")
    if devices is None:
        devices = [device.name for device in tf.config.list_logical_devices("GPU")] or ["/device:CPU:0"]
    if len(devices) > 1:
        raise ValueError(
            f"replicate_model_fn over {len(devices)} devices ({', '.join(devices)}) is not migrated: TensorFlow 1.x split "
            "each batch across them; give the Estimator RunConfig(train_distribute=tf.distribute.MirroredStrategy()) "
            "instead, or run on one device (CUDA_VISIBLE_DEVICES)")
    takes = inspect.signature(model_fn).parameters

    def single_device_model_fn(features, labels, mode, params=None, config=None):
        given = {key: copy.deepcopy(value) for key, value in (("params", params), ("config", config)) if key in takes}
        return model_fn(features=features, labels=labels, mode=mode, **given)

    return single_device_model_fn


class TowerOptimizer(tf.compat.v1.train.Optimizer):
    """TF 1.x's TowerOptimizer of one tower: the wrapped optimizer (or the one a function returns), its steps and
    slots under its own names."""

    def __init__(self, optimizer_or_optimizer_fn):
        self._optimizer_or_optimizer_fn = optimizer_or_optimizer_fn
        self._optimizer = None

    def _get_optimizer(self) -> tf.compat.v1.train.Optimizer:
        if self._optimizer is None:
            given = self._optimizer_or_optimizer_fn
            self._optimizer = given if isinstance(given, tf.compat.v1.train.Optimizer) else given()
        return self._optimizer

    def compute_gradients(self, *args, **kwargs):
        return self._get_optimizer().compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, **kwargs):
        return self._get_optimizer().apply_gradients(grads_and_vars, global_step, **kwargs)

    def get_slot(self, *args, **kwargs):
        return self._get_optimizer().get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._get_optimizer().get_slot_names(*args, **kwargs)

    def get_name(self, *args, **kwargs):
        return self._get_optimizer().get_name(*args, **kwargs)

    def variables(self, *args, **kwargs):
        return self._get_optimizer().variables(*args, **kwargs)
