"""train(saving_listeners=...) and TrainSpec(saving_listeners=...), migrated, against the real Estimator.

tests/legacy/saving_listeners_program.py runs under the Estimator (legacy env) and, rewritten for each target,
under the newest TensorFlow from the Estimator's own model.ckpt-0. Its CheckpointSaverListeners hear the same
calls at the same steps as under Estimator's CheckpointSaverHook (compat.kept_checkpoints.SavingListeners): begin,
before_save and after_save around each save of model_dir (a call's first step, every 10 steps, its end unless just
saved), end; one asking to stop after its third save ends the second call at 45 as it did; a wrapped model_fn's
listener reads the global step through its session from a tensor it took in begin(); a canned estimator's listener,
given in a TrainSpec, hears train_and_evaluate's saves. The custom model_fn's final weights are the Estimator's
model.ckpt-45 within 1e-5."""

from __future__ import annotations

import pytest

from tests.conftest import MODERN_PYTHON, ROOT, assert_tf1_variables_match, estimator_start, migrate_file, run

pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("saving_listeners")]
PROGRAM = ROOT / "tests" / "legacy" / "saving_listeners_program.py"


@pytest.fixture(scope="module")
def estimator_dir(legacy_python, tmp_path_factory):
    model_dir = tmp_path_factory.mktemp("estimator") / "model"
    run([legacy_python, PROGRAM, "--model_dir", model_dir])
    return model_dir


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_listeners_hear_the_estimators_saves(target, estimator_dir, tmp_path):
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    text = migrated.read_text()
    assert "class SaveLogger(tf.compat.v1.train.CheckpointSaverListener)" in text and "TODO(migrate)" not in text
    model_dir = estimator_start(estimator_dir, tmp_path / "model")
    run([MODERN_PYTHON, migrated, "--model_dir", model_dir])

    expected = (estimator_dir / "saves.txt").read_text().splitlines()
    assert "second end 45 45" in expected and "canned end 30 -1" in expected
    assert (model_dir / "saves.txt").read_text().splitlines() == expected
    assert_tf1_variables_match(model_dir, estimator_dir / "model.ckpt-45", estimator_dir / "model.ckpt-0", 45,
                               trained=("logits/kernel", "logits/bias"))
