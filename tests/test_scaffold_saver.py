"""A training Scaffold's Saver (compat.wrapped_model_fns): Estimator saved model_dir's checkpoints with it, so its
`max_to_keep` / `keep_checkpoint_every_n_hours` decide which are kept, not RunConfig's. tests/legacy/
scaffold_saver_program.py (TF 1.x code, `Saver(max_to_keep=2)`, a save every 5 steps) under the real Estimator
keeps model.ckpt-25 and -30 of 30 steps; migrated, from the model.ckpt-0 of the same training keeping them all, it
keeps the same two steps and ends with the Estimator's weights and evaluation. A Saver saving some of the variables is one error."""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf

from estimator_migrate.compat.estimator_training import ModeKeys
from estimator_migrate.compat.wrapped_model_fns import EstimatorSpec, WrappedModelFn
from tests.conftest import (
    ROOT,
    assert_tf1_variables_match,
    listed_checkpoint_steps,
    respelled,
    run_wrapped_from_estimator_start,
    wrapped_reference,
)

PROGRAM = ROOT / "tests" / "legacy" / "scaffold_saver_program.py"
STEPS = 30


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.parametrize("target", ["keras", "loop"])
def test_a_training_scaffolds_saver_keeps_the_checkpoints_the_estimator_kept(target, legacy_python, tmp_path):
    kept = wrapped_reference(legacy_python, PROGRAM, tmp_path / "kept", STEPS, as_tf1=True)
    assert listed_checkpoint_steps(kept) == [25, 30]  # the Saver's 2, not RunConfig's 5
    # The same training keeping every checkpoint, for its model.ckpt-0 (the one above deleted it)
    keeping_all = respelled(PROGRAM, {"max_to_keep=2": "max_to_keep=100"}, tmp_path / "keeping_all.py")
    estimator_dir = wrapped_reference(legacy_python, keeping_all, tmp_path / "estimator", STEPS, as_tf1=True)
    _, model_dir, results = run_wrapped_from_estimator_start(PROGRAM, estimator_dir, target, tmp_path / "run", STEPS)
    assert listed_checkpoint_steps(model_dir) == [25, 30]
    assert_tf1_variables_match(model_dir, estimator_dir / f"model.ckpt-{STEPS}", estimator_dir / "model.ckpt-0", STEPS,
                               ("hidden/kernel", "out/kernel"))
    expected, got = (json.loads(path.read_text()) for path in (estimator_dir / "results.json", results))
    assert got["metrics"] == pytest.approx(expected["metrics"], rel=1e-5)


def test_a_training_saver_of_some_variables_is_one_error():
    def partial_saver(features, labels, mode):
        hidden = tf.compat.v1.layers.dense(features["x"], 3, name="hidden")
        loss = tf.reduce_mean(tf.compat.v1.layers.dense(hidden, 1, name="out"))
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, tf.compat.v1.train.get_global_step())
        saver = tf.compat.v1.train.Saver(tf.compat.v1.trainable_variables())  # not the global step
        return EstimatorSpec(mode, loss=loss, train_op=train_op, scaffold=tf.compat.v1.train.Scaffold(saver=saver))

    dataset = tf.data.Dataset.from_tensor_slices(({"x": np.ones([4, 2], np.float32)}, np.ones([4], np.float32)))
    with pytest.raises(ValueError, match=r"Saver saves some of the variables \(var_list\)"):
        WrappedModelFn(partial_saver).make_variables(dataset.batch(2).element_spec, ModeKeys.TRAIN)
