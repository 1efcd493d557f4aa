"""`compat.load_legacy_checkpoint` on a real custom-model_fn Estimator checkpoint (tf.compat.v1.layers, Adam).

The Keras model names its layers differently; a regex name map bridges them. Loaded weights give the
Estimator's predict() logits, and one step with the loaded Adam state gives the Estimator's next step.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
import tf_keras

from estimator_migrate.compat import load_legacy_checkpoint
from estimator_migrate.compat.legacy_checkpoint import CheckpointError, LegacyCheckpoint
from tests.legacy.make_canned_checkpoints import CUSTOM_CASE

pytestmark = pytest.mark.legacy
NAME_MAP = [(r"^hidden/", "first/"), (r"^logits/", "scores/")]


def make_model():
    inputs = tf_keras.Input(shape=(4,))
    hidden = tf_keras.layers.Dense(6, activation="relu", name="first")(inputs)
    return tf_keras.Model(inputs, tf_keras.layers.Dense(3, name="scores")(hidden))


@pytest.fixture
def case(canned_checkpoints):
    case_dir = canned_checkpoints / CUSTOM_CASE
    batch = np.load(case_dir / "batch.npz")
    return case_dir, batch["feature_x"], batch["labels"], batch["logits"]


def test_custom_model_gets_weights_slots_and_step(case):
    case_dir, features, labels, logits = case
    model = make_model()
    optimizer = tf_keras.optimizers.Adam(0.01, epsilon=1e-8)
    result = load_legacy_checkpoint(case_dir / "before", model, optimizer, name_map=NAME_MAP)
    assert result.global_step == 3 and int(optimizer.iterations) == 3
    assert result.matched == {"hidden/bias": "first/bias", "hidden/kernel": "first/kernel",
                              "logits/bias": "scores/bias", "logits/kernel": "scores/kernel"}
    assert result.slots == 8
    np.testing.assert_allclose(model(features).numpy(), logits, rtol=0, atol=1e-5)

    loss_fn = tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    with tf.GradientTape() as tape:
        loss = loss_fn(labels, model(features))
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    after = LegacyCheckpoint(case_dir / "after")
    for legacy, name in result.matched.items():
        variable = next(v for v in model.variables if v.name == f"{name}:0")
        np.testing.assert_allclose(variable.numpy(), after.read(legacy), rtol=0, atol=1e-5, err_msg=legacy)


def test_partial_loads_are_errors_unless_allowed(case):
    case_dir = case[0]
    with pytest.raises(CheckpointError, match="no model variable for logits/bias, logits/kernel"):
        load_legacy_checkpoint(case_dir / "before", make_model(), name_map=NAME_MAP[:1])
    model = make_model()
    before = model.get_layer("scores").kernel.numpy().copy()
    result = load_legacy_checkpoint(
        case_dir / "before", model, name_map={"hidden/kernel": "first/kernel", "hidden/bias": "first/bias"},
        allow_unmatched=True, allow_missing=True,
    )
    assert result.unmatched_legacy == ["logits/bias", "logits/kernel"]
    assert result.missing_in_checkpoint == ["scores/bias", "scores/kernel"]
    np.testing.assert_array_equal(model.get_layer("scores").kernel.numpy(), before)


def test_shape_and_optimizer_mismatches_are_errors(case):
    case_dir = case[0]
    inputs = tf_keras.Input(shape=(4,))
    wrong = tf_keras.Model(inputs, tf_keras.layers.Dense(3, name="scores")(
        tf_keras.layers.Dense(7, name="first")(inputs)))
    with pytest.raises(CheckpointError, match=r"hidden/bias has shape \(6,\), the model's first/bias has \(7,\)"):
        load_legacy_checkpoint(case_dir / "before", wrong, name_map=NAME_MAP)
    with pytest.raises(CheckpointError, match="optimizer state is Adam's; a SGD cannot continue it"):
        load_legacy_checkpoint(case_dir / "before", make_model(), tf_keras.optimizers.SGD(), name_map=NAME_MAP)
