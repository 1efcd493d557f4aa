"""A training hook that evaluates its estimator (tests/legacy/eval_in_hook_program.py: every 7 steps, from
after_run). Estimator's evaluate read the latest checkpoint into a graph of its own and the training went on
untouched; the migrated evaluate restores the checkpoint into the model itself, so during a train call it puts the
training's weights, optimizer state and step back afterwards (compat.estimator_training.training_kept). Without
that, each evaluation rewound the training to the last checkpoint: a LinearClassifier evaluated at steps 7, 14,
21, 28 ended with the weights of step 0.

Both estimators (--canned: a LinearClassifier; a custom model_fn), both targets, from the Estimator's model.ckpt-0:
the final weights are the Estimator's within 1e-5, and each evaluation of a checkpoint gives the Estimator's loss
for it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.conftest import MODERN_PYTHON, ROOT, estimator_start, migrate_file, run

PROGRAM = ROOT / "tests" / "legacy" / "eval_in_hook_program.py"
AS_TF1 = ROOT / "tests" / "legacy" / "run_as_tf1.py"


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.parametrize("target", ["keras", "loop"])
@pytest.mark.parametrize("canned", [True, False], ids=["canned", "model_fn"])
def test_a_hook_evaluating_its_estimator_leaves_the_training_as_it_was(canned, target, legacy_python, tmp_path):
    flags = ["--canned"] if canned else []
    estimator_dir, expected_file, got_file = tmp_path / "estimator", tmp_path / "estimator.json", tmp_path / "got.json"
    run([legacy_python, AS_TF1, PROGRAM, "--model_dir", estimator_dir, "--results", expected_file, *flags])
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    assert "class EvalHook(tf_keras.callbacks.Callback)" in migrated.read_text()
    model_dir = estimator_start(estimator_dir, tmp_path / "model")
    run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--results", got_file, *flags])

    expected, got = json.loads(expected_file.read_text()), json.loads(got_file.read_text())
    np.testing.assert_allclose(got["weights"], expected["weights"], rtol=0, atol=1e-5)
    assert np.abs(np.asarray(expected["weights"])).max() > 0.01  # (trained)
    expected_losses, got_losses = dict(map(tuple, expected["evaluations"])), dict(map(tuple, got["evaluations"]))
    assert set(got_losses) == set(expected_losses) == {0, 10, 20}
    for step, loss in expected_losses.items():
        assert got_losses[step] == pytest.approx(loss, rel=1e-5), step


def test_predict_from_a_hook_while_its_estimator_trains_is_one_error(tmp_path):
    """predict's generator outlives the call that makes it: from a hook, mid-training, it is one error (not a
    restore of the last checkpoint into the model being trained)."""
    import tensorflow as tf
    import tf_keras

    from estimator_migrate.compat import canned, estimator_training

    model = estimator_training.configure(canned.linear_classifier([tf.feature_column.numeric_column("x")]),
                                         model_dir=str(tmp_path))

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": [[1.0], [2.0]]}, [0, 1])).repeat().batch(2)

    class Predicting(tf_keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            next(estimator_training.predict(model, input_fn))

    with pytest.raises(ValueError, match=r"predict\(\) while its estimator trains"):
        estimator_training.train(model, input_fn, hooks=[Predicting()], steps=3)
    assert not getattr(model, "trains_now", False)
