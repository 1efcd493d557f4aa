"""tf.estimator.experimental.InMemoryEvaluatorHook -> compat.estimator_training.InMemoryEvaluator, against the real
Estimator: tests/legacy/in_memory_evaluator_program.py trains a LinearClassifier to 30 under TensorFlow 2.15 with the
hook evaluating every 10 steps. Migrated for each target and started on the Estimator's model.ckpt-0, the program
evaluates at the same steps (when training starts, every 10 steps, and again when it ends: 0, 10, 20, 30, 30) with
the same metrics, written to model_dir/eval, and ends with the Estimator's model.ckpt-30."""

from __future__ import annotations

import pytest
import tensorflow as tf

from tests.conftest import ROOT, assert_matches_estimator_checkpoint, run, run_migrated_from_estimator_start

pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("in_memory_evaluator")]
PROGRAM = ROOT / "tests" / "legacy" / "in_memory_evaluator_program.py"
EVALUATED_AT = [0, 10, 20, 30, 30]


def evaluations(eval_dir) -> list[tuple[int, dict[str, float]]]:
    """Each evaluation written to `eval_dir`, in the order written: (step, {metric: value}); Estimator writes an
    evaluation's metrics in one event (simple values), the migrated code one event per metric (TF2 scalars)."""
    events = []
    for path in eval_dir.glob("events.out.tfevents.*"):
        for event in tf.compat.v1.train.summary_iterator(str(path)):
            for value in event.summary.value:
                number = value.simple_value if value.HasField("simple_value") else float(tf.make_ndarray(value.tensor))
                events.append((event.wall_time, event.step, value.tag, number))
    found: list[tuple[int, dict[str, float]]] = []
    for _, step, tag, number in sorted(events, key=lambda event: event[0]):
        if not found or found[-1][0] != step or tag in found[-1][1]:
            found.append((step, {}))
        found[-1][1][tag] = number
    return found


@pytest.fixture(scope="module")
def estimator_dir(legacy_python, tmp_path_factory):
    model_dir = tmp_path_factory.mktemp("estimator") / "model"
    run([legacy_python, PROGRAM, "--model_dir", model_dir])
    assert [step for step, _ in evaluations(model_dir / "eval")] == EVALUATED_AT
    return model_dir


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_in_memory_evaluations_are_the_estimators(estimator_dir, target, tmp_path):
    migrated, model_dir = run_migrated_from_estimator_start(PROGRAM, estimator_dir, target, tmp_path)
    assert "estimator_training.InMemoryEvaluator(classifier, " in migrated.read_text()
    expected, got = evaluations(estimator_dir / "eval"), evaluations(model_dir / "eval")
    assert [step for step, _ in got] == EVALUATED_AT
    for (_, want), (_, have) in zip(expected, got, strict=True):
        assert {"accuracy", "loss", "average_loss"} <= set(have)
        for name in ("accuracy", "loss", "average_loss"):
            assert have[name] == pytest.approx(want[name], rel=1e-4), name
    assert_matches_estimator_checkpoint(model_dir, estimator_dir, 30)
