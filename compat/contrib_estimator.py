"""tf.contrib.estimator's `clip_gradients_by_norm`, which TensorFlow 2 has no twin of.

TF 1.x programs clipped a canned estimator's gradients by wrapping its optimizer (the Machine Learning Crash Course
taught `tf.contrib.estimator.clip_gradients_by_norm(tf.train.GradientDescentOptimizer(lr), 5.0)`): the wrapper is a
TF1 optimizer that clips the gradients by their global norm (`tf.clip_by_global_norm`) and hands them to the wrapped
one. `clip_gradients_by_norm` returns the same wrapper, so a model_fn kept as written minimizes with it as it did; a
migrated canned estimator given it trains with the wrapped optimizer's tf_keras twin clipping by the same global norm
(`global_clipnorm`: compat.canned).
"""

from __future__ import annotations

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
