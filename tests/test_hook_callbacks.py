"""What a SessionRunHook become a Keras callback is given in place of TF1's session objects
(compat.estimator_hooks): TF1's summary writers made eagerly, and the run_context / run_values it hands on to a
method of its own. The end-to-end use of both against the real Estimator: tests/test_eval_in_hook.py."""

from __future__ import annotations

import pytest
import tensorflow as tf
import tf_keras

from estimator_migrate.compat import estimator_hooks


def _scalars(logdir) -> list[tuple[int, str, float]]:
    return sorted((event.step, value.tag, value.simple_value)
                  for path in logdir.glob("events.out.tfevents.*")
                  for event in tf.compat.v1.train.summary_iterator(str(path)) for value in event.summary.value)


def test_a_cached_file_writer_writes_summary_protos_at_their_steps_whatever_the_training_records(tmp_path):
    writer = estimator_hooks.cached_file_writer(str(tmp_path))
    assert estimator_hooks.cached_file_writer(tmp_path / ".") is writer  # one per directory, as TF1's cache
    assert writer.get_logdir() == str(tmp_path)
    with tf.summary.record_if(False):  # (a training recording its own summaries every N steps)
        writer.add_summary(tf.compat.v1.Summary(value=[tf.compat.v1.Summary.Value(tag="loss", simple_value=0.5)]), 7)
    writer.add_summary(tf.compat.v1.Summary(value=[tf.compat.v1.Summary.Value(tag="auc", simple_value=0.75)])
                       .SerializeToString(), global_step=9)
    writer.add_summary(tf.compat.v1.Summary(value=[tf.compat.v1.Summary.Value(tag="none", simple_value=1.0)]))
    writer.flush()
    assert _scalars(tmp_path) == [(0, "none", 1.0), (7, "loss", 0.5), (9, "auc", 0.75)]


def test_a_handed_on_run_context_stops_the_training_and_has_no_session():
    model = tf_keras.Sequential([tf_keras.layers.Dense(1)])
    model.stop_training = False
    context = estimator_hooks.SessionRunContext(model)
    assert not context.stop_requested
    context.request_stop()
    assert model.stop_training and context.stop_requested
    with pytest.raises(RuntimeError, match="run_context.session: a hook migrated to a Keras callback has no TF1"):
        context.session.run("loss:0")
    values = estimator_hooks.SessionRunValues({"global_step": 3})
    assert values.results == {"global_step": 3} and values.options is None and values.run_metadata is None
