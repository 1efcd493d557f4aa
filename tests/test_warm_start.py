"""A canned estimator's `warm_start_from=` (compat.warm_start), against the real Estimator: tests/legacy/
warm_start_program.py trains 20 steps (the base run), then, in a fresh model_dir, 10 more from the base run's
weights, under the legacy environment (the reference) and migrated (the modern one). From the same weights and
unshuffled batches the migrated run's model.ckpt-10 must be the Estimator's within 1e-5, every weight by its name;
a migrated base run's checkpoint (a tf.train.Checkpoint) warm-starts the same way; WarmStartSettings selecting
the hidden layers takes those, and only those, from the base run."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import (
    MODERN_PYTHON,
    ROOT,
    assert_canned_model_holds_estimator_weights,
    estimator_start,
    migrate_file,
    run,
)

pytestmark = [pytest.mark.slow, pytest.mark.legacy]
PROGRAM = ROOT / "tests" / "legacy" / "warm_start_program.py"
BASE_STEPS, STEPS = 20, 10


@pytest.fixture(scope="module")
def estimator_runs(legacy_python, tmp_path_factory):
    """The Estimator's base run, its warm-started run and a run warm-starting the hidden layers only."""
    work = tmp_path_factory.mktemp("estimator")
    base, warm, hidden = work / "base", work / "warm", work / "hidden"
    run([legacy_python, PROGRAM, "--model_dir", base, "--max_steps", BASE_STEPS])
    run([legacy_python, PROGRAM, "--model_dir", warm, "--max_steps", STEPS, "--warm_start_from", base])
    run([legacy_python, PROGRAM, "--model_dir", hidden, "--max_steps", STEPS, "--warm_start_from", base,
         "--warm_vars", ".*hiddenlayer.*"])
    return base, warm, hidden


@pytest.fixture(scope="module")
def migrated(tmp_path_factory):
    work = tmp_path_factory.mktemp("migrated")
    return {target: migrate_file(PROGRAM, work / target, target) for target in ("keras", "loop")}


def _model():
    """The model the migrated program builds (its build_estimator's canned builder), here to read checkpoints."""
    from estimator_migrate.compat import canned

    image = tf.feature_column.numeric_column("x", shape=[64])
    ink = tf.feature_column.bucketized_column(tf.feature_column.numeric_column("ink"), [200.0, 300.0, 400.0])
    return canned.dnn_linear_combined_classifier(
        linear_feature_columns=[image, ink], dnn_feature_columns=[image], dnn_hidden_units=[16, 8], n_classes=10,
        loss_reduction="sum_over_batch_size",
    )


def test_warm_started_from_an_estimator_run_takes_the_estimators_steps(estimator_runs, migrated, tmp_path):
    """Both targets, warm-started from the Estimator's base model_dir: the Estimator's model.ckpt-10."""
    base, warm, _ = estimator_runs
    for target, program in migrated.items():
        model_dir = tmp_path / target
        run([MODERN_PYTHON, program, "--model_dir", model_dir, "--max_steps", STEPS, "--warm_start_from", base])
        assert_canned_model_holds_estimator_weights(_model(), model_dir, warm, STEPS)


def test_warm_started_from_a_migrated_run_takes_the_estimators_steps(estimator_runs, migrated, tmp_path):
    """The base run migrated too (from the Estimator's model.ckpt-0: its 20 steps are the Estimator's), its
    tf.train.Checkpoint warm-starts the loop target's run: the Estimator's model.ckpt-10 again."""
    base, warm, _ = estimator_runs
    migrated_base = estimator_start(base, tmp_path / "base")
    run([MODERN_PYTHON, migrated["keras"], "--model_dir", migrated_base, "--max_steps", BASE_STEPS])
    model_dir = tmp_path / "warm"
    run([MODERN_PYTHON, migrated["loop"], "--model_dir", model_dir, "--max_steps", STEPS,
         "--warm_start_from", migrated_base])
    assert_canned_model_holds_estimator_weights(_model(), model_dir, warm, STEPS)


def test_warm_start_settings_take_the_selected_variables_only(estimator_runs, migrated, tmp_path):
    """`vars_to_warm_start=".*hiddenlayer.*"`: the Estimator's model.ckpt-0 has the base run's hidden layers and
    its own fresh logits and linear weights; so has the migrated run's first checkpoint."""
    from estimator_migrate.compat.canned_checkpoint import model_variable_name
    from estimator_migrate.compat.legacy_checkpoint import LegacyCheckpoint

    base, _, hidden = estimator_runs
    base_weights = LegacyCheckpoint(base / f"model.ckpt-{BASE_STEPS}")
    reference_start = LegacyCheckpoint(hidden / "model.ckpt-0")
    model_dir = tmp_path / "hidden"
    run([MODERN_PYTHON, migrated["keras"], "--model_dir", model_dir, "--max_steps", STEPS, "--warm_start_from", base,
         "--warm_vars", ".*hiddenlayer.*"])
    model = _model()
    tf.train.Checkpoint(model=model, optimizer=model.optimizer).restore(str(model_dir / "ckpt-0")).expect_partial()
    variables = {v.name.removesuffix(":0"): v.numpy() for v in model.variables}
    names = ["dnn/hiddenlayer_0/kernel", "dnn/hiddenlayer_1/bias", "dnn/logits/kernel",
             "linear/linear_model/x/weights"]
    for name in names:
        taken = np.array_equal(reference_start.read(name), base_weights.read(name))
        assert taken == ("hiddenlayer" in name), name  # the Estimator's own selection, as the test reads it
        assert np.array_equal(variables[model_variable_name(name)], base_weights.read(name)) == taken, name
