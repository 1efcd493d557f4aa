"""Backups on the wall clock (Estimator's save_checkpoints_secs): TimedBackupAndRestore and
ExactBackupAndRestore(save_secs=...), in real `fit` runs whose steps take a known minimum time."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest
import tensorflow as tf
import tf_keras

from estimator_migrate.compat.exact import ExactBackupAndRestore
from estimator_migrate.compat.timed_backup import TimedBackupAndRestore

STEP_SECONDS = 0.05
SAVE_SECS = 0.2
STEPS = 30


class SlowSteps(tf_keras.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        time.sleep(STEP_SECONDS)


class BackupWatch(tf_keras.callbacks.Callback):
    """Records when (monotonic seconds) and after which step a new backup appears in `directory`."""

    def __init__(self, directory):
        super().__init__()
        self.directory = directory
        self.backups: list[tuple[float, int]] = []
        self._latest = None

    def on_train_begin(self, logs=None):
        self.started = time.monotonic()

    def on_train_end(self, logs=None):
        self.ended = time.monotonic()

    def on_train_batch_end(self, batch, logs=None):
        latest = tf.train.latest_checkpoint(self.directory)
        if latest is not None and latest != self._latest:
            self._latest = latest
            self.backups.append((time.monotonic(), batch + 1))


def _fit(backup, watch):
    tf_keras.utils.set_random_seed(0)
    model = tf_keras.Sequential([tf_keras.Input((4,)), tf_keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    data = tf.data.Dataset.from_tensor_slices((np.ones((STEPS, 4), "float32"), np.ones((STEPS, 1), "float32")))
    model.fit(data.batch(1), callbacks=[backup, SlowSteps(), watch], verbose=0)


def assert_on_the_clock(watch: BackupWatch) -> None:
    """The first backup no sooner than SAVE_SECS after training began, then at most one a SAVE_SECS.

    As Estimator's timer, the clock restarts when a save begins. The watch sees a save when it has ended,
    so the gap between two sightings also depends on how long each save took: on a loaded machine a slow
    save is followed by a sighting 0.07 s later (seen in a clean-clone run), which is right. What the clock
    guarantees is counted instead: saves begin at least SAVE_SECS apart, so a run of T seconds has at
    most T / SAVE_SECS + 1 of them, each after a different step.
    """
    assert len(watch.backups) >= 2, watch.backups
    moments = [moment for moment, _ in watch.backups]
    assert moments[0] - watch.started >= SAVE_SECS - 0.01, moments[0] - watch.started
    assert len(watch.backups) <= (watch.ended - watch.started) / SAVE_SECS + 1, watch.backups
    steps = [step for _, step in watch.backups]
    assert steps == sorted(set(steps)), steps


def test_timed_backup_and_restore_backs_up_on_the_clock(tmp_path):
    watch = BackupWatch(os.path.join(tmp_path, "chief"))  # where BackupAndRestore's chief writes
    _fit(TimedBackupAndRestore(tmp_path, save_secs=SAVE_SECS, delete_checkpoint=False), watch)
    assert_on_the_clock(watch)


def test_exact_backup_and_restore_backs_up_on_the_clock(tmp_path):
    watch = BackupWatch(str(tmp_path))
    backup = ExactBackupAndRestore(tmp_path, save_freq=False, save_secs=SAVE_SECS, save_before_preemption=False)
    _fit(backup, watch)
    assert_on_the_clock(watch)


@pytest.mark.parametrize("save_secs", [0, -1])
def test_refuses_a_cadence_that_is_not_positive(tmp_path, save_secs):
    with pytest.raises(ValueError, match="save_secs"):
        TimedBackupAndRestore(tmp_path, save_secs=save_secs)
    with pytest.raises(ValueError, match="save_secs"):
        ExactBackupAndRestore(tmp_path, save_secs=save_secs)
