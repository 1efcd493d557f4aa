"""compat.resume.restore, what a migrated `saver.restore(sess, path)` calls (codemods/saver_loops.py): a
checkpoint the migrated program wrote restores whole; the Saver's own TF1 checkpoints load by name (weights,
slots, step), or fail naming what does not map; a missing path and a checkpoint lacking some of the model's
variables fail with a clear error, as Saver.restore failed. compat.resume.restore_latest carries a model_dir
of TF1 checkpoints over without deleting or changing any of its files."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
import tf_keras

from estimator_migrate.compat import model_fns, resume
from estimator_migrate.compat.legacy_checkpoint import CheckpointError
from estimator_migrate.compat.optimizer_state import keras_slot


class Tiny(model_fns.EstimatorModel):
    def __init__(self):
        super().__init__()
        self.compile(optimizer=tf_keras.optimizers.Adam(0.1))

    def call(self, features, training=False):
        return self.layer(tf_keras.layers.Dense, 2)(features)


def _model() -> Tiny:
    model = Tiny()
    model.make_variables((tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([None], tf.int64)))
    return model


def _checkpoint(model):
    return tf.train.Checkpoint(model=model, optimizer=model.optimizer)


def test_a_checkpoint_of_the_migrated_program_restores_whole(tmp_path):
    saved = _model()
    saved.model_fn_layers[0].kernel.assign(np.arange(6, dtype=np.float32).reshape(3, 2))
    saved.optimizer.iterations.assign(7)
    path = tf.train.CheckpointManager(_checkpoint(saved), str(tmp_path), max_to_keep=1).save(checkpoint_number=7)

    restored = _model()
    resume.restore(_checkpoint(restored), path)
    np.testing.assert_array_equal(restored.model_fn_layers[0].kernel.numpy(), saved.model_fn_layers[0].kernel.numpy())
    assert int(restored.optimizer.iterations) == 7


def _saver_checkpoints(directory, steps=(5,), kernel_name="dense/kernel") -> list[str]:
    """TF1 checkpoints of the graph Tiny's model_fn builds, trained with TF1 Adam, as a tf.compat.v1 Saver
    writes them (the state file lists each with its timestamp): one prefix per step in `steps`."""
    paths = []
    with tf.Graph().as_default():
        features = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
        kernel = tf.compat.v1.get_variable(kernel_name, [3, 2])
        bias = tf.compat.v1.get_variable(kernel_name.replace("kernel", "bias"), [2], initializer=tf.ones_initializer())
        logits = tf.matmul(features, kernel) + bias
        step = tf.compat.v1.train.get_or_create_global_step()
        train = tf.compat.v1.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(logits**2), global_step=step)
        saver = tf.compat.v1.train.Saver(max_to_keep=10)
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            for target in steps:
                while session.run(step) < target:
                    session.run(train)
                paths.append(saver.save(session, str(directory / "model.ckpt"), global_step=target))
    return paths


def test_the_savers_own_tf1_checkpoint_is_loaded_by_name(tmp_path):
    (path,) = _saver_checkpoints(tmp_path)
    model = _model()
    assert resume.restore(_checkpoint(model), path) == 5
    reader = tf.train.load_checkpoint(path)
    np.testing.assert_array_equal(model.model_fn_layers[0].kernel.numpy(), reader.get_tensor("dense/kernel"))
    np.testing.assert_array_equal(model.model_fn_layers[0].bias.numpy(), reader.get_tensor("dense/bias"))
    kernel = model.model_fn_layers[0].kernel
    np.testing.assert_array_equal(keras_slot(model.optimizer, kernel, "m").numpy(), reader.get_tensor("dense/kernel/Adam"))
    assert int(model.optimizer.iterations) == 5


def test_a_tf1_checkpoint_of_another_graph_fails_naming_it_and_loads_nothing(tmp_path):
    (path,) = _saver_checkpoints(tmp_path, kernel_name="other/kernel")
    model = _model()
    before = [v.numpy() for v in model.variables]
    with pytest.raises(CheckpointError, match="other/kernel"):
        resume.restore(_checkpoint(model), path)
    for variable, value in zip(model.variables, before):
        np.testing.assert_array_equal(variable.numpy(), value)
    assert int(model.optimizer.iterations) == 0


def test_an_estimator_model_dir_is_carried_over_and_its_files_kept(tmp_path):
    """restore_latest on a model_dir of TF1 checkpoints (Saver-written, as an Estimator's) continues the
    latest; the manager's saves beyond max_to_keep then delete none of them, and their state file is kept."""
    paths = _saver_checkpoints(tmp_path, steps=(2, 4, 6))
    legacy_files = {p: p.read_bytes() for p in tmp_path.iterdir()}
    model = _model()
    checkpoint = _checkpoint(model)
    manager = tf.train.CheckpointManager(checkpoint, str(tmp_path), max_to_keep=1)
    assert resume.restore_latest(checkpoint, manager) == 6
    np.testing.assert_array_equal(model.model_fn_layers[0].kernel.numpy(),
                                  tf.train.load_checkpoint(paths[-1]).get_tensor("dense/kernel"))
    for step in (7, 8, 9):
        model.optimizer.iterations.assign(step)
        manager.save(checkpoint_number=step)
    for path, content in legacy_files.items():
        kept = path.with_name(resume.ESTIMATOR_STATE_BACKUP) if path.name == "checkpoint" else path
        assert kept.read_bytes() == content, path.name
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert [p.rsplit("/", 1)[1] for p in state.all_model_checkpoint_paths] == ["ckpt-9"]
    restarted = _model()
    restored = _checkpoint(restarted)
    resume.restore_latest(restored, tf.train.CheckpointManager(restored, str(tmp_path), max_to_keep=1))
    assert int(restarted.optimizer.iterations) == 9


@pytest.mark.parametrize("damage", ["truncated_data", "garbled_index"])
def test_a_damaged_estimator_checkpoint_stops_with_one_line_and_changes_nothing(damage, tmp_path):
    """The Estimator's newest checkpoint does not read: no fall back to an older one (nor a fresh start),
    one error naming it, and every file of the model_dir as it was."""
    paths = _saver_checkpoints(tmp_path, steps=(2, 4))
    if damage == "truncated_data":
        data = next(tmp_path.glob("model.ckpt-4.data-*"))
        data.write_bytes(data.read_bytes()[:40])
    else:
        (tmp_path / "model.ckpt-4.index").write_bytes(b"\x00garbage" * 40)
    files = {p: p.read_bytes() for p in tmp_path.iterdir()}
    model = _model()
    checkpoint = _checkpoint(model)
    manager = tf.train.CheckpointManager(checkpoint, str(tmp_path), max_to_keep=1)
    with pytest.raises(CheckpointError) as raised:
        resume.restore_latest(checkpoint, manager)
    message = str(raised.value)
    assert "\n" not in message and message.startswith(f"{paths[-1]}: the Estimator's newest checkpoint cannot be read")
    assert int(model.optimizer.iterations) == 0
    assert {p: p.read_bytes() for p in tmp_path.iterdir()} == files


def test_a_model_that_is_not_migrated_code_is_refused_with_how_to_load(tmp_path):
    (path,) = _saver_checkpoints(tmp_path)
    plain = tf_keras.Sequential([tf_keras.layers.Dense(2)])
    with pytest.raises(resume.EstimatorCheckpointError, match="load_legacy_checkpoint"):
        resume.restore(tf.train.Checkpoint(model=plain), path)


def test_no_path_is_the_savers_error():
    with pytest.raises(ValueError, match="save_path when it is None"):
        resume.restore(_checkpoint(_model()), None)


def test_a_checkpoint_lacking_the_optimizer_fails_as_saver_restore_did(tmp_path):
    model = _model()
    path = tf.train.Checkpoint(model=model).write(str(tmp_path / "weights_only"))
    with pytest.raises(AssertionError):
        resume.restore(_checkpoint(_model()), path)
