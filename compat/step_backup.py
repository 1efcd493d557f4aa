"""`BackupAndRestore` that resumes at the right step when `fit` runs several steps per call.

tf_keras's `BackupAndRestore` records the batch a backup belongs to in `on_train_batch_begin`; with
`steps_per_execution = k` that is the first batch of the call, while the backup (written at the call's
end) holds the model after its last. A resumed `fit` then starts k - 1 batches too early and trains them
again (measured: max_steps 4000 ended at 4049 with k = 50; tests/test_chunked_loop.py). Here the batch is
recorded where the backup is written; with k = 1 both are the same batch.
"""

from __future__ import annotations

import tensorflow as tf
import tf_keras

from . import backup_listeners, root_logging


class BackupAndRestore(tf_keras.callbacks.BackupAndRestore):
    """tf_keras.callbacks.BackupAndRestore, correct under `steps_per_execution` (`save_freq` counts calls);
    each backup is announced to compat.backup_listeners once written."""

    def on_train_batch_end(self, batch, logs=None):
        if not isinstance(self.model.distribute_strategy, tf.distribute.ParameterServerStrategy):
            self._training_state._ckpt_saved_batch.assign(batch)  # the call's last batch, which the backup holds
        self._logs = logs
        super().on_train_batch_end(batch, logs)

    def _backup(self, epoch, batch=0):
        with root_logging.untouched():
            super()._backup(epoch, batch)
        step = int(self.model.optimizer.iterations.numpy())  # a MirroredVariable under a strategy: read its value
        backup_listeners.backed_up(self.backup_dir, step, getattr(self, "_logs", None))
