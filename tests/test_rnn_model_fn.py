"""Tier 2 on a recurrent model_fn (embedding lookup, LSTMCell under dynamic_rnn over variable-length sequences,
a histogram summary, RMSProp at a piecewise-constant rate, streaming AUC) against the real Estimator:
tests/legacy/rnn_model_fn_program.py trains 20 steps under TensorFlow 2.15; rewritten for each target, it is started
on a directory holding only the Estimator's model.ckpt-0 and continues by itself. After 20 steps on the same batches
every variable (the embeddings, the LSTM's kernel and bias, RMSProp's slots, the global step) equals the Estimator's
model.ckpt-20 within 1e-5, and evaluate() and predict() return the Estimator's results."""

from __future__ import annotations

import pytest

from tests.conftest import (
    ROOT,
    assert_wrapped_run_matches_estimator,
    respelled,
    run_wrapped_from_estimator_start,
    wrapped_reference,
)

pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("rnn_model_fn")]
PROGRAM = ROOT / "tests" / "legacy" / "rnn_model_fn_program.py"
STEPS = 20


@pytest.fixture(scope="module")
def estimator_dir(legacy_python, tmp_path_factory):
    return wrapped_reference(legacy_python, PROGRAM, tmp_path_factory.mktemp("estimator") / "model", STEPS)


@pytest.mark.parametrize("target", ["keras"])  # one target: tests/conftest.py, "Targets"
def test_a_recurrent_model_fn_continues_the_estimator_checkpoint_step_for_step(estimator_dir, target, tmp_path):
    source, model_dir, results = run_wrapped_from_estimator_start(PROGRAM, estimator_dir, target, tmp_path, STEPS)
    assert "tf.estimator" not in source and "wrapped_model_fns.WrappedModelFn(model_fn" in source
    assert "tf.compat.v1.nn.dynamic_rnn(cell, embedded" in source  # the model_fn as written
    assert_wrapped_run_matches_estimator(
        model_dir, estimator_dir, STEPS, ("embeddings", "rnn/lstm_cell/kernel", "rnn/lstm_cell/kernel/RMSProp"),
        results, {"accuracy", "auc", "loss", "global_step"},
    )


@pytest.mark.parametrize("target", ["loop"])  # one target: tests/conftest.py, "Targets"
def test_the_program_spelled_with_tf_contrib_rnn_migrates_step_for_step(estimator_dir, target, tmp_path):
    """TF 1.x code named the cell tf.contrib.rnn.LSTMCell (1.15 re-exported the core cell there; TensorFlow 2.15 has no
    tf.contrib to run that spelling): rewritten to tf.compat.v1.nn.rnn_cell's, it ends at the same model.ckpt-20."""
    program = respelled(PROGRAM, {"tf.compat.v1.nn.rnn_cell.LSTMCell(": "tf.contrib.rnn.LSTMCell("},
                        tmp_path / "contrib_rnn_program.py")
    source, model_dir, results = run_wrapped_from_estimator_start(program, estimator_dir, target, tmp_path, STEPS)
    assert "contrib" not in source and "tf.compat.v1.nn.rnn_cell.LSTMCell(" in source
    assert_wrapped_run_matches_estimator(
        model_dir, estimator_dir, STEPS, ("embeddings", "rnn/lstm_cell/kernel", "rnn/lstm_cell/kernel/RMSProp"),
        results, {"accuracy", "auc", "loss", "global_step"},
    )
