"""The checkpoints an Estimator left in model_dir, kept by a migrated `fit` training (the keras target).

Estimator's CheckpointSaverHook saved into model_dir when a train call's session started (the state at its first
step), then once `save_checkpoints_steps` steps (or `save_checkpoints_secs` seconds) had passed since its last
save, and at the end; its Saver kept the newest `keep_checkpoint_max`. Programs read them: they evaluate or export
each (`evaluate(checkpoint_path=model_dir + "/model.ckpt-N")`), watch them with `checkpoints_iterator`, or copy
the best. BackupAndRestore's backups are not those (model_dir/backup, the latest only, and gone when the call
ends), so `KeptCheckpoints` saves the same steps with the training's CheckpointManager of model_dir, as the loop
target does.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable

import tensorflow as tf
import tf_keras

_CALL_RECORD = "train_call.json"


def call_start(backup_dir: str, limits: dict, step: int) -> int:
    """The step the train call with these `limits` (steps, max_steps) started at: `step` (model_dir's latest,
    restored), recorded in backup_dir, unless the call is that of a backup there (a crash cut it short: its fit
    resumes within the call, counting from the recorded start, where model_dir's latest may now be one of the
    call's own checkpoints)."""
    record = os.path.join(backup_dir, _CALL_RECORD)
    if tf.io.gfile.exists(record) and _holds_backup(backup_dir):
        with tf.io.gfile.GFile(record) as read:
            recorded = json.load(read)
        if recorded["limits"] == limits:
            return recorded["start"]
    tf.io.gfile.makedirs(backup_dir)
    staged = record + ".tmp"
    with tf.io.gfile.GFile(staged, "w") as write:
        json.dump({"start": step, "limits": limits}, write)
    tf.io.gfile.rename(staged, record, overwrite=True)
    return step


def call_ended(backup_dir: str) -> None:
    """The call finished: no backup of it is left to resume (BackupAndRestore deleted its own)."""
    record = os.path.join(backup_dir, _CALL_RECORD)
    if tf.io.gfile.exists(record):
        tf.io.gfile.remove(record)


def _holds_backup(backup_dir: str) -> bool:
    """Whether a BackupAndRestore backup is in backup_dir (tf_keras's in its chief/ directory, compat.exact's in
    backup_dir itself)."""
    return any(tf.io.gfile.glob(os.path.join(backup_dir, pattern)) for pattern in ("*.index", "chief/*.index"))


class KeptCheckpoints(tf_keras.callbacks.Callback):
    """`save(step)` at the training's first step, then every `every` steps (kind "steps") or seconds ("secs")
    after the last save, as Estimator's CheckpointSaverHook; `last_step`: the step last saved."""

    def __init__(self, save: Callable[[int], None], kind: str, every: float):
        super().__init__()
        self._save, self._kind, self._every = save, kind, every
        self.last_step: int | None = None
        self._saved_at = 0.0

    def _saved(self, step: int) -> None:
        self._save(step)
        self.last_step, self._saved_at = step, time.monotonic()

    def on_train_begin(self, logs=None):
        # (after BackupAndRestore's restore, an earlier callback: the state a restarted call starts from)
        self._saved(int(self.model.optimizer.iterations))

    def on_train_batch_end(self, batch, logs=None):
        step = int(self.model.optimizer.iterations)
        if self._kind == "steps":
            due = step >= self.last_step + self._every
        else:
            due = time.monotonic() - self._saved_at >= self._every
        if due and step != self.last_step:
            self._saved(step)
