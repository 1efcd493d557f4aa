"""A custom model_fn with the hooks of issue 63's benchmark (tests/legacy/model_fn_hooks_program.py): its
EstimatorSpec's `training_hooks=[NanTensorHook(loss)]`, and train(hooks=[LoggingTensorHook of the global step,
StepCounterHook]). The rewrite turns the model_fn into a Keras class (tier 1) for each target: the spec's
NanTensorHook was Estimator's own check again, and the LoggingTensorHook names only the global step. Against the
real Estimator (legacy env): the same step lines, and a NaN loss fails at the same step with the same latest
checkpoint."""

from __future__ import annotations

import re

import pytest

from migrate.demo import checkpoint_step
from tests.conftest import MODERN_PYTHON, ROOT, migrate_file, run

pytestmark = [pytest.mark.slow, pytest.mark.legacy]
PROGRAM = ROOT / "tests" / "legacy" / "model_fn_hooks_program.py"
LOGGED_STEP = re.compile(r"^INFO:tensorflow:step = (\d+)(?: \(\d+\.\d+ sec\))?$", re.MULTILINE)
NAN_ERROR = "NanLossDuringTrainingError: NaN loss during training."


def _steps_logged(completed) -> list[int]:
    return [int(step) for step in LOGGED_STEP.findall(completed.stderr)]


@pytest.fixture(scope="module")
def estimator_runs(legacy_python, tmp_path_factory):
    """(the steps the Estimator logged, its NaN run's stderr and latest checkpoint step)."""
    directory = tmp_path_factory.mktemp("estimator")
    logged = _steps_logged(run([legacy_python, PROGRAM, directory / "model"]))
    failed = run([legacy_python, PROGRAM, directory / "nan", "--nan_step", "6"], check_codes=(1,))
    return logged, failed.stderr, checkpoint_step(directory / "nan")


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_the_model_fn_with_its_hooks_migrates_to_a_keras_class_and_runs_them_as_the_estimator(
        estimator_runs, target, tmp_path):
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    text = migrated.read_text()
    assert "class ModelFn(model_fns.EstimatorModel):" in text and "wrapped_model_fns" not in text
    assert "train.NanTensorHook(" not in text and "TODO(migrate)" not in text
    assert 'estimator_hooks.LoggingTensorHook(tensors={"step": "global_step/Read/ReadVariableOp:0"}' in text
    estimator_steps, estimator_nan, estimator_nan_checkpoint = estimator_runs

    trained = run([MODERN_PYTHON, migrated, tmp_path / "model"])
    assert checkpoint_step(tmp_path / "model") == 200
    # The step before its update, where the Estimator's read raced the increment (tests/test_logging_tensor_hook.py)
    # (set: the loop target prints each line twice once it has saved, a gap left open: TF 2.21's checkpoint writer
    # logs through absl, which configures the root logger; the inline loop's own saves do not undo that, as
    # compat.root_logging does for the runtime's)
    steps = sorted(set(_steps_logged(trained)))
    assert steps == [0, 50, 100, 150]
    assert len(estimator_steps) == 4 and all(logged in (step, step + 1) for logged, step in zip(estimator_steps, steps))

    failed = run([MODERN_PYTHON, migrated, tmp_path / "nan", "--nan_step", "6"], check_codes=(1,))
    assert NAN_ERROR in estimator_nan and NAN_ERROR in failed.stderr
    assert checkpoint_step(tmp_path / "nan") == estimator_nan_checkpoint == 4
