"""The checkpoints an Estimator left in model_dir, kept by a migrated `fit` training (the keras target).

Estimator's CheckpointSaverHook saved into model_dir when a train call's session started (the state at its first
step), then once `save_checkpoints_steps` steps (or `save_checkpoints_secs` seconds) had passed since its last
save, and at the end; its Saver kept the newest `keep_checkpoint_max`. Programs read them: they evaluate or export
each (`evaluate(checkpoint_path=model_dir + "/model.ckpt-N")`), watch them with `checkpoints_iterator`, or copy
the best. BackupAndRestore's backups are not those (model_dir/backup, the latest only, and gone when the call
ends), so `KeptCheckpoints` saves the same steps with the training's CheckpointManager of model_dir, as the loop
target does.

A call cut short by a crash resumes within its fit from its backup; model_dir's latest checkpoint may then be one
of the call's own, so the call's steps are counted from its start (`call_start`), recorded beside its backup.
"""

from __future__ import annotations

import contextlib
import json
import os
import time

import tensorflow as tf
import tf_keras

from . import backup_listeners, root_logging

_CALL_RECORD = "train_call.json"


def _backup_dir(manager: tf.train.CheckpointManager) -> str:
    return os.path.join(manager.directory, "backup")  # where every migrated fit keeps its backups


def call_start(manager: tf.train.CheckpointManager, step: int, **limits) -> int:
    """The step the train call with these `limits` (max_steps=...) started at: `step` (model_dir's latest, just
    restored), recorded beside the call's backup, unless the call is that of a backup there (a crash cut it
    short: its fit resumes within the call, counting from the recorded start)."""
    backup_dir = _backup_dir(manager)
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


def _holds_backup(backup_dir: str) -> bool:
    """Whether a BackupAndRestore backup is in backup_dir (tf_keras's in its chief/ directory, compat.exact's in
    backup_dir itself)."""
    return any(tf.io.gfile.glob(os.path.join(backup_dir, pattern)) for pattern in ("*.index", "chief/*.index"))


class _NoSession:
    """The `session` a saving listener gets beside a model with no TF1 graph: any use of it is one error."""

    def __getattr__(self, name):
        raise RuntimeError(
            f"a saving listener used the session it was given (session.{name}): the migrated model has no TF1 "
            "session; read what the listener needs from the model (its weights, optimizer.iterations) instead")


class SavingListeners:
    """`train(saving_listeners=...)`: CheckpointSaverListeners around model_dir's saves, as Estimator's
    CheckpointSaverHook called them: `begin()` before the training, `before_save(session, step)` and
    `after_save(session, step)` around each save (one returning True asks the training to stop, except at its
    first save, whose answer Estimator ignored), `end(session, step)` after its last. `session` is the TF1
    session-like object of a wrapped model_fn's graph (compat.wrapped_hooks.HookSession: begin() then runs with
    that graph as the default one), or None (a stand-in refusing any use)."""

    def __init__(self, listeners=(), session=None):
        listeners = list(listeners or ())
        for listener in listeners:
            if not isinstance(listener, tf.compat.v1.train.CheckpointSaverListener):
                raise TypeError(f"saving_listeners must be a list of CheckpointSaverListener, given {listener!r}")
        self._in_graph = session.as_default if session is not None else contextlib.nullcontext
        self._listeners, self._session = listeners, session if session is not None else _NoSession()

    def begin(self) -> None:
        with self._in_graph():
            for listener in self._listeners:
                listener.begin()

    def around(self, save, step: int) -> bool:
        """`save()` between the listeners' before_save and after_save at `step`; whether one asked to stop."""
        for listener in self._listeners:
            listener.before_save(self._session, step)
        save()
        # every listener hears of the save, whatever the others answer (a list, not any()'s short circuit)
        return any([bool(listener.after_save(self._session, step)) for listener in self._listeners])

    def end(self, step: int) -> None:
        for listener in self._listeners:
            listener.end(self._session, step)


class KeptCheckpoints(tf_keras.callbacks.Callback):
    """Saves with `manager` (of model_dir) at the training's first step, then once `save_steps` steps or
    `save_secs` seconds have passed since the last save, and at its end, as Estimator's CheckpointSaverHook, with
    its `listeners` (a `SavingListeners`) around each save but an end-of-training one of the step just saved.
    Put it after the BackupAndRestore callback: a restarted call's first save is then of the restored state."""

    def __init__(self, manager: tf.train.CheckpointManager, *, save_steps: int | None = None,
                 save_secs: float | None = None, listeners: SavingListeners | None = None):
        super().__init__()
        if (save_steps is None) == (save_secs is None):
            raise ValueError(f"KeptCheckpoints: give save_steps or save_secs, not {save_steps=}, {save_secs=}")
        self._manager, self._steps, self._secs = manager, save_steps, save_secs
        self._listeners = listeners if listeners is not None else SavingListeners()
        self._last_step = -1
        self._saved_at = 0.0

    def _step(self) -> int:
        return int(self.model.optimizer.iterations.numpy())  # a MirroredVariable under a strategy: no int()

    def _save(self, step: int, final: bool = False) -> None:
        # Saves within the call are no backups (a resume goes by the backups: compat.backup_listeners leaves them
        # out); the final one is the training's end state, which engines hear of as they heard of a backup.
        with root_logging.untouched(), contextlib.nullcontext() if final else backup_listeners.kept_save():
            self._manager.save(checkpoint_number=step)
        self._last_step, self._saved_at = step, time.monotonic()

    def on_train_begin(self, logs=None):
        self._listeners.begin()
        step = self._step()
        self._listeners.around(lambda: self._save(step), step)

    def steps_due(self, step: int) -> int | None:
        """compat.chunked_calls: the step of the next save (on the clock: `seconds_due`)."""
        return max(step + 1, self._last_step + self._steps) if self._steps is not None else None

    def seconds_due(self) -> float | None:
        return None if self._secs is None else self._saved_at + self._secs - time.monotonic()

    def on_train_batch_end(self, batch, logs=None):
        step = self._step()
        if self._steps is not None:
            due = step >= self._last_step + self._steps
        else:
            due = time.monotonic() - self._saved_at >= self._secs
        if due and step != self._last_step and self._listeners.around(lambda: self._save(step), step):
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        # (again when the cadence has just saved this step: the same files, and engines hear of the end state;
        # the listeners only of a step not saved yet, as Estimator saved it)
        step = self._step()
        if step != self._last_step:
            self._listeners.around(lambda: self._save(step, final=True), step)
        else:
            self._save(step, final=True)
        self._listeners.end(step)
        record = os.path.join(_backup_dir(self._manager), _CALL_RECORD)  # the call ended: nothing left to resume
        if tf.io.gfile.exists(record):
            tf.io.gfile.remove(record)
