"""tf.contrib.losses (TensorFlow 1.x's first losses, logits first) -> tf_slim.losses, the same code
(codemods/contrib_moves.py). tests/legacy/contrib_losses_program.py (TF 1.x code: two contrib losses and
get_total_loss with an l2 penalty) under the real Estimator (TF 2.15, the program respelled with tf_slim, as
TensorFlow 2.15 has no tf.contrib) and migrated for both targets from its model.ckpt-0: every variable within
1e-5 after 10 steps, the same evaluation. It was kept with a TODO, the program stopping at tf.contrib."""

from __future__ import annotations

import json

import pytest

from tests.conftest import (
    ROOT,
    assert_tf1_variables_match,
    respelled,
    run_wrapped_from_estimator_start,
    wrapped_reference,
)

PROGRAM = ROOT / "tests" / "legacy" / "contrib_losses_program.py"
STEPS = 10
AS_TF_SLIM = {"import tensorflow as tf\n": "import tensorflow as tf\nimport tf_slim\n",
              "tf.contrib.losses.": "tf_slim.losses.", "tf.contrib.layers.l2_regularizer": "tf_slim.l2_regularizer"}


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.parametrize("target", ["loop"])  # one target: tests/conftest.py, "Targets"
def test_contrib_losses_train_and_evaluate_as_the_estimator(target, legacy_python, tmp_path):
    reference = respelled(PROGRAM, AS_TF_SLIM, tmp_path / "as_tf_slim.py")
    estimator_dir = wrapped_reference(legacy_python, reference, tmp_path / "estimator", STEPS, as_tf1=True)
    migrated, model_dir, results = run_wrapped_from_estimator_start(PROGRAM, estimator_dir, target, tmp_path / "run",
                                                                    STEPS)
    assert "tf_slim.losses.softmax_cross_entropy(logits" in migrated and "contrib" not in migrated
    assert_tf1_variables_match(model_dir, estimator_dir / f"model.ckpt-{STEPS}", estimator_dir / "model.ckpt-0", STEPS,
                               ("hidden/kernel", "logits/kernel"))
    expected, got = (json.loads(path.read_text()) for path in (estimator_dir / "results.json", results))
    assert got["metrics"] == pytest.approx(expected["metrics"], rel=1e-5)
