"""Who else hears of a backup or an evaluation: the engines a migrated program runs under (compat.ray_checkpoints).

The backups (compat.step_backup, compat.timed_backup, compat.exact) and evaluations (compat.estimator_evaluation)
call `backed_up` / `evaluated` once their files are written; a listener added here with `listening(...)` then
gets `after_backup(backup_dir, step, logs)` and `after_evaluation(metrics)`. Nobody listens in a program run on
its own: nothing happens then.
"""

from __future__ import annotations

import contextlib

_listeners: list = []
_kept_saves = 0  # depth of kept_save() contexts


@contextlib.contextmanager
def listening(listener):
    """`listener` hears of every backup and evaluation made inside this context."""
    _listeners.append(listener)
    try:
        yield listener
    finally:
        _listeners.remove(listener)


def active() -> bool:
    """Whether someone listens (a backup written asynchronously is then synced before they hear of it)."""
    return bool(_listeners)


def backed_up(backup_dir: str, step: int, logs: dict | None = None) -> None:
    """A backup of training at global step `step` is complete in `backup_dir`."""
    for listener in list(_listeners):
        listener.after_backup(backup_dir, int(step), dict(logs or {}))


def evaluated(metrics: dict) -> None:
    """An evaluation returned `metrics` (Estimator's keys)."""
    for listener in list(_listeners):
        listener.after_evaluation(dict(metrics))


@contextlib.contextmanager
def kept_save():
    """A checkpoint saved inside is not a backup: compat.kept_checkpoints' copy of the training's state for the
    program to read, which an engine hearing of every save into model_dir (the loop target's backups) leaves out."""
    global _kept_saves
    _kept_saves += 1
    try:
        yield
    finally:
        _kept_saves -= 1


def saving_kept() -> bool:
    """Whether the save under way is a kept checkpoint's (`kept_save`), not a backup."""
    return _kept_saves > 0
