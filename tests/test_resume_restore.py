"""compat.resume.restore, what a migrated `saver.restore(sess, path)` calls (codemods/saver_loops.py): a
checkpoint the migrated program wrote restores whole; the Saver's own TF1 checkpoints, a missing path and a
checkpoint lacking some of the model's variables fail with a clear error, as Saver.restore failed."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
import tf_keras

from compat import model_fns, resume


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


def test_the_savers_own_tf1_checkpoint_is_refused_with_how_to_convert(tmp_path):
    with tf.Graph().as_default():
        tf.compat.v1.get_variable("dense/kernel", [3, 2])
        saver = tf.compat.v1.train.Saver()
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            path = saver.save(session, str(tmp_path / "model.ckpt"), global_step=5)
    with pytest.raises(resume.EstimatorCheckpointError) as raised:
        resume.restore(_checkpoint(_model()), path)
    message = str(raised.value)
    assert path in message and "tf.compat.v1.train.Saver" in message
    assert "compat.model_fns.convert_estimator_checkpoint" in message


def test_no_path_is_the_savers_error():
    with pytest.raises(ValueError, match="save_path when it is None"):
        resume.restore(_checkpoint(_model()), None)


def test_a_checkpoint_lacking_the_optimizer_fails_as_saver_restore_did(tmp_path):
    model = _model()
    path = tf.train.Checkpoint(model=model).write(str(tmp_path / "weights_only"))
    with pytest.raises(AssertionError):
        resume.restore(_checkpoint(_model()), path)
