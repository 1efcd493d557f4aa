"""Tier 2 on a model_fn written with tf_slim (TF-Slim model zoo style) against the real Estimator:
tests/legacy/slim_model_fn_program.py trains 20 steps under TensorFlow 2.15; rewritten for each target, it is
started on a directory holding only the Estimator's model.ckpt-0 and continues by itself. After 20 steps on the
same batches every variable (slim's weights and biases, the batch norm's statistics, Momentum's slots, the
global step) equals the Estimator's model.ckpt-20 within 1e-5, and evaluate() and predict() return the
Estimator's results. tf_slim runs unchanged in both environments (the model_fn stays as written)."""

from __future__ import annotations

import pytest

from tests.conftest import (
    ROOT,
    assert_wrapped_run_matches_estimator,
    respelled,
    run,
    run_wrapped_from_estimator_start,
    wrapped_reference,
)

pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("slim_model_fn")]
PROGRAM = ROOT / "tests" / "legacy" / "slim_model_fn_program.py"
STEPS = 20


@pytest.fixture(scope="module")
def estimator_dir(legacy_python, tmp_path_factory):
    return wrapped_reference(legacy_python, PROGRAM, tmp_path_factory.mktemp("estimator") / "model", STEPS)


@pytest.mark.parametrize("target", ["keras"])  # one target: tests/conftest.py, "Targets"
def test_a_slim_model_fn_continues_the_estimator_checkpoint_step_for_step(estimator_dir, target, tmp_path):
    source, model_dir, results = run_wrapped_from_estimator_start(PROGRAM, estimator_dir, target, tmp_path, STEPS)
    assert "tf.estimator" not in source and "wrapped_model_fns.WrappedModelFn(model_fn" in source
    assert "slim.conv2d(" in source and "slim.learning.create_train_op(" in source  # the model_fn as written
    assert_wrapped_run_matches_estimator(
        model_dir, estimator_dir, STEPS, ("conv1/weights", "logits/weights", "fc1/weights/Momentum"),
        results, {"accuracy", "loss", "global_step"},
    )


# The program as TensorFlow 1.x code spelled it, before tf-slim was a package: slim from tf.contrib, its regularizer,
# flatten and arg_scope from tf.contrib.layers / tf.contrib.framework (codemods/rules/contrib_modules.py).
CONTRIB_SPELLINGS = {
    "import tf_slim as slim": "from tensorflow.contrib import slim",
    "slim.arg_scope(": "tf.contrib.framework.arg_scope(",
    "slim.l2_regularizer(": "tf.contrib.layers.l2_regularizer(",
    "slim.flatten(": "tf.contrib.layers.flatten(",
}


@pytest.mark.parametrize("target", ["loop"])  # one target: tests/conftest.py, "Targets"
def test_the_program_spelled_with_tf_contrib_migrates_to_tf_slim_step_for_step(estimator_dir, target, tmp_path):
    """tf.contrib is not in TensorFlow 2.x, so the Estimator reference is the tf_slim program's (the same code):
    the contrib-spelled program, rewritten, continues that reference's model.ckpt-0 and ends at its model.ckpt-20."""
    program = respelled(PROGRAM, CONTRIB_SPELLINGS, tmp_path / "slim_contrib_program.py")
    source, model_dir, results = run_wrapped_from_estimator_start(program, estimator_dir, target, tmp_path, STEPS)
    assert "contrib" not in source and "import tf_slim as slim" in source
    assert "tf_slim.arg_scope(" in source and "tf_slim.l2_regularizer(" in source and "tf_slim.flatten(" in source
    assert_wrapped_run_matches_estimator(
        model_dir, estimator_dir, STEPS, ("conv1/weights", "logits/weights", "fc1/weights/Momentum"),
        results, {"accuracy", "loss", "global_step"},
    )


LAYERS_PROGRAM = ROOT / "tests" / "legacy" / "slim_layers_program.py"
LAYERS_SPELLINGS = {  # tf_slim's spelling -> TF 1.x's (tf.contrib.layers)
    "import tf_slim as slim\n": "",
    "slim.": "tf.contrib.layers.",
}


@pytest.fixture(scope="module")
def layers_estimator_dir(legacy_python, tmp_path_factory):
    """tests/legacy/slim_layers_program.py under the real Estimator (run_with_tf_slim.py: tf-slim 1.1 on TF 2.15)."""
    model_dir = tmp_path_factory.mktemp("layers_estimator") / "model"
    run([legacy_python, ROOT / "tests" / "legacy" / "run_with_tf_slim.py", LAYERS_PROGRAM, "--model_dir", model_dir,
         "--max_steps", STEPS, "--results", model_dir / "results.json"])
    return model_dir


@pytest.mark.parametrize("target", ["keras"])  # one target: tests/conftest.py, "Targets"
def test_tf_contrib_layers_batch_norm_and_optimize_loss_migrate_step_for_step(layers_estimator_dir, target, tmp_path):
    """tf.contrib.layers' fully_connected / batch_norm / layer_norm / dropout and optimize_loss (Adam, a decaying rate,
    clipping, summaries), spelled as TF 1.x code did, rewritten to tf_slim: from the Estimator's model.ckpt-0 (of the
    same code spelled with tf_slim), 20 steps end at its model.ckpt-20 within 1e-5 with its metrics and predictions.
    tf-slim 1.1 needs compat.tf1_programs.keep_tf_slim_working on TensorFlow 2.21 (it was AttributeError: ops.Tensor)."""
    program = respelled(LAYERS_PROGRAM, LAYERS_SPELLINGS, tmp_path / "contrib_layers_program.py")
    source, model_dir, results = run_wrapped_from_estimator_start(program, layers_estimator_dir, target, tmp_path,
                                                                  STEPS)
    assert "contrib" not in source and "tf_slim.optimize_loss(" in source and "tf_slim.batch_norm(" in source
    assert_wrapped_run_matches_estimator(
        model_dir, layers_estimator_dir, STEPS, ("hidden/weights", "hidden_bn/moving_mean", "logits/weights/Adam"),
        results, {"accuracy", "loss", "global_step"},
    )
