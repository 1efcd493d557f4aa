"""tf.contrib.data's drop-remainder batchings, as TensorFlow 1.x defined them, for input code the rewrite keeps
(`dataset.apply(tf.contrib.data.batch_and_drop_remainder(n))`, codemods/rules/contrib_modules.py).

TensorFlow 1.x made them `Dataset.batch` / `padded_batch` with `drop_remainder=True`, and returned the
transformation function `Dataset.apply` takes; so do these.
"""

from __future__ import annotations


def batch_and_drop_remainder(batch_size):
    """`Dataset.apply`'s function batching `batch_size` elements and dropping the last, smaller batch."""

    def apply(dataset):
        return dataset.batch(batch_size, drop_remainder=True)

    return apply


def padded_batch_and_drop_remainder(batch_size, padded_shapes, padding_values=None):
    """`Dataset.apply`'s function padding and batching `batch_size` elements, dropping the last, smaller batch."""

    def apply(dataset):
        return dataset.padded_batch(batch_size, padded_shapes=padded_shapes, padding_values=padding_values,
                                    drop_remainder=True)

    return apply
