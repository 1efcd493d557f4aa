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
    each backup is announced to compat.backup_listeners once written. With `save_steps` in place of save_freq it
    backs up once that many steps have passed since the call's start or its last backup, whatever the calls'
    lengths (compat.chunked_calls sizes them: `steps_due`)."""

    def __init__(self, backup_dir, save_freq="epoch", *, save_steps: int | None = None, **kwargs):
        super().__init__(backup_dir, save_freq=1 if save_steps else save_freq, **kwargs)
        self.save_steps = save_steps

    def on_train_begin(self, logs=None):
        super().on_train_begin(logs)  # (restores a backup, step included)
        self._backed_up_at = self._step()

    def steps_due(self, step: int) -> int:
        """compat.chunked_calls: the step of the next backup."""
        return max(step + 1, self._backed_up_at + self.save_steps) if self.save_steps else step + 1

    def on_train_batch_end(self, batch, logs=None):
        self._logs = logs
        if isinstance(self.model.distribute_strategy, tf.distribute.ParameterServerStrategy):
            return super().on_train_batch_end(batch, logs)
        self._training_state._ckpt_saved_batch.assign(batch)  # the call's last batch, which the backup holds
        if not self.save_steps:
            return super().on_train_batch_end(batch, logs)
        self._training_state.backup_if_preempted()
        step = self._step()
        if step >= self._backed_up_at + self.save_steps:
            self._backed_up_at = step
            self._backup(epoch=self._current_epoch, batch=batch)
        return None

    def _step(self) -> int:
        return int(self.model.optimizer.iterations.numpy())  # a MirroredVariable under a strategy: read its value

    def _backup(self, epoch, batch=0):
        with root_logging.untouched():
            super()._backup(epoch, batch)
        backup_listeners.backed_up(self.backup_dir, self._step(), getattr(self, "_logs", None))
