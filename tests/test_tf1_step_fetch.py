"""Hooks of a TensorFlow 1.x program fetching the global step with the step, run as they are with its wrapped
model_fn (compat.wrapped_hooks, `WrappedModelFn(..., written_for_tf1=True)`): TensorFlow 1.x gave them the step
after the step (a ref variable's buffer, which the step's increment had updated before the session returned it),
where a read unordered with the step gives the step before it. tests/legacy/tf1_step_fetch_program.py under the real
Estimator as 1.x ran it, and migrated for both targets from its model.ckpt-0: its own hook sees the same step (by
object and by name) and loss at every step, and its LoggingTensorHook logs the same lines."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import ROOT, run_wrapped_from_estimator_start, wrapped_reference

PROGRAM = ROOT / "tests" / "legacy" / "tf1_step_fetch_program.py"
STEPS = 10
TIMING = re.compile(r" \(\d+\.\d+ sec\)$")


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.parametrize("target", ["keras", "loop"])
def test_hooks_fetch_the_step_after_the_step_as_tensorflow_1(target, legacy_python, tmp_path):
    estimator_dir = wrapped_reference(legacy_python, PROGRAM, tmp_path / "estimator", STEPS, as_tf1=True)
    migrated, _, results = run_wrapped_from_estimator_start(PROGRAM, estimator_dir, target, tmp_path / "run", STEPS)
    assert "WrappedModelFn(model_fn, written_for_tf1=True)" in migrated
    expected, got = (json.loads(path.read_text()) for path in (estimator_dir / "results.json", results))
    assert [seen[:2] for seen in expected["seen"]] == [[step, step] for step in range(1, STEPS + 1)]
    assert [seen[:2] for seen in got["seen"]] == [seen[:2] for seen in expected["seen"]]
    assert [seen[2] for seen in got["seen"]] == pytest.approx([seen[2] for seen in expected["seen"]], rel=1e-6)
    expected_lines, got_lines = ([TIMING.sub("", line) for line in found["logged"]] for found in (expected, got))
    # (the Estimator's own logging hook printed its first line too, in the same words: "loss = ..., step = 1")
    assert expected_lines[0] == expected_lines[1]
    assert [line.split("step = ")[1] for line in got_lines] == ["1", "4", "7", "10"]
    assert got_lines == expected_lines[1:]
