"""`migrate convert-checkpoint` on real canned-Estimator checkpoints (made in the legacy environment).

For every family x optimizer x head version: the converted `model.keras` gives the logits the Estimator's
`predict()` gave, and one training step from the converted TF2 checkpoint (weights, slots, step) on the
same batch gives the weights of the Estimator's own next step.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf
import tf_keras

from compat.convert import build_model, convert_checkpoint, weight_sources
from compat.legacy_checkpoint import LegacyCheckpoint
from compat.recognise import recognise
from tests.legacy.make_canned_checkpoints import case_names

pytestmark = pytest.mark.legacy
TOLERANCE = 1e-5


def load_batch(case_dir):
    batch = np.load(case_dir / "batch.npz")
    features = {name[len("feature_"):]: batch[name] for name in batch.files if name.startswith("feature_")}
    return features, batch["labels"], batch["logits"]


@pytest.mark.parametrize("case", case_names())
def test_converted_model_gives_estimator_logits_and_next_step(case, canned_checkpoints, tmp_path):
    case_dir = canned_checkpoints / case
    features, labels, estimator_logits = load_batch(case_dir)
    out = tmp_path / "converted"
    conversion, _ = convert_checkpoint(case_dir / "before", out)
    description = json.loads((case_dir / "case.json").read_text())
    assert conversion.estimator.family == description["family"]
    assert conversion.estimator.head == description["head"]
    assert {s.kind for s in conversion.estimator.optimizers.values()} == {description["optimizer"]}

    loaded = tf_keras.models.load_model(out / "model.keras")
    np.testing.assert_allclose(loaded(features).numpy(), estimator_logits, rtol=0, atol=TOLERANCE)

    # A fresh model of the same architecture, restored from the TF2 checkpoint only, trains one step.
    estimator = recognise(LegacyCheckpoint(case_dir / "before"))
    model = build_model(estimator)
    tf.train.Checkpoint(model=model, optimizer=model.optimizer, step=model.optimizer.iterations).restore(
        tf.train.latest_checkpoint(str(out))
    ).assert_existing_objects_matched()
    assert int(model.optimizer.iterations) == description["steps"]
    model.train_on_batch(features, labels)

    after = LegacyCheckpoint(case_dir / "after")
    before = LegacyCheckpoint(case_dir / "before")
    assert after.global_step == description["steps"] + 1
    changed = []
    for variable, names in weight_sources(estimator, model):
        expected = np.concatenate([after.read(name) for name in names], axis=0)
        previous = np.concatenate([before.read(name) for name in names], axis=0)
        changed.append(np.abs(expected - previous).max() > 10 * TOLERANCE)
        np.testing.assert_allclose(variable.numpy(), expected, rtol=0, atol=TOLERANCE, err_msg=str(names))
    assert sum(changed) >= 2, "the Estimator's step barely moved the weights: the comparison would prove nothing"
