"""`train_and_evaluate` migrated, against the real thing: tests/legacy/train_and_evaluate_program.py runs under
the Estimator (legacy env) and, rewritten, under both targets from the Estimator's own step 0 (converted).

Same evaluation schedule (after every checkpoint save: steps 5, 10, 15, 20, as the eval summaries in
model_dir/eval show), the same metrics at each of those steps and the same returned metrics, within
METRICS_RTOL; run again once finished, both return no metrics (nothing trained, nothing evaluated).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

from compat.convert import convert_checkpoint
from tests.conftest import MODERN_PYTHON, ROOT, migrate_file, run

pytestmark = [pytest.mark.slow, pytest.mark.legacy]
PROGRAM = ROOT / "tests" / "legacy" / "train_and_evaluate_program.py"
STEPS = 20
METRICS_RTOL = 1e-4  # weights agree within 1e-5 (tests/test_canned_equivalence.py); metrics follow


def evaluations(eval_dir: Path) -> dict[int, dict[str, float]]:
    """The metrics written to model_dir/eval, by step."""
    found: dict[int, dict[str, float]] = {}
    for events in sorted(eval_dir.glob("events.out.tfevents.*")):
        for event in tf.compat.v1.train.summary_iterator(str(events)):
            for value in event.summary.value:
                number = value.simple_value if value.HasField("simple_value") else tf.make_ndarray(value.tensor)
                if not isinstance(number, bytes | np.ndarray) or number.dtype.kind == "f":  # not the ckpt path
                    found.setdefault(event.step, {})[value.tag] = float(number)
    return found


def train_and_evaluate(python, program: Path, model_dir: Path, metrics_out: Path) -> dict | None:
    run([python, program, "--model_dir", model_dir, "--max_steps", STEPS, "--metrics_out", metrics_out])
    return json.loads(metrics_out.read_text())


def assert_metrics_close(actual: dict, expected: dict, where: str) -> None:
    assert sorted(actual) == sorted(expected), where
    for key, value in expected.items():
        assert actual[key] == pytest.approx(value, rel=METRICS_RTOL, abs=1e-6), f"{where}: {key}"


@pytest.fixture(scope="module")
def estimator_run(legacy_python, tmp_path_factory):
    work = tmp_path_factory.mktemp("estimator")
    metrics = train_and_evaluate(legacy_python, PROGRAM, work / "model", work / "metrics.json")
    again = train_and_evaluate(legacy_python, PROGRAM, work / "model", work / "again.json")
    return work / "model", metrics, again


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_train_and_evaluate_evaluates_as_the_estimator(target, estimator_run, tmp_path):
    estimator_dir, estimator_metrics, estimator_again = estimator_run
    model_dir = tmp_path / "model"
    convert_checkpoint(estimator_dir / "model.ckpt-0", out=model_dir)
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    assert "train_and_evaluate(" not in migrated.read_text()

    metrics = train_and_evaluate(MODERN_PYTHON, migrated, model_dir, tmp_path / "metrics.json")
    assert estimator_metrics["global_step"] == metrics["global_step"] == STEPS
    assert_metrics_close(metrics, estimator_metrics, "returned metrics")

    expected, actual = evaluations(estimator_dir / "eval"), evaluations(model_dir / "eval")
    assert sorted(expected) == [5, 10, 15, 20]
    assert sorted(actual) == sorted(expected)
    for step, values in expected.items():
        assert len(values) >= 10  # every head metric, not only the loss
        assert_metrics_close(actual[step], values, f"eval summaries at step {step}")

    assert estimator_again is None  # finished: Estimator trains nothing and evaluates nothing
    assert train_and_evaluate(MODERN_PYTHON, migrated, model_dir, tmp_path / "again.json") is None
