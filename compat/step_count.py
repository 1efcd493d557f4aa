"""A training step's updates made after its batch is read, so the step counter counts only steps taken.

tf_keras's optimizer increments `iterations` (the Estimator's global step) with an op that takes no input, so
in `fit`'s compiled step nothing orders it after the read of the batch. Reading an input of unknown length
(TFRecords, `filter`, an input_fn's graph tensors) to its end, fit makes one more call that finds no batch, and
that call has already counted a step it did not take (tf_keras 2.21: 37 for 36 batches). A following
`train(max_steps=...)` then trains one step fewer than the Estimator. The models' `train_step` run under
`after_the_batch(data)`.
"""

from __future__ import annotations

import tensorflow as tf


def after_the_batch(data):
    """A context in which every op made waits for the batch `data` (features, labels, weights: nested)."""
    return tf.control_dependencies(tf.nest.flatten(data, expand_composites=True))
