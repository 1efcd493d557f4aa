"""Canned estimators beyond DNNClassifier, end to end: the real Estimator (legacy env) against the programs
`migrate rewrite` makes of it. From the Estimator's own step 0 (converted by `convert-checkpoint`) and the
same unshuffled batches, 20 migrated steps give the Estimator's `model.ckpt-20` within 1e-5, and the migrated
`evaluate` (compat.estimator_evaluation) and `predict` (compat.estimator_prediction) then give the Estimator's metrics and
predictions, key for key (predictions: dtypes too). Programs that export (`export=` in canned_programs) serve
the same examples through SavedModels with the Estimator's signatures: same names, inputs and outputs.

Programs with categorical, bucketized, indicator and embedding columns (`CATEGORICAL`) start on a model_dir
holding the Estimator's model.ckpt-0, which the migrated program carries over by itself (compat.resume,
compat.canned_checkpoint); the final checkpoint is read back into the model the migrated program builds (its
`model = canned.<builder>(...)` statement, evaluated here with the program's feature columns); that model's
`canned.inference_model`, saved and loaded where only tf_keras is, gives the Estimator's predict() logits.

Each program runs migrated for one target (TARGETS): the two targets share the model, its loss and its
optimizer (compat.canned) and differ in the driver around them, so the programs are split between the targets
so that every head, family, optimizer, weight column, label vocabulary, loss reduction and batch normalization
meets both; a program alone in what it varies (a decay function, positional arguments) runs on one, as tests do
whose subject the targets share (tests/conftest.py, "Targets")."""

from __future__ import annotations

import ast
import json
import textwrap

import numpy as np
import pytest

from estimator_migrate.compat.convert import convert_checkpoint
from tests.conftest import (
    MODERN_PYTHON,
    assert_canned_model_holds_estimator_weights,
    assert_matches_estimator_checkpoint,
    estimator_start,
    migrate_file,
    plain_keras_logits,
    run,
)
from tests.legacy.canned_programs import (
    BASELINE,
    CATEGORICAL,
    CATEGORICAL_COLUMNS,
    PROGRAMS,
    categorical_features,
)

pytestmark = [pytest.mark.slow, pytest.mark.legacy]
STEPS = 20
# Weights agree within 1e-5; metrics computed from them agree to this relative tolerance. AUCs count
# examples per threshold bucket: one example crossing a bucket edge moves them by about 1e-5.
METRICS_RTOL = 1e-4


class _EstimatorRuns:
    """Each program written out and run by the real Estimator when a test first asks for it: its source,
    model_dir, metrics and predictions."""

    def __init__(self, legacy_python, tmp_path_factory):
        self.legacy_python, self.tmp_path_factory, self.runs = legacy_python, tmp_path_factory, {}

    def __getitem__(self, name: str):
        if name not in self.runs:
            work = self.tmp_path_factory.mktemp(name)
            program = work / f"{name}.py"
            program.write_text({**PROGRAMS, **CATEGORICAL, **BASELINE}[name])
            metrics = work / "metrics.json"
            run([self.legacy_python, program, "--model_dir", work / "estimator", "--max_steps", STEPS,
                 "--metrics_out", metrics])
            self.runs[name] = (program, work / "estimator", json.loads(metrics.read_text()))
        return self.runs[name]


@pytest.fixture(scope="module")
def estimator_runs(legacy_python, tmp_path_factory):
    return _EstimatorRuns(legacy_python, tmp_path_factory)


# The target each program is migrated for. Pairs that vary one thing go one to each target.
TARGETS = {
    "dnn_classifier_batch_norm": ["keras"], "dnn_regressor_batch_norm_v2": ["loop"],
    "dnn_classifier_weighted": ["keras"], "dnn_classifier_binary_weighted": ["loop"],
    "linear_classifier_binary_weighted_v2": ["keras"], "dnn_regressor_weighted_v2": ["loop"],
    "dnn_classifier_label_vocabulary": ["keras"], "linear_classifier_binary_label_vocabulary_v2": ["loop"],
    "linear_classifier_binary_sum_v2": ["keras"], "dnn_regressor_sum_v2": ["loop"], "dnn_regressor_mean_v1": ["keras"],
    "linear_classifier_binary_v2": ["keras"], "dnn_classifier_binary": ["loop"],
    "linear_classifier_ftrl": ["keras"], "linear_classifier_ftrl_by_name": ["loop"],
    "dnn_classifier_rmsprop_by_name": ["keras"], "linear_regressor_rmsprop_centered": ["loop"],
    # DNNClassifier's default optimizer is Adagrad
    "dnn_classifier_adagrad_by_name": ["keras"], "dnn_classifier_default_optimizer_v2": ["loop"],
    "linear_regressor_nesterov": ["keras"], "dnn_classifier_keras_sgd_nesterov_v2": ["loop"],
    # the v1 momentum program's keras target: test_tf_estimator_given_a_tf1_optimizer_...
    "dnn_regressor_keras_sgd_momentum_v2": ["keras"], "dnn_regressor_momentum": ["loop"],
    "dnn_classifier_optimizer_function_decay_v2": ["loop"],
    "dnn_linear_combined_classifier_ftrl_adam": ["keras"],
    # categorical columns: embeddings, a linear model's sparse weights, both in the combined regressor
    "dnn_classifier_embedding_v2": ["keras"], "dnn_classifier_embedding_rmsprop_v2": ["loop"],
    "linear_classifier_categorical": ["keras"], "dnn_linear_combined_regressor_categorical": ["loop"],
    "dnn_classifier_adadelta": ["keras"], "dnn_linear_combined_classifier_adadelta_v2": ["loop"],
    # baselines: one bias per output
    "baseline_classifier_v2": ["keras"], "baseline_classifier_binary_label_vocabulary_weighted": ["loop"],
    "baseline_regressor_by_position": ["keras"],
}


def _programs(names):
    """(name, target) for each program and its targets, each program's tests on one xdist worker
    (`--dist loadgroup`): its Estimator runs once."""
    return [pytest.param(name, target, marks=pytest.mark.xdist_group(f"canned-{name}"), id=f"{name}-{target}")
            for name in sorted(names) for target in TARGETS[name]]


def test_every_program_has_its_targets_and_each_target_meets_every_family_and_head():
    assert sorted(TARGETS) == sorted({**PROGRAMS, **CATEGORICAL, **BASELINE})
    for target in ("keras", "loop"):
        programs = [name for name, targets in TARGETS.items() if target in targets]
        for part in ("dnn_classifier", "dnn_regressor", "linear_classifier", "linear_regressor", "dnn_linear_combined",
                     "weighted", "label_vocabulary", "sum", "batch_norm", "ftrl", "rmsprop", "nesterov", "momentum",
                     "embedding", "categorical", "binary", "baseline"):
            assert any(part in name for name in programs), (target, part)


@pytest.mark.parametrize(("name", "target"), _programs(PROGRAMS))
def test_migrated_canned_estimator_takes_the_estimators_steps(name, target, estimator_runs, tmp_path):
    program, estimator_dir, estimator_outputs = estimator_runs[name]
    model_dir = tmp_path / "model"
    convert_checkpoint(estimator_dir / "model.ckpt-0", out=model_dir)
    migrated = migrate_file(program, tmp_path / "migrated", target)
    metrics_out = tmp_path / "metrics.json"
    run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--max_steps", STEPS, "--metrics_out", metrics_out])

    assert_matches_estimator_checkpoint(model_dir, estimator_dir, STEPS)
    _assert_same_outputs(json.loads(metrics_out.read_text()), estimator_outputs)


@pytest.mark.xdist_group("canned-dnn_regressor_momentum")  # the Estimator run of that program, shared
def test_tf_estimator_given_a_tf1_optimizer_migrates_as_the_v1_estimator_it_was(estimator_runs, tmp_path):
    """TensorFlow 1.14/1.15 users wrote `tf.estimator.DNNRegressor(optimizer=tf.compat.v1.train.MomentumOptimizer(
    ...))`: that was the v1 estimator (its head sums the loss over the batch), which TF 2.15 spells
    `tf.compat.v1.estimator.DNNRegressor` (TF 2's `tf.estimator` class refuses a TF1 optimizer). Migrated from
    the 1.x spelling, the program takes the steps of the v1 Estimator's run."""
    program, estimator_dir, estimator_outputs = estimator_runs["dnn_regressor_momentum"]
    written_for_tf115 = tmp_path / "tf115_program.py"
    source = program.read_text()
    assert "tf1.estimator.DNNRegressor(" in source and "tf1.train.MomentumOptimizer(" in source
    written_for_tf115.write_text(source.replace("tf1.estimator.DNNRegressor(", "tf.estimator.DNNRegressor("))
    model_dir = tmp_path / "model"
    convert_checkpoint(estimator_dir / "model.ckpt-0", out=model_dir)
    migrated = migrate_file(written_for_tf115, tmp_path / "migrated", "keras")
    assert 'loss_reduction="sum"' in migrated.read_text()
    metrics_out = tmp_path / "metrics.json"
    run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--max_steps", STEPS, "--metrics_out", metrics_out])

    assert_matches_estimator_checkpoint(model_dir, estimator_dir, STEPS)
    _assert_same_outputs(json.loads(metrics_out.read_text()), estimator_outputs)


@pytest.mark.parametrize(("name", "target"), _programs(CATEGORICAL))
def test_migrated_categorical_canned_estimator_takes_the_estimators_steps(name, target, estimator_runs, tmp_path):
    program, estimator_dir, estimator_outputs = estimator_runs[name]
    migrated, model_dir, outputs = _run_from_estimator_start(program, estimator_dir, target, tmp_path)

    final = _migrated_programs_model(migrated)
    assert_canned_model_holds_estimator_weights(final, model_dir, estimator_dir, STEPS)
    _assert_same_outputs(outputs, estimator_outputs)
    _assert_plain_model_gives_estimator_logits(final, estimator_outputs, tmp_path)


@pytest.mark.parametrize(("name", "target"), _programs(BASELINE))
def test_migrated_baseline_estimator_takes_the_estimators_steps(name, target, estimator_runs, tmp_path):
    """BaselineClassifier/BaselineRegressor -> compat.canned.baseline_classifier/regressor: from the Estimator's
    model.ckpt-0 (carried over by the migrated program), its bias and outputs after 20 steps."""
    program, estimator_dir, estimator_outputs = estimator_runs[name]
    migrated, model_dir, outputs = _run_from_estimator_start(program, estimator_dir, target, tmp_path)
    assert "canned.baseline_" in migrated.read_text() and "Baseline" not in migrated.read_text()

    final = _migrated_programs_model(migrated)
    assert_canned_model_holds_estimator_weights(final, model_dir, estimator_dir, STEPS, weights=1)
    _assert_same_outputs(outputs, estimator_outputs)


def _run_from_estimator_start(program, estimator_dir, target, work):
    """`program` migrated for `target` and run on a model_dir holding only the Estimator's model.ckpt-0, which it
    carries over by itself: (the migrated program, its model_dir, its metrics and predictions)."""
    migrated = migrate_file(program, work / "migrated", target)
    model_dir = estimator_start(estimator_dir, work / "model")
    metrics_out = work / "metrics.json"
    completed = run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--max_steps", STEPS,
                     "--metrics_out", metrics_out])
    assert f"Continuing the Estimator's checkpoint {model_dir / 'model.ckpt-0'} at step 1" in completed.stderr
    return migrated, model_dir, json.loads(metrics_out.read_text())


def _assert_plain_model_gives_estimator_logits(model, estimator_outputs, work):
    """`inference_model(model).save(...)`, loaded where only tf_keras is, gives the Estimator's predict()
    logits for the same examples (a regressor's logits are its predictions)."""
    from estimator_migrate.compat import canned

    canned.inference_model(model).save(work / "model.keras")
    examples = {name: values[:100] for name, values in categorical_features().items()}
    (logits,) = plain_keras_logits([(work / "model.keras", examples)], work)
    predictions = estimator_outputs["predictions"]
    key = "logits" if "logits" in predictions[0] else "predictions"
    expected = np.array([np.array(example[key][1], float) for example in predictions])
    np.testing.assert_allclose(logits.reshape(expected.shape), expected, rtol=0, atol=1e-5)


def _migrated_programs_model(migrated):
    """The model the migrated program builds: its `model = canned.<builder>(...)`, with its feature columns."""
    import tensorflow as tf
    import tf_keras

    from estimator_migrate.compat import adadelta, canned, rmsprop

    namespace = {"tf": tf, "tf1": tf.compat.v1, "tf_keras": tf_keras, "canned": canned, "rmsprop": rmsprop,
                 "adadelta": adadelta}
    exec(textwrap.dedent(CATEGORICAL_COLUMNS), namespace)
    (call,) = [
        node.value for node in ast.walk(ast.parse(migrated.read_text()))
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
        and ast.unparse(node.value.func).startswith("canned.")
    ]
    return eval(compile(ast.Expression(call), str(migrated), "eval"), namespace)


def _assert_same_outputs(migrated_outputs, estimator_outputs):
    """Evaluation metrics (same keys, values within METRICS_RTOL) and predictions (same keys, dtypes, values)."""
    migrated_metrics = migrated_outputs["metrics"]
    assert sorted(migrated_metrics) == sorted(estimator_outputs["metrics"])
    assert migrated_metrics["global_step"] == estimator_outputs["metrics"]["global_step"] == STEPS
    for key, expected in estimator_outputs["metrics"].items():
        assert migrated_metrics[key] == pytest.approx(expected, rel=METRICS_RTOL, abs=1e-6), key

    assert len(migrated_outputs["predictions"]) == len(estimator_outputs["predictions"]) == 100
    for index, (actual, expected) in enumerate(zip(migrated_outputs["predictions"], estimator_outputs["predictions"])):
        assert sorted(actual) == sorted(expected), index
        for key, (dtype, values) in expected.items():
            assert actual[key][0] == dtype, f"example {index}: {key}"
            if dtype.startswith("float"):
                np.testing.assert_allclose(
                    np.array(actual[key][1], float), np.array(values, float), rtol=METRICS_RTOL, atol=1e-5,
                    err_msg=f"example {index}: {key}",
                )
            else:
                assert actual[key][1] == values, f"example {index}: {key}"
    _assert_same_serving(migrated_outputs["serving"], estimator_outputs["serving"])


def _assert_same_serving(migrated, estimator):
    """The exported SavedModels' signatures: the same names, inputs (name, dtype, shape) and outputs (name,
    dtype, values for the same examples)."""
    assert sorted(migrated) == sorted(estimator)
    for signature, expected in estimator.items():
        assert migrated[signature]["inputs"] == expected["inputs"], signature
        outputs = migrated[signature]["outputs"]
        assert sorted(outputs) == sorted(expected["outputs"]), signature
        for key, (dtype, values) in expected["outputs"].items():
            assert outputs[key][0] == dtype, f"{signature}: {key}"
            if dtype.startswith("float"):
                np.testing.assert_allclose(np.array(outputs[key][1], float), np.array(values, float),
                                           rtol=METRICS_RTOL, atol=1e-5, err_msg=f"{signature}: {key}")
            else:
                assert outputs[key][1] == values, f"{signature}: {key}"


# Programs that switched TensorFlow 2 off first (`tf.compat.v1.disable_v2_behavior()`: the migration guide's first
# step, tf_upgrade_v2's output), run by the real Estimator under that switch. Migrated, the switch becomes
# `disable_v2_tensorshape()` (TF1's TensorShape, which the program's own code may read) and the canned model runs
# under it: one categorical program (sparse linear weights, an embedding) and one combined, each on one target.
TF1_BEHAVIOR = {"dnn_linear_combined_classifier_ftrl_adam": "keras", "dnn_classifier_embedding_rmsprop_v2": "loop"}


@pytest.mark.parametrize(("name", "target"), list(TF1_BEHAVIOR.items()))
def test_canned_estimator_under_tf1_behavior_takes_the_estimators_steps(name, target, legacy_python, tmp_path):
    source = {**PROGRAMS, **CATEGORICAL}[name]
    assert "tf1 = tf.compat.v1\n" in source and "export_saved_model" not in source  # (serve() needs eager)
    program = tmp_path / f"{name}.py"
    program.write_text(source.replace("tf1 = tf.compat.v1\n", "tf1 = tf.compat.v1\ntf1.disable_v2_behavior()\n"))
    estimator_dir, estimator_metrics = tmp_path / "estimator", tmp_path / "estimator.json"
    run([legacy_python, program, "--model_dir", estimator_dir, "--max_steps", STEPS, "--metrics_out", estimator_metrics])
    estimator_outputs = json.loads(estimator_metrics.read_text())
    migrated = migrate_file(program, tmp_path / "migrated", target)
    assert "tf1.disable_v2_tensorshape()" in migrated.read_text() and "disable_v2_behavior" not in migrated.read_text()
    metrics_out = tmp_path / "metrics.json"
    if name in CATEGORICAL:
        model_dir = estimator_start(estimator_dir, tmp_path / "model")
        run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--max_steps", STEPS, "--metrics_out", metrics_out])
        assert_canned_model_holds_estimator_weights(_migrated_programs_model(migrated), model_dir, estimator_dir, STEPS)
    else:
        model_dir = tmp_path / "model"
        convert_checkpoint(estimator_dir / "model.ckpt-0", out=model_dir)
        run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--max_steps", STEPS, "--metrics_out", metrics_out])
        assert_matches_estimator_checkpoint(model_dir, estimator_dir, STEPS)
    _assert_same_outputs(json.loads(metrics_out.read_text()), estimator_outputs)
