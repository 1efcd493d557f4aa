"""A MonitoredTrainingSession, or a CheckpointSaverHook, kept as TF1 graph code, which also saves on preemption.

A `tf.train.MonitoredTrainingSession` loop in no shape the rewrite migrates (codemods/monitored_sessions.py) runs
on TensorFlow 2 as it ran on 1.x: `tf.compat.v1.train.MonitoredTrainingSession` is the same class, in the graph
mode the program runs in (`tf1_programs.run_as_tf1()` or its own `disable_v2_behavior()`). Its checkpoints came
on a cadence (every 600 s unless told otherwise): a job stopped by its scheduler (SIGTERM, then SIGKILL after a
grace period) lost every step since the last one. `monitored_training_session` is that session, with the
preemption saving the migrated loops have (compat.preemption): on SIGTERM or SIGINT the step in flight finishes,
the chief saves `model.ckpt-<step>` in checkpoint_dir with the session's own Saver (as its CheckpointSaverHook
does), and the program exits with PREEMPTED_EXIT_CODE (75); run again, the session restores that checkpoint.
`CheckpointSaverHook` does the same for the (Singular)MonitoredSession loops that save with one.
"""

from __future__ import annotations

import inspect
import os

import tensorflow as tf

from . import preemption

_SESSION = tf.compat.v1.train.MonitoredTrainingSession
_PARAMETERS = inspect.signature(_SESSION).parameters
_USE_DEFAULT = _PARAMETERS["save_checkpoint_secs"].default  # TensorFlow's marker of an argument not given


def monitored_training_session(*args, **kwargs):
    """`tf.compat.v1.train.MonitoredTrainingSession(*args, **kwargs)` (same arguments, same session), saving a
    checkpoint and exiting 75 on SIGTERM / SIGINT when the session saves checkpoints (the chief, a checkpoint_dir,
    a cadence)."""
    if tf.executing_eagerly():
        raise RuntimeError(
            "MonitoredTrainingSession runs TensorFlow 1.x graphs, and TensorFlow 2 executes eagerly: call "
            "estimator_migrate.compat.tf1_programs.run_as_tf1() (or tf.compat.v1.disable_v2_behavior()) at the "
            "start of the program, before its graph is built")
    arguments = inspect.signature(_SESSION).bind(*args, **kwargs)
    arguments.apply_defaults()
    given = arguments.arguments
    if not (given["is_chief"] and given["checkpoint_dir"] and _saves_checkpoints(given)):
        return _SESSION(*args, **kwargs)
    if given["scaffold"] is None:
        given["scaffold"] = tf.compat.v1.train.Scaffold()  # the session's Saver is then the hook's to read
    given["hooks"] = [*(given["hooks"] or ()), SaveOnPreemption(given["checkpoint_dir"], given["scaffold"])]
    return _SESSION(**given)


def _saves_checkpoints(given: dict) -> bool:
    """Whether MonitoredTrainingSession adds its CheckpointSaverHook (TensorFlow's own rule for the cadence)."""
    secs, steps = given["save_checkpoint_secs"], given["save_checkpoint_steps"]
    if secs is _USE_DEFAULT and steps is _USE_DEFAULT:
        secs, steps = 600, None
    elif secs is _USE_DEFAULT:
        secs = None
    elif steps is _USE_DEFAULT:
        steps = None
    return bool((secs and secs > 0) or (steps and steps > 0))


class SaveOnPreemption(tf.compat.v1.train.SessionRunHook):
    """After the step during which SIGTERM or SIGINT arrived: save `model.ckpt-<global step>` in
    `checkpoint_dir` with the scaffold's Saver, then raise SystemExit(PREEMPTED_EXIT_CODE)."""

    def __init__(self, checkpoint_dir: str, scaffold: tf.compat.v1.train.Scaffold, signals=preemption.DEFAULT_SIGNALS):
        self._checkpoint_dir = checkpoint_dir
        self._scaffold = scaffold
        self._watcher = preemption.PreemptionWatcher(signals)
        self._global_step = None

    def begin(self):
        self._global_step = tf.compat.v1.train.get_global_step()
        if self._global_step is None:
            raise RuntimeError("Global step should be created to use CheckpointSaverHook.")  # TensorFlow's own check
        self._watcher.start()

    def after_run(self, run_context, run_values):
        if not self._watcher.requested:
            return
        self._watcher.stop()
        session = run_context.session
        step = session.run(self._global_step)
        saver = self._scaffold.saver or tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.SAVERS)[0]
        path = saver.save(session, os.path.join(self._checkpoint_dir, "model.ckpt"), global_step=step)
        _exit_preempted(self._watcher.received, path, step)

    def end(self, session):
        self._watcher.stop()


class CheckpointSaverHook(tf.compat.v1.train.CheckpointSaverHook):
    """`tf.compat.v1.train.CheckpointSaverHook` (same arguments, same saves), which also saves on preemption: after
    the step during which SIGTERM or SIGINT arrived it saves that step (unless its cadence just did), then raises
    SystemExit(PREEMPTED_EXIT_CODE). Its listeners' `end` is not called: the training did not end."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._watcher = preemption.PreemptionWatcher()

    def begin(self):
        super().begin()
        self._watcher.start()

    def after_run(self, run_context, run_values):
        super().after_run(run_context, run_values)
        if not self._watcher.requested:
            return
        self._watcher.stop()
        step = run_context.session.run(self._global_step_tensor)
        if step != self._timer.last_triggered_step():
            self._timer.update_last_triggered_step(step)
            self._save(run_context.session, step)
        _exit_preempted(self._watcher.received, f"{self._save_path}-{step}", step)

    def end(self, session):
        self._watcher.stop()
        super().end(session)


def _exit_preempted(signum: int, path: str, step: int):
    tf.compat.v1.logging.warning("Signal %d: saved %s after step %d; exiting with %d (run again to resume)",
                                 signum, path, step, preemption.PREEMPTED_EXIT_CODE)
    raise SystemExit(preemption.PREEMPTED_EXIT_CODE)
