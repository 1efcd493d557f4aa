"""A tf-slim fine-tuning model_fn kept as written (tier 2): its Scaffold's init_fn (slim's assign_from_checkpoint_fn
over get_variables_to_restore) fills the pretrained variables when no checkpoint exists, as Estimator ran it, and
`v.op.name` names the model_fn's variables by their TF1 names (a variable made eagerly has no op: the program
stopped at slim's `{var.op.name: var}` and at `tf.summary.histogram(v.op.name, v)`).
tests/legacy/slim_finetune_program.py (TF 1.x code) trained from scratch under the real Estimator and, migrated
for both targets, from the same pretrained checkpoint: every variable equal within 1e-5 (the new head starts at
zero, so nothing random is left), and the histogram summaries under the same tags."""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import MODERN_PYTHON, ROOT, migrate_file, run, wrapped_reference

PROGRAM = ROOT / "tests" / "legacy" / "slim_finetune_program.py"
STEPS = 10
TAGS = {"backbone/fc1/weights", "backbone/fc1/biases", "logits/weights", "logits/biases"}


def histogram_tags(model_dir) -> set:
    tags = set()
    for path in model_dir.glob("events.out.tfevents.*"):
        for event in tf.compat.v1.train.summary_iterator(str(path)):
            tags |= {value.tag for value in event.summary.value if value.HasField("histo")}
    return tags


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.parametrize("target", ["keras"])  # one target: tests/conftest.py, "Targets"
def test_a_slim_fine_tuning_starts_from_the_pretrained_weights_and_trains_as_the_estimator(target, legacy_python,
                                                                                          tmp_path):
    pretrained = tmp_path / "pretrained" / "model"
    estimator_dir = wrapped_reference(legacy_python, PROGRAM, tmp_path / "estimator", STEPS, "--pretrained",
                                      pretrained, as_tf1=True)
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    model_dir, results = tmp_path / "model", tmp_path / "results.json"
    run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--max_steps", STEPS, "--results", results,
         "--pretrained", pretrained])
    expected, got = (json.loads(path.read_text()) for path in (estimator_dir / "results.json", results))
    assert set(got) == set(expected) == TAGS
    for name, value in expected.items():
        np.testing.assert_allclose(got[name], value, atol=1e-5, err_msg=name)
    assert not np.allclose(expected["backbone/fc1/weights"], np.linspace(-0.5, 0.5, 24).reshape(4, 6))  # trained
    # (TF1 made each summary's name unique against the variable's own op: `<name>_1`, the Estimator's tags too)
    assert histogram_tags(model_dir) == histogram_tags(estimator_dir) == {f"{name}_1" for name in TAGS}
