"""Optimizer state in legacy checkpoints and where it goes in a tf_keras optimizer.

TF1 optimizers (v1 heads, custom model_fns) keep slots beside the variable: `<var>/Adam`, `<var>/Adam_1`,
`<var>/t_0/Adagrad`, `<var>/part_0/Ftrl_1`, `<var>/Momentum`, `<var>/RMSProp` (rms), `<var>/RMSProp_1`
(momentum; centered: mg, then `RMSProp_2` momentum), `<var>/Adadelta` (accum), `<var>/Adadelta_1` (accum_update). Keras optimizers inside v2 Estimators keep them under
`training/<Optimizer>/<var>/<slot>`. Both map onto tf_keras slot variables (RMSProp's onto
`compat.rmsprop.EstimatorRMSProp`'s rms/momentum/mg); the one update rule that differs is momentum: TF1
accumulates gradients (w -= lr * a), Keras accumulates updates (w += m), so m = -lr * a.
"""

from __future__ import annotations

import re

import numpy as np

from .legacy_checkpoint import CheckpointError
from .rmsprop import KERAS_LEGACY, TF1, EstimatorRMSProp

# TF1 slot name -> (optimizer kind, the tf_keras slot it becomes).
V1_SLOTS = {
    "Adagrad": ("Adagrad", "accumulator"),
    "Adam": ("Adam", "m"),
    "Adam_1": ("Adam", "v"),
    "Ftrl": ("Ftrl", "accumulator"),
    "Ftrl_1": ("Ftrl", "linear"),
    "Momentum": ("Momentum", "m"),
    "RMSProp": ("RMSProp", "rms"),
    "RMSProp_1": ("RMSProp", "momentum"),  # mg when there is an RMSProp_2 (`v1_keras_slot`)
    "RMSProp_2": ("RMSProp", "momentum"),
    "Adadelta": ("Adadelta", "accum"),  # (compat.adadelta's slots, named as TF1's)
    "Adadelta_1": ("Adadelta", "accum_update"),
}
# Keras (v2 Estimator) slot name -> the tf_keras slot it becomes (`v2_keras_slot`).
V2_SLOTS = {"m": "m", "v": "v", "accumulator": "accumulator", "linear": "linear", "momentum": "m",
            "accum_grad": "accum", "accum_var": "accum_update"}
V2_RMSPROP_SLOTS = {"rms": "rms", "momentum": "momentum", "mg": "mg"}
# Keras optimizer scope -> the optimizer kind (the TF1 spelling, where the two differ).
V2_KINDS = {"RMSprop": "RMSProp"}
V1_SLOT = re.compile(
    r"^(?P<var>.+?)(?:/(?:t|part)_\d+)?/(?P<slot>Adagrad|Adam|Adam_1|Ftrl|Ftrl_1|Momentum|RMSProp(?:_[12])?|Adadelta(?:_1)?)$"
)
V2_VARIABLE = re.compile(r"^training/(?P<opt>(?P<kind>[A-Za-z]+)(?:_\d+)?)/(?P<rest>.+)$")


def v1_keras_slot(name: str, slot: str, names) -> str:
    """The tf_keras slot a TF1 slot variable `name` (its suffix: `slot`) becomes; `names`: the checkpoint's.
    TF1 RMSProp numbers its slots in creation order: rms, mg (centered only), momentum."""
    if slot == "RMSProp_1" and name.removesuffix("_1") + "_2" in names:
        return "mg"
    return V1_SLOTS[slot][1]


def v2_keras_slot(kind: str, slot: str) -> str | None:
    """The tf_keras slot a Keras (v2 Estimator) slot becomes, or None when `slot` is no slot name."""
    return (V2_RMSPROP_SLOTS if kind == "RMSprop" else V2_SLOTS).get(slot)


def legacy_slots(checkpoint) -> dict[str, dict[str, str]]:
    """legacy weight name -> {tf_keras slot name: legacy slot variable name}, for both spellings."""
    slots: dict[str, dict[str, str]] = {}
    for name in checkpoint.shapes:
        if match := V1_SLOT.match(name):
            slots.setdefault(match["var"], {})[v1_keras_slot(name, match["slot"], checkpoint.shapes)] = name
        elif (match := V2_VARIABLE.match(name)) and "/" in match["rest"]:
            variable, _, slot = match["rest"].rpartition("/")
            if keras_slot := v2_keras_slot(match["kind"], slot):
                slots.setdefault(variable, {})[keras_slot] = name
    return slots


def legacy_optimizer_kind(checkpoint) -> str:
    """Adadelta | Adagrad | Adam | Ftrl | Momentum | RMSProp | SGD, from the slots a single-optimizer checkpoint
    holds."""
    kinds = set()
    for name in checkpoint.shapes:
        if match := V1_SLOT.match(name):
            kinds.add(V1_SLOTS[match["slot"]][0])
        elif match := V2_VARIABLE.match(name):
            kind = match["kind"]
            kinds.add("Momentum" if kind == "SGD" and name.endswith("/momentum") and "/" in match["rest"]
                      else V2_KINDS.get(kind, kind))
    if len(kinds) > 1:  # a slot-less SGD beside a real optimizer is the other part's plain SGD
        kinds.discard("SGD")
    if len(kinds) > 1:
        raise CheckpointError(f"{checkpoint.prefix}: state of several optimizers ({', '.join(sorted(kinds))})")
    return kinds.pop() if kinds else "SGD"


def continues(optimizer, kind: str, tf1_state: bool) -> bool:
    """Whether the tf_keras `optimizer` continues legacy `kind` state with the same update rule;
    `tf1_state`: the state is a TF1 optimizer's (slots beside the variables), not a Keras one's."""
    if kind == "RMSProp":
        flavour = TF1 if tf1_state else KERAS_LEGACY
        return isinstance(optimizer, EstimatorRMSProp) and optimizer.flavour == flavour
    return type(optimizer).__name__ == {"Momentum": "SGD"}.get(kind, kind)


def describe(optimizer) -> str:
    """`optimizer`'s class, with its flavour for `EstimatorRMSProp`."""
    if isinstance(optimizer, EstimatorRMSProp):
        return f"EstimatorRMSProp(flavour={optimizer.flavour!r})"
    return type(optimizer).__name__


def keras_slot(optimizer, variable, slot: str):
    """The tf_keras optimizer's `slot` variable for `variable` (named `<slot>/<variable name>`)."""
    wanted = f"{slot}/{variable.name}"
    for candidate in optimizer.variables:
        if candidate.name == wanted:
            return candidate
    raise CheckpointError(f"{type(optimizer).__name__} has no {slot!r} slot for {variable.name}")


def keras_momentum(accumulator, learning_rate: float):
    """A TF1 Momentum accumulator (w -= lr * a) as tf_keras SGD's momentum (w += m): m = -lr * a."""
    return -learning_rate * accumulator


def assign_slot(optimizer, variable, slot: str, value: np.ndarray, tf1_momentum: bool) -> None:
    """Assign one legacy slot value; `tf1_momentum` converts a TF1 Momentum accumulator to Keras's."""
    if tf1_momentum:
        value = keras_momentum(value, float(optimizer.learning_rate.numpy()))
    keras_slot(optimizer, variable, slot).assign(value)
