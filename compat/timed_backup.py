"""TimedBackupAndRestore: tf_keras `BackupAndRestore` on a wall-clock cadence, as Estimator's
`RunConfig(save_checkpoints_secs=N)` (and its default: every 600 s) saved.

BackupAndRestore only counts steps or epochs. This subclass backs up whenever `save_secs` seconds have
passed since the last backup (or since training began), checked after each step, exactly when Estimator's
CheckpointSaverHook checked its timer. Everything else (what is saved, how `fit` resumes) is
BackupAndRestore's. With several workers each would read its own clock and decide to save at a different
step, while a save needs all of them: refused there.
"""

from __future__ import annotations

import sys
import time

from . import workers
from .step_backup import BackupAndRestore


class TimedBackupAndRestore(BackupAndRestore):
    """`BackupAndRestore` that backs up every `save_secs` seconds of training instead of every N steps."""

    def steps_due(self, step: int) -> None:
        """compat.chunked_calls: no step of its own; on the clock (`seconds_due`)."""
        return None

    def seconds_due(self) -> float:
        return self._last_backup + self.save_secs - time.monotonic()

    def __init__(self, backup_dir, save_secs, delete_checkpoint=True):
        if not save_secs or save_secs <= 0:
            raise ValueError(f"save_secs must be a positive number of seconds, got {save_secs!r}")
        # The parent's step counter never reaches sys.maxsize: its step cadence stays off, its per-step
        # hooks (which time-based saves need) stay on.
        super().__init__(backup_dir, save_freq=sys.maxsize, delete_checkpoint=delete_checkpoint)
        self.save_secs = save_secs

    def on_train_begin(self, logs=None):
        refuse_several_workers(self.model, type(self).__name__)
        super().on_train_begin(logs)
        self._last_backup = time.monotonic()

    def on_train_batch_end(self, batch, logs=None):
        super().on_train_batch_end(batch, logs)
        if time.monotonic() - self._last_backup >= self.save_secs:
            self._last_backup = time.monotonic()  # as Estimator's timer: restarted when a save begins
            self._backup(epoch=self._current_epoch, batch=batch)


def refuse_several_workers(model, who: str) -> None:
    """Time-based saves cannot work with several workers: each would decide on its own clock."""
    if workers.worker_count(model.distribute_strategy) > 1:
        raise ValueError(
            f"{who}: save_secs with several workers is not supported (each worker's clock would pick a "
            "different step to save at, and a save needs all of them); use a step cadence (save_freq=N)"
        )
