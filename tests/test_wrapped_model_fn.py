"""Tier 2 (compat/wrapped_model_fns.py) against the real Estimator: tests/legacy/wrapped_model_fn_program.py
(a TF1-graph model_fn tier 1 cannot rewrite) trains 20 steps under TensorFlow 2.15; rewritten for each
target, the same program is started on a directory holding only the Estimator's model.ckpt-0, which it
continues by itself (the variables keep their TF1 names). After 20 steps on the same batches every variable
(weights, batch-norm statistics, Adam's slots and powers, the global step) equals the Estimator's
model.ckpt-20 within 1e-5, evaluate() and predict() return the Estimator's results, and the export serves
what the Estimator's export serves. A migrated run SIGKILLed after a checkpoint and started again ends at its
max_steps; warm starts and train_and_evaluate (a named EvalSpec with hooks) do what the Estimator's did."""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import (
    MODERN_PYTHON,
    ROOT,
    assert_tf1_variables_match,
    assert_wrapped_run_matches_estimator,
    estimator_start,
    kill_after_a_save_and_restart,
    latest_saved_step,
    migrate_file,
    run,
    run_wrapped_from_estimator_start,
    sigkill_after_save,
    tf1_variables_in,
    wrapped_reference,
)

# On one xdist worker (--dist loadgroup): the module's reference runs (module fixtures) are made once.
pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("wrapped_model_fn")]
PROGRAM = ROOT / "tests" / "legacy" / "wrapped_model_fn_program.py"
STEPS = 20


@pytest.fixture(scope="module")
def estimator_dir(legacy_python, tmp_path_factory):
    model_dir = tmp_path_factory.mktemp("estimator") / "model"
    return wrapped_reference(legacy_python, PROGRAM, model_dir, STEPS, "--export_dir", model_dir.parent / "export")


def _export_outputs(export_base) -> dict:
    """What each signature of the one SavedModel under `export_base` serves for the first 10 digits as
    serialized tf.Examples: {signature: {output: values}}."""
    from sklearn.datasets import load_digits

    (export,) = export_base.iterdir()
    examples = [tf.train.Example(features=tf.train.Features(feature={"pixels": tf.train.Feature(
        float_list=tf.train.FloatList(value=row / 16.0))})).SerializeToString() for row in load_digits().data[:10]]
    signatures = tf.saved_model.load(str(export)).signatures
    inputs = {"predict": "examples", "serving_default": "inputs"}
    assert sorted(signatures) == sorted(inputs)
    return {name: {key: value.numpy() for key, value in signatures[name](**{inputs[name]: tf.constant(examples)}).items()}
            for name in signatures}


@pytest.mark.parametrize("target", ["loop"])  # one target: tests/conftest.py, "Targets"
def test_continues_the_estimator_checkpoint_step_for_step(estimator_dir, target, tmp_path):
    """... and exports what the Estimator exported: the model_fn's export outputs (a predict signature and a
    classification one, the default), fed serialized tf.Examples, serve the Estimator's values."""
    source, model_dir, results = run_wrapped_from_estimator_start(PROGRAM, estimator_dir, target, tmp_path, STEPS,
                                                                  "--export_dir", tmp_path / "export")
    assert "tf.estimator" not in source and "wrapped_model_fns.WrappedModelFn(model_fn" in source
    assert_wrapped_run_matches_estimator(model_dir, estimator_dir, STEPS, ("encoder/w", "logits/kernel", "encoder/w/Adam_1"),
                                         results, {"accuracy", "loss", "global_step"})
    expected, got = _export_outputs(estimator_dir.parent / "export"), _export_outputs(tmp_path / "export")
    assert {name: sorted(outputs) for name, outputs in got.items()} == {"predict": ["classes", "logits"],
                                                                         "serving_default": ["scores"]}
    assert {name: sorted(outputs) for name, outputs in expected.items()} == {name: sorted(o) for name, o in got.items()}
    for name, outputs in expected.items():
        for key, value in outputs.items():
            np.testing.assert_allclose(got[name][key], value, rtol=0, atol=1e-4, err_msg=f"{name}: {key}")


@pytest.mark.parametrize("target", ["keras"])  # one target: tests/conftest.py, "Targets"
def test_sigkill_and_restart_ends_at_max_steps(target, tmp_path):
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    model_dir, steps = tmp_path / "model", 400
    kill_after_a_save_and_restart(migrated, target, model_dir, steps)
    assert int(tf1_variables_in(tf.train.latest_checkpoint(str(model_dir)))["global_step"]) == steps


def test_exact_resume_after_sigkill_ends_bit_identical(tmp_path):
    """`--exact` (keras target): a run SIGKILLed after a backup and started again continues at the backup's
    step and ends with every variable of the same run left uninterrupted, bit for bit (the model_fn has no
    random op: its weights, Adam's state and the input's position are the whole state)."""
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", "keras", "--exact")
    assert "exact=True" in migrated.read_text()
    steps = 400

    def command(model_dir):
        return [MODERN_PYTHON, migrated, "--model_dir", model_dir, "--max_steps", steps]

    straight_output = run(command(tmp_path / "straight")).stdout
    killed = tmp_path / "killed"
    backups = sigkill_after_save(command(killed), killed / "backup", at_least=50)
    assert backups >= 50 and latest_saved_step(killed) < steps, "the kill did not interrupt the training"
    resumed_output = run(command(killed)).stdout
    # The program is deterministic, so a restart from scratch would end equal too: fit's progress shows that
    # the restarted run began at the backup's step, not at the first
    first_step = f" 1/{steps} ["
    assert first_step in straight_output and first_step not in resumed_output
    straight, resumed = (tf1_variables_in(tf.train.latest_checkpoint(str(d))) for d in (tmp_path / "straight", killed))
    assert int(resumed["global_step"]) == steps
    for name, value in straight.items():
        np.testing.assert_array_equal(resumed[name], value, err_msg=name)


def test_warm_start_from_an_estimator_directory_as_the_estimator_did(estimator_dir, legacy_python, tmp_path):
    """`Estimator(..., warm_start_from=<the 20-step run's model_dir>)`: a fresh model_dir whose trainable
    variables start from that run's latest checkpoint (a TF1 one, read by name), the rest (Adam's slots and
    powers, the batch norm's statistics, the global step) from their initializers, trained 10 steps. Migrated (one
    target: tests/conftest.py, "Targets"), from an empty model_dir: every variable equals the Estimator's
    model.ckpt-10 within 1e-5."""
    import numpy as np

    from estimator_migrate.compat.legacy_checkpoint import LegacyCheckpoint

    reference_dir = tmp_path / "estimator"
    run([legacy_python, PROGRAM, "--model_dir", reference_dir, "--max_steps", 10, "--warm_start_from", estimator_dir])
    reference, started = LegacyCheckpoint(reference_dir / "model.ckpt-10"), LegacyCheckpoint(reference_dir / "model.ckpt-0")
    warm = LegacyCheckpoint(estimator_dir / f"model.ckpt-{STEPS}")
    np.testing.assert_array_equal(started.read("encoder/w"), warm.read("encoder/w"))  # warm-started, as it should
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", "keras")
    model_dir = tmp_path / "model"
    run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--max_steps", 10, "--warm_start_from", estimator_dir])
    variables = tf1_variables_in(tf.train.latest_checkpoint(str(model_dir)))
    assert set(variables) == set(reference.shapes) and int(variables["global_step"]) == 10
    for name, value in variables.items():
        np.testing.assert_allclose(value, reference.read(name), rtol=0, atol=1e-5, err_msg=name)


@pytest.fixture(scope="module")
def evaluated_estimator_dir(legacy_python, tmp_path_factory):
    return wrapped_reference(legacy_python, PROGRAM, tmp_path_factory.mktemp("evaluated") / "model", STEPS,
                             "--train_and_evaluate")


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_train_and_evaluate_with_a_named_eval_spec_and_its_hooks(evaluated_estimator_dir, target, tmp_path):
    """`train_and_evaluate` with `EvalSpec(input_fn, steps=5, name="holdout", hooks=[a SessionRunHook])`,
    continued from the Estimator's model.ckpt-0: the evaluations after the saves at steps 10 and 20 write the
    Estimator's metrics (within 1e-5) to model_dir/eval_holdout, the hook runs in both evaluations and sees
    their 5 batches each, and train_and_evaluate returns the last evaluation's metrics."""
    from estimator_migrate.compat.estimator_hooks import read_eval_metrics

    source, model_dir, results = run_wrapped_from_estimator_start(
        PROGRAM, evaluated_estimator_dir, target, tmp_path, STEPS, "--train_and_evaluate")
    assert "estimator_training.EvalSpec(input_fn, steps=5, name=\"holdout\", hooks=[counter]" in source
    expected, got = (read_eval_metrics(str(d / "eval_holdout")) for d in (evaluated_estimator_dir, model_dir))
    assert list(got) == list(expected) == [10, 20]
    for step, metrics in expected.items():
        assert got[step].keys() >= {"accuracy", "loss"}
        for key in ("accuracy", "loss"):
            assert got[step][key] == pytest.approx(metrics[key], rel=1e-5), (step, key)
    expected, got = (json.loads(path.read_text()) for path in (evaluated_estimator_dir / "results.json", results))
    assert (got["evaluations"], got["batches"]) == (expected["evaluations"], expected["batches"]) == (2, 10)
    assert got["metrics"] == pytest.approx(expected["metrics"], rel=1e-5)
    assert got["metrics"]["global_step"] == STEPS


SCAFFOLD_PROGRAM = ROOT / "tests" / "legacy" / "scaffold_init_fn_program.py"


def test_a_scaffold_init_fn_fine_tunes_from_a_pretrained_checkpoint_as_the_estimator_did(legacy_python, tmp_path):
    """scaffold_init_fn_program.py: a Scaffold's init_fn restores the backbone from a pretrained TF1 checkpoint
    (made by the Estimator) when the training starts without a checkpoint, and not when it continues one. Migrated,
    both targets, from an empty model_dir: 30 steps give the Estimator's model.ckpt-30, 10 more its model.ckpt-40
    (the init_fn did not undo them), within 1e-5, and its evaluation."""
    pretrained, estimator_dir, metrics = tmp_path / "pretrained", tmp_path / "estimator", tmp_path / "estimator.json"
    run([legacy_python, SCAFFOLD_PROGRAM, "--model_dir", pretrained, "--max_steps", 10])
    fine_tune = ["--pretrained", pretrained / "model.ckpt-10"]
    run([legacy_python, SCAFFOLD_PROGRAM, "--model_dir", estimator_dir, *fine_tune])
    run([legacy_python, SCAFFOLD_PROGRAM, "--model_dir", estimator_dir, *fine_tune, "--max_steps", 40,
         "--metrics_out", metrics])
    for target in ("keras", "loop"):
        migrated = migrate_file(SCAFFOLD_PROGRAM, tmp_path / target / "migrated", target)
        model_dir, migrated_metrics = tmp_path / target / "model", tmp_path / target / "metrics.json"
        run([MODERN_PYTHON, migrated, "--model_dir", model_dir, *fine_tune])
        assert_tf1_variables_match(model_dir, estimator_dir / "model.ckpt-30", estimator_dir / "model.ckpt-0", 30,
                                   ("backbone/hidden/kernel", "head/kernel"), target)
        run([MODERN_PYTHON, migrated, "--model_dir", model_dir, *fine_tune, "--max_steps", 40,
             "--metrics_out", migrated_metrics])
        assert_tf1_variables_match(model_dir, estimator_dir / "model.ckpt-40", estimator_dir / "model.ckpt-0", 40,
                                   ("backbone/hidden/kernel", "head/kernel"), target)
        expected, got = json.loads(metrics.read_text()), json.loads(migrated_metrics.read_text())
        assert got == pytest.approx(expected, rel=1e-5), target


EMA_PROGRAM = ROOT / "tests" / "legacy" / "ema_eval_program.py"


def _probabilities(reader, names, images) -> np.ndarray:
    """The program's network on `images` with the weights `names` gives (hidden/kernel, ... -> checkpoint names)."""
    hidden = np.maximum(images @ reader(names["hidden/kernel"]) + reader(names["hidden/bias"]), 0)
    logits = hidden @ reader(names["logits/kernel"]) + reader(names["logits/bias"])
    exp = np.exp(logits - logits.max(axis=1, keepdims=True))
    return exp / exp.sum(axis=1, keepdims=True)


def test_evaluation_and_prediction_restore_the_moving_averages_as_the_estimators_scaffold_saver(legacy_python,
                                                                                                tmp_path):
    """ema_eval_program.py trains with an ExponentialMovingAverage and evaluates and predicts through
    `Scaffold(saver=Saver(ema.variables_to_restore()))`: with the averages. The Estimator's predictions are those of
    the averages in its model.ckpt-30, not of its weights (so the comparison tells them apart). Migrated (one target:
    tests/conftest.py, "Targets"), from its model.ckpt-0: the Estimator's model.ckpt-30 (weights and averages) within
    1e-5, its evaluation and its predictions."""
    from sklearn.datasets import load_digits

    estimator_dir, results = tmp_path / "estimator", tmp_path / "estimator.json"
    run([legacy_python, EMA_PROGRAM, "--model_dir", estimator_dir, "--results", results])
    expected = json.loads(results.read_text())
    images = (load_digits().data[:8] / 16.0).astype(np.float32)
    reader = tf.train.load_checkpoint(str(estimator_dir / "model.ckpt-30")).get_tensor
    weights = {name: name for name in ("hidden/kernel", "hidden/bias", "logits/kernel", "logits/bias")}
    averages = {name: f"{name}/ExponentialMovingAverage" for name in weights}
    np.testing.assert_allclose(expected["probabilities"], _probabilities(reader, averages, images), atol=1e-5)
    assert np.abs(np.array(expected["probabilities"]) - _probabilities(reader, weights, images)).max() > 1e-3

    migrated = migrate_file(EMA_PROGRAM, tmp_path / "migrated", "loop")
    model_dir, migrated_results = estimator_start(estimator_dir, tmp_path / "model"), tmp_path / "r.json"
    run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--results", migrated_results])
    assert_tf1_variables_match(model_dir, estimator_dir / "model.ckpt-30", estimator_dir / "model.ckpt-0", 30,
                               ("hidden/kernel", "logits/kernel", "hidden/kernel/ExponentialMovingAverage"), "loop")
    got = json.loads(migrated_results.read_text())
    assert got["metrics"] == pytest.approx(expected["metrics"], rel=1e-5)
    np.testing.assert_allclose(got["probabilities"], expected["probabilities"], atol=1e-5)


MIRRORED_PROGRAM = ROOT / "tests" / "legacy" / "mirrored_model_fn_program.py"


def test_a_one_replica_strategy_trains_as_the_estimator_did_under_it(legacy_python, tmp_path):
    """mirrored_model_fn_program.py: `RunConfig(train_distribute=MirroredStrategy())` on a machine with one device
    (one replica), as programs written for several GPUs ran on one. The Estimator's steps under it are those of a
    training without it, which the migrated program takes (both targets): from the Estimator's model.ckpt-0, its
    model.ckpt-40 within 1e-5, its evaluation and predictions. (Several replicas: one error, test_training_config.)"""
    estimator_dir, results = tmp_path / "estimator", tmp_path / "estimator.json"
    run([legacy_python, MIRRORED_PROGRAM, "--model_dir", estimator_dir, "--results", results])
    expected = json.loads(results.read_text())
    for target in ("keras", "loop"):
        migrated = migrate_file(MIRRORED_PROGRAM, tmp_path / target / "migrated", target)
        model_dir, got = estimator_start(estimator_dir, tmp_path / target / "model"), tmp_path / target / "r.json"
        run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--results", got])
        assert_tf1_variables_match(model_dir, estimator_dir / "model.ckpt-40", estimator_dir / "model.ckpt-0", 40,
                                   ("hidden/kernel", "logits/kernel"), target)
        got = json.loads(got.read_text())
        assert got["metrics"] == pytest.approx(expected["metrics"], rel=1e-5), target
        assert got["classes"] == expected["classes"], target
