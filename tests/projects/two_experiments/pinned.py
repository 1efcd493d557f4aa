"""The team's Estimator: its evaluation reads the checkpoint PINNED_CHECKPOINT names, when set."""
import os

import tensorflow as tf


class PinnedEstimator(tf.estimator.Estimator):
    def latest_checkpoint(self):
        return os.environ.get("PINNED_CHECKPOINT") or super().latest_checkpoint()
