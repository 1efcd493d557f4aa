"""TPUEstimator programs against the real TPUEstimator: tests/legacy/tpu_estimator_program.py (BERT's shape:
flags, a model_fn_builder, params["batch_size"], TPUEstimatorSpec with eval_metrics, a TPU RunConfig) trains
20 steps under TensorFlow 2.15 with use_tpu=False (TPUEstimator's CPU path). Rewritten for each target, the
same program is started on a directory holding only that run's model.ckpt-0, which it continues by itself;
after 20 steps on the same batches every variable (weights, Adam's slots and powers, the global step) equals
the TPUEstimator's model.ckpt-20, and evaluate() and predict() return its results. Run with --use_tpu, the
migrated program stops at once with one error saying TPU execution is not migrated."""

from __future__ import annotations

import pytest

from tests.conftest import (
    MODERN_PYTHON,
    ROOT,
    assert_wrapped_run_matches_estimator,
    estimator_start,
    migrate_file,
    run,
)

# On one xdist worker (--dist loadgroup): the module's reference runs (module fixtures) are made once.
pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("tpu_estimator")]
PROGRAM = ROOT / "tests" / "legacy" / "tpu_estimator_program.py"
STEPS = 20


@pytest.fixture(scope="module")
def estimator_dir(legacy_python, tmp_path_factory):
    model_dir = tmp_path_factory.mktemp("tpu_estimator") / "model"
    run([legacy_python, PROGRAM, "--output_dir", model_dir, "--num_train_steps", STEPS,
         "--results", model_dir / "results.json"])
    return model_dir


@pytest.mark.parametrize("target", ["keras"])  # one target: tests/conftest.py, "Targets"
def test_continues_the_tpu_estimator_checkpoint_step_for_step(estimator_dir, target, tmp_path):
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    source = migrated.read_text()
    assert "tf_estimator" not in source and "tpu_estimators.WrappedTPUModelFn(model_fn" in source
    assert "TODO(migrate)" not in source
    model_dir = estimator_start(estimator_dir, tmp_path / "model")
    results = tmp_path / "results.json"
    run([MODERN_PYTHON, migrated, "--output_dir", model_dir, "--num_train_steps", STEPS, "--results", results])
    assert_wrapped_run_matches_estimator(model_dir, estimator_dir, STEPS, ("encoder/w", "cls/dense/kernel", "encoder/w/Adam_1"),
                                         results, {"eval_accuracy", "eval_loss", "loss", "global_step"})


def test_use_tpu_stops_with_one_error(tmp_path):
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", "keras")
    failed = run([MODERN_PYTHON, migrated, "--output_dir", tmp_path / "model", "--use_tpu"], check_codes=(1,))
    last = failed.stderr.strip().splitlines()[-1]
    assert last.startswith("ValueError: TPUEstimator(use_tpu=True): running on a TPU is not migrated"), last
    assert not (tmp_path / "model").exists() or not any((tmp_path / "model").iterdir()), "it trained before failing"
