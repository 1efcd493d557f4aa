"""A project's own `class DigitsClassifier(tf.estimator.Estimator)` (its constructor hands Estimator's a model_fn
and settings) against the real Estimator: tests/legacy/estimator_subclass_program.py trains 20 steps under
TensorFlow 2.15; rewritten for each target (the class then derives from compat.wrapped_model_fns.Estimator,
the constructor and the model_fn as written), it is started on a directory holding only the Estimator's
model.ckpt-0 and continues by itself. After 20 steps every variable equals the Estimator's model.ckpt-20 within
1e-5, evaluate() and predict() return the Estimator's results, and the instance reports the same `params`
and `model_dir`. Also: the Estimator attributes a subclass may not define are TF 2.15's own."""

from __future__ import annotations

import json

import pytest

from codemods.project.facts import ESTIMATOR_ATTRIBUTES
from tests.conftest import (
    ROOT,
    assert_wrapped_run_matches_estimator,
    run,
    run_wrapped_from_estimator_start,
    wrapped_reference,
)

pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("estimator_subclass")]
PROGRAM = ROOT / "tests" / "legacy" / "estimator_subclass_program.py"
STEPS = 20


@pytest.fixture(scope="module")
def estimator_dir(legacy_python, tmp_path_factory):
    return wrapped_reference(legacy_python, PROGRAM, tmp_path_factory.mktemp("estimator") / "model", STEPS)


@pytest.mark.parametrize("target", ["keras"])  # one target: tests/conftest.py, "Targets"
def test_the_subclass_continues_the_estimator_checkpoint_step_for_step(estimator_dir, target, tmp_path):
    source, model_dir, results = run_wrapped_from_estimator_start(PROGRAM, estimator_dir, target, tmp_path, STEPS)
    assert "tf.estimator" not in source and "class DigitsClassifier(wrapped_model_fns.Estimator):" in source
    assert_wrapped_run_matches_estimator(model_dir, estimator_dir, STEPS, ("hidden0/w", "hidden1/w", "logits/kernel"),
                                         results, {"accuracy", "loss", "global_step"})
    expected, got = (json.loads(path.read_text()) for path in (estimator_dir / "results.json", results))
    assert got["params"] == expected["params"] == {"hidden_units": [32, 16], "learning_rate": 0.1}
    assert (got["model_dir"], expected["model_dir"]) == (str(model_dir), str(estimator_dir))


def test_the_attributes_a_subclass_may_not_define_are_the_estimators(legacy_python):
    names = run([legacy_python, "-c", "import tensorflow as tf; print(sorted(set(dir(tf.estimator.Estimator)) "
                 "- set(dir(object)) - {'__dict__', '__module__', '__weakref__'}))"]).stdout.strip().splitlines()[-1]
    assert sorted(ESTIMATOR_ATTRIBUTES) == eval(names)  # noqa: S307  (a list literal printed by the legacy env)
