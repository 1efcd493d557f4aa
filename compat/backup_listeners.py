"""Who else hears of a backup or an evaluation: the engines a migrated program runs under (compat.ray_checkpoints).

The backups (compat.step_backup, compat.timed_backup, compat.exact) and evaluations (compat.estimator_evaluation)
call `backed_up` / `evaluated` once their files are written; a listener added here with `listening(...)` then
gets `after_backup(backup_dir, step, logs)` and `after_evaluation(metrics)`. Nobody listens in a program run on
its own: nothing happens then.
"""

from __future__ import annotations

import contextlib

_listeners: list = []


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
