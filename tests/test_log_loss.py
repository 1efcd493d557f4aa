"""compat.estimator_hooks.LogLoss, LoggingTensorHook({tag: loss}, every_n_iter) of migrated
MonitoredTrainingSession loops: when it logs and what (the real session's lines are compared in
tests/test_monitored_session.py)."""

import logging

import numpy as np
import pytest
import tensorflow as tf
import tf_keras

from estimator_migrate.compat.estimator_hooks import LogLoss


def _logged(caplog, losses, every_n_iter):
    callback = LogLoss("cross entropy", every_n_iter=every_n_iter)
    callbacks = tf_keras.callbacks.CallbackList([callback], model=tf_keras.Sequential())
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        callbacks.on_train_begin()
        for batch, loss in enumerate(losses):  # as the migrated loop calls them
            callbacks.on_train_batch_begin(batch)
            callbacks.on_train_batch_end(batch, {"loss": tf.constant(loss, tf.float32)})
    messages = [record.getMessage() for record in caplog.records if record.name == "tensorflow"]
    return [message for message in messages if message.startswith("cross entropy = ")]


def test_logs_every_n_iterations_of_the_process_with_the_seconds_since_the_last(caplog):
    losses = [1.3862944, 1.25, 1.125, 1.0, 0.875, 0.75, 0.5]
    lines = _logged(caplog, losses, every_n_iter=3)
    assert len(lines) == 3  # iterations 0, 3, 6
    assert lines[0] == f"cross entropy = {np.float32(losses[0])}"  # the first has no duration, as TF1's
    for line, loss in zip(lines[1:], (losses[3], losses[6])):
        message, seconds = line.rsplit(" (", 1)
        assert message == f"cross entropy = {np.float32(loss)}" and seconds.endswith(" sec)")


def test_every_n_iter_must_be_positive():
    with pytest.raises(ValueError, match="every_n_iter must be positive, got 0"):
        LogLoss("loss", every_n_iter=0)
