"""Evaluation metrics that are not one number (tf.metrics.precision_at_thresholds: an array) stopped the migrated
evaluate where it wrote model_dir/eval (a scalar summary of an array). compat.estimator_evaluation writes each
metric as Estimator's _write_dict_to_summary did: numbers as scalars, arrays as tensor summaries under their name,
serialized Summaries (an image metric's) as their values tagged `<name>/<i>`; and the checkpoint it read, as a string
tagged `checkpoint_path`.

tests/legacy/array_metrics_program.py (batch norm, decay, Momentum, input_layer) under the real Estimator as TF 1.x
ran it, and migrated for both targets from its model.ckpt-0: the same metrics (the array too), the same
probabilities, and model_dir/eval holds the same tags with the same values."""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf

from estimator_migrate.compat.estimator_evaluation import _write_metric
from tests.conftest import ROOT, run_wrapped_from_estimator_start, wrapped_reference

PROGRAM = ROOT / "tests" / "legacy" / "array_metrics_program.py"
STEPS = 12


def _eval_summaries(directory) -> dict:
    """tag -> (step, value as an array) of the event files in `directory`."""
    found = {}
    for path in directory.glob("events.out.tfevents*"):
        for event in tf.compat.v1.train.summary_iterator(str(path)):
            for value in event.summary.value:
                kind = value.WhichOneof("value")
                array = np.asarray(value.simple_value) if kind == "simple_value" else tf.make_ndarray(value.tensor)
                found[value.tag] = (event.step, array.item() if array.dtype == object else array)
    return found


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.parametrize("target", ["keras"])  # one target: tests/conftest.py, "Targets"
def test_array_metrics_evaluate_and_are_written_as_the_estimator_wrote_them(target, legacy_python, tmp_path):
    estimator_dir = wrapped_reference(legacy_python, PROGRAM, tmp_path / "estimator", STEPS, as_tf1=True)
    _, model_dir, results = run_wrapped_from_estimator_start(PROGRAM, estimator_dir, target, tmp_path / "run", STEPS)
    expected, got = (json.loads(path.read_text()) for path in (estimator_dir / "results.json", results))
    assert len(expected["metrics"]["precision_at"]) == 2
    assert got["metrics"].keys() == expected["metrics"].keys()
    for name, value in expected["metrics"].items():
        np.testing.assert_allclose(got["metrics"][name], value, rtol=1e-5, err_msg=name)
    np.testing.assert_allclose(got["probs"], expected["probs"], rtol=0, atol=1e-5)
    written, estimator_written = _eval_summaries(model_dir / "eval"), _eval_summaries(estimator_dir / "eval")
    assert sorted(written) == sorted(estimator_written) == [
        "auc", "checkpoint_path", "loss", "mean_per_class", "precision_at"]
    # the checkpoint read: the Estimator's model.ckpt-12, the migrated training's ckpt-12 (its name for step 12)
    assert estimator_written.pop("checkpoint_path") == (STEPS, str(estimator_dir / f"model.ckpt-{STEPS}").encode())
    assert written.pop("checkpoint_path") == (STEPS, str(model_dir / f"ckpt-{STEPS}").encode())
    for tag, (step, value) in estimator_written.items():
        assert written[tag][0] == step == STEPS
        np.testing.assert_allclose(written[tag][1], value, rtol=1e-5, err_msg=tag)


def test_a_serialized_summary_metric_is_written_as_its_values_and_other_values_are_skipped(tmp_path):
    image = tf.compat.v1.Summary(value=[tf.compat.v1.Summary.Value(tag="x", simple_value=2.0),
                                        tf.compat.v1.Summary.Value(tag="y", simple_value=3.0)])
    with tf.summary.create_file_writer(str(tmp_path)).as_default(), tf.summary.record_if(True):
        _write_metric("pictures", image.SerializeToString(), step=4)
        _write_metric("broken", b"\xff\xff not a summary", step=4)
        _write_metric("nothing", None, step=4)
        _write_metric("words", "text", step=4)
    assert _eval_summaries(tmp_path) == {"pictures/0": (4, 2.0), "pictures/1": (4, 3.0)}
