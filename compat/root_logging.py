"""Checkpoint writes that leave Python's root logger as they found it.

TensorFlow 2.21's checkpoint writer (tensorflow/python/checkpoint/functional_saver.py) logs through absl, and
absl's first message configures the root logger (`logging.basicConfig()`) when nothing has. From then on every
line of TensorFlow's own logger (`tf.compat.v1.logging`, a LoggingTensorHook's) prints twice: its own handler's
and the root's, as it propagates. An Estimator's saves under TensorFlow 2.15 did not do that, so the runtime's
saves give the root logger back as it was; a program that configured logging itself is not touched.
"""

from __future__ import annotations

import contextlib
import logging


@contextlib.contextmanager
def untouched():
    """Run a checkpoint write; if the root logger had no handler before it, it has none after it either."""
    root = logging.getLogger()
    configured, level = bool(root.handlers), root.level
    try:
        yield
    finally:
        if not configured:
            for handler in list(root.handlers):
                root.removeHandler(handler)
            root.setLevel(level)
