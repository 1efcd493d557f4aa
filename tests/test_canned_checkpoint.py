"""compat.canned_checkpoint on real canned-Estimator checkpoints (tests/legacy/make_canned_checkpoints.py).

Loading by names into the program's model must give exactly the state `migrate convert-checkpoint`
gives (which tests/test_convert_checkpoint.py proves against the Estimator's next step), for every family
x optimizer x head; categorical models, which only this path converts, are proven end to end in
tests/test_canned_equivalence.py. Bad input: one error naming the checkpoint, nothing assigned.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from estimator_migrate.compat import canned, canned_checkpoint
from estimator_migrate.compat.convert import load_canned
from estimator_migrate.compat.legacy_checkpoint import CheckpointError, LegacyCheckpoint
from estimator_migrate.compat.optimizer_state import legacy_slots
from estimator_migrate.compat.rebuild import build_model
from estimator_migrate.compat.recognise import recognise
from tests.legacy.make_canned_checkpoints import case_names

pytestmark = pytest.mark.legacy


def _state(model) -> dict[str, np.ndarray]:
    """Every model and optimizer variable (slots, iterations, hyperparameters) by name."""
    state = {f"model:{v.name}": v.numpy() for v in model.variables}
    for part, optimizer in canned.model_optimizers(model).items():
        state.update({f"{part}:{v.name}": v.numpy() for v in optimizer.variables})
    return state


@pytest.mark.parametrize("case", case_names())
def test_load_by_names_equals_the_commands_conversion(case, canned_checkpoints):
    before = canned_checkpoints / case / "before"
    expected = _state(load_canned(before).model)
    model = build_model(recognise(LegacyCheckpoint(before)))
    fresh = _state(model)

    result = canned_checkpoint.load_estimator_checkpoint(model, before)

    actual = _state(model)
    assert sorted(actual) == sorted(expected)
    for name, value in expected.items():
        np.testing.assert_array_equal(actual[name], value, err_msg=name)
    legacy_slot_count = sum(len(slots) for slots in legacy_slots(LegacyCheckpoint(before)).values())
    assert result.global_step == 3 and result.slots == legacy_slot_count
    assert legacy_slot_count > 0 or case.split("_")[-2] == "sgd"
    assert sum(not np.array_equal(fresh[n], actual[n]) for n in actual) >= len(model.trainable_variables)


def test_another_optimizer_is_refused_before_anything_is_assigned(canned_checkpoints):
    before = canned_checkpoints / "dnn_classifier_adam_v1" / "before"
    estimator = recognise(LegacyCheckpoint(before))
    columns = [tf.feature_column.numeric_column(k, shape=s) for k, s in estimator.features["dnn"].items()]
    model = canned.dnn_classifier(columns, estimator.hidden_units, n_classes=estimator.n_classes,
                                  loss_reduction="sum")  # Adagrad, the checkpoint holds Adam's state
    fresh = _state(model)
    with pytest.raises(CheckpointError, match=r"model\.ckpt-3: dnn/.* holds Adam state; the model's dnn part has Adagrad"):
        canned_checkpoint.load_estimator_checkpoint(model, before)
    assert all(np.array_equal(v, _state(model)[n]) for n, v in fresh.items())


def test_another_architecture_is_refused_before_anything_is_assigned(canned_checkpoints):
    before = canned_checkpoints / "dnn_classifier_adam_v1" / "before"
    estimator = recognise(LegacyCheckpoint(before))
    columns = [tf.feature_column.numeric_column(k, shape=s) for k, s in estimator.features["dnn"].items()]
    model = build_model(estimator)
    wider = canned.dnn_classifier(columns, [u + 1 for u in estimator.hidden_units], n_classes=estimator.n_classes,
                                  optimizer=type(model.optimizer)(), loss_reduction="sum")
    fresh = _state(wider)
    with pytest.raises(CheckpointError, match=r"model\.ckpt-3: dnn/hiddenlayer_0/\w+ has shape"):
        canned_checkpoint.load_estimator_checkpoint(wider, before)
    assert all(np.array_equal(v, _state(wider)[n]) for n, v in fresh.items())


def test_convert_writes_a_checkpoint_the_program_restores_and_refuses_to_overwrite(canned_checkpoints, tmp_path):
    before = canned_checkpoints / "linear_regressor_ftrl_v2" / "before"
    estimator = recognise(LegacyCheckpoint(before))
    saved = canned_checkpoint.convert_estimator_checkpoint(build_model(estimator), before, tmp_path)
    assert saved.endswith("ckpt-3")

    restored = build_model(estimator)
    tf.train.Checkpoint(model=restored, optimizer=restored.optimizer).restore(saved).assert_existing_objects_matched()
    expected = _state(load_canned(before).model)
    for name, value in _state(restored).items():
        np.testing.assert_array_equal(value, expected[name], err_msg=name)

    with pytest.raises(FileExistsError, match="already holds a checkpoint"):
        canned_checkpoint.convert_estimator_checkpoint(build_model(estimator), before, tmp_path)


@pytest.mark.parametrize("head,wrong", [("v1", "keras_legacy"), ("v2", "tf1")])
def test_rmsprop_of_the_other_flavour_is_refused(head, wrong, canned_checkpoints):
    """TF1 RMSProp state continues only in the "tf1" EstimatorRMSProp, Keras 2's only in "keras_legacy":
    their updates differ. Both loaders refuse the other flavour before assigning anything."""
    from estimator_migrate.compat.load import load_legacy_checkpoint
    from estimator_migrate.compat.rmsprop import EstimatorRMSProp

    (before,) = (canned_checkpoints / f"dnn_{task}_rmsprop_{head}" / "before" for task in ("classifier", "regressor")
                 if f"dnn_{task}_rmsprop_{head}" in case_names())
    estimator = recognise(LegacyCheckpoint(before))
    columns = [tf.feature_column.numeric_column(k, shape=s) for k, s in estimator.features["dnn"].items()]
    optimizer = EstimatorRMSProp(flavour=wrong)
    if estimator.n_classes:
        model = canned.dnn_classifier(columns, estimator.hidden_units, n_classes=estimator.n_classes,
                                      optimizer=optimizer, loss_reduction="sum")
    else:
        model = canned.dnn_regressor(columns, estimator.hidden_units, label_dimension=estimator.label_dimension,
                                     optimizer=optimizer, loss_reduction="sum")
    fresh = _state(model)
    whose = "TF1 RMSProp" if head == "v1" else "RMSProp"
    with pytest.raises(CheckpointError, match=rf"dnn part has EstimatorRMSProp\(flavour='{wrong}'\)"):
        canned_checkpoint.load_estimator_checkpoint(model, before)
    with pytest.raises(CheckpointError, match=rf"state is {whose}'s; a EstimatorRMSProp\(flavour='{wrong}'\) cannot"):
        load_legacy_checkpoint(before, model, model.optimizer, canned_checkpoint.model_variable_name)
    assert all(np.array_equal(v, _state(model)[n]) for n, v in fresh.items())
