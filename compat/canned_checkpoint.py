"""A canned Estimator's `model.ckpt-N` into the model a migrated program built with `compat.canned`.

`migrate convert-checkpoint` rebuilds the model from the checkpoint alone, which it can for numeric
feature columns only: a vocabulary, a hash bucket count or bucket boundaries are in the program, not in
the checkpoint. Here the program's own model is given, and every Estimator variable goes to the model
variable of the same name below its part's scope:
  linear/linear_model/<column>/weights                         -> linear_model/<column>/weights
  dnn/input_from_feature_columns/input_layer/<column>_embedding/embedding_weights
                                                               -> input_layer/<column>_embedding/embedding_weights
  dnn/hiddenlayer_0/kernel                                     -> hiddenlayer_0/kernel
  dnn/hiddenlayer_0/batchnorm_0/gamma                          -> batchnorm_0/gamma
  baseline/bias                                                -> baseline/bias
with each part's optimizer slots and the step. All or nothing: a weight without a model variable, a
model variable left unfilled, a shape or optimizer that differs is an error before anything is assigned.
"""

from __future__ import annotations

import os
import re

import tf_keras

from . import canned
from .legacy_checkpoint import CheckpointError, LegacyCheckpoint
from .load import LoadResult, load_legacy_checkpoint, save_starting_checkpoint
from .optimizer_state import (
    V1_SLOT,
    V1_SLOTS,
    V2_KINDS,
    V2_VARIABLE,
    assign_slot,
    continues,
    describe,
    legacy_slots,
)
from .recognise import part_of

_DNN_INPUT_SCOPE = "dnn/input_from_feature_columns/"
_BATCH_NORM = re.compile(r"^dnn/hiddenlayer_(\d+)/(?P<rest>batchnorm_\1/.+)$")


def model_variable_name(legacy_name: str) -> str | None:
    """The `compat.canned` model variable an Estimator weight goes to (None: not a canned model weight)."""
    if match := _BATCH_NORM.match(legacy_name):
        return match["rest"]
    for scope in (_DNN_INPUT_SCOPE, "dnn/", "linear/"):
        if legacy_name.startswith(scope):
            return legacy_name[len(scope):]
    return legacy_name if legacy_name.startswith("baseline/") else None


def estimator_variable_name(model_variable: str) -> str:
    """The Estimator's name of a `compat.canned` model weight (`model_variable_name`'s inverse)."""
    if match := re.match(r"^batchnorm_(\d+)/", model_variable):
        return f"dnn/hiddenlayer_{match[1]}/{model_variable}"
    if model_variable.startswith("linear_model/"):
        return "linear/" + model_variable
    if model_variable.startswith("baseline/"):
        return model_variable
    return (_DNN_INPUT_SCOPE if model_variable.startswith("input_layer/") else "dnn/") + model_variable


def estimator_weights(model: tf_keras.Model) -> dict:
    """A `compat.canned` model's weights by their Estimator names, and the global step (its optimizer's
    iterations): what Estimator's get_variable_value read, optimizer slots aside."""
    weights = {estimator_variable_name(v.name.removesuffix(":0")): v for v in model.weights}
    return {**weights, "global_step": model.optimizer.iterations}


def _slot_kind(slot_name: str) -> tuple[str, bool]:
    """The optimizer kind a legacy slot variable belongs to, and whether it is a TF1 optimizer's."""
    if match := V1_SLOT.match(slot_name):
        return V1_SLOTS[match["slot"]][0], True
    kind = V2_VARIABLE.match(slot_name)["kind"]
    return ("Momentum" if kind == "SGD" and slot_name.endswith("/momentum") else V2_KINDS.get(kind, kind)), False


def load_estimator_checkpoint(model: tf_keras.Model, prefix: str | os.PathLike) -> LoadResult:
    """Assign the Estimator checkpoint at `prefix` (a model_dir or a `model.ckpt-N`) to a `compat.canned`
    model: weights, every optimizer's slots (a DNNLinearCombined model has two) and step."""
    checkpoint = LegacyCheckpoint(prefix)
    optimizers = canned.model_optimizers(model)
    slots = legacy_slots(checkpoint)
    for legacy, per_slot in slots.items():
        part = part_of(legacy)
        for slot_name in per_slot.values():
            kind, tf1_state = _slot_kind(slot_name)
            optimizer = optimizers.get(part)
            if optimizer is None or not continues(optimizer, kind, tf1_state):
                have = describe(optimizer) if optimizer else "no optimizer"
                whose = f"TF1 {kind}" if kind == "RMSProp" and tf1_state else kind
                raise CheckpointError(
                    f"{checkpoint.prefix}: {legacy} holds {whose} state; the model's {part} part has {have}"
                )
    result = load_legacy_checkpoint(checkpoint.prefix, model, None, model_variable_name)
    variables = {v.name.removesuffix(":0"): v for v in model.variables}
    for legacy, target in result.matched.items():
        optimizer = optimizers[part_of(legacy)]
        for keras_slot, slot_name in slots.get(legacy, {}).items():
            kind, tf1_state = _slot_kind(slot_name)
            tf1_momentum = kind == "Momentum" and tf1_state
            assign_slot(optimizer, variables[target], keras_slot, checkpoint.read(slot_name), tf1_momentum)
            result.slots += 1
    for optimizer in optimizers.values():
        optimizer.iterations.assign(result.global_step or 0)
    return result


def convert_estimator_checkpoint(
    model: tf_keras.Model, prefix: str | os.PathLike, model_dir: str | os.PathLike
) -> str:
    """Write a migrated program's starting checkpoint: the Estimator's checkpoint at `prefix` loaded into
    `model` (the program's `compat.canned` model), saved as `ckpt-N` in `model_dir`, an empty directory,
    where the migrated program's `restore_latest` continues at step N + 1 (both targets). Returns its path."""
    return save_starting_checkpoint(model, model_dir, lambda: load_estimator_checkpoint(model, prefix))
