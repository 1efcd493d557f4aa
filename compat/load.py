"""`compat.load_legacy_checkpoint`: a name-based `model.ckpt-N` into any TF2 model, for custom model_fns.

Canned Estimators are recognised by `migrate convert-checkpoint`; a custom `model_fn` names its variables
as it likes (`hidden/kernel`, `logits/bias`), so here the caller says how legacy names become the model's
variable names. The load is all-or-nothing: a legacy weight with no model variable, or a model variable
no legacy weight fills, is an error unless explicitly allowed, and every shape is checked before any
variable is assigned.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import tensorflow as tf

from .legacy_checkpoint import TRAINING_STATE, CheckpointError, LegacyCheckpoint
from .optimizer_state import (
    V1_SLOT,
    assign_slot,
    continues,
    describe,
    legacy_optimizer_kind,
    legacy_slots,
)

NameMap = Mapping[str, str] | Sequence[tuple[str, str]] | Callable[[str], str | None] | None


@dataclass
class LoadResult:
    """What a load did: legacy name -> model variable name, and what was left out (when allowed)."""

    global_step: int | None
    matched: dict[str, str] = field(default_factory=dict)
    unmatched_legacy: list[str] = field(default_factory=list)
    missing_in_checkpoint: list[str] = field(default_factory=list)
    slots: int = 0


def _variable_name(variable: tf.Variable) -> str:
    return variable.name.removesuffix(":0")


def _mapper(name_map: NameMap) -> Callable[[str], str | None]:
    """Legacy name -> model variable name: a dict (missing = unmatched), (regex, replacement) pairs applied
    in order, a function, or None (the names are the same)."""
    if name_map is None:
        return lambda name: name
    if callable(name_map):
        return name_map
    if isinstance(name_map, Mapping):
        return name_map.get
    rules = [(re.compile(pattern), replacement) for pattern, replacement in name_map]

    def apply(name: str) -> str:
        for pattern, replacement in rules:
            name = pattern.sub(replacement, name)
        return name

    return apply


def legacy_weights(checkpoint: LegacyCheckpoint) -> list[str]:
    """The checkpoint's model weights: everything but the step, optimizer slots and optimizer state."""
    slot_names = {n for per_var in legacy_slots(checkpoint).values() for n in per_var.values()}
    return sorted(
        name for name in checkpoint.shapes
        if name not in slot_names and name != "global_step" and not name.startswith("training/")
        and not TRAINING_STATE.search(name)
    )


def load_legacy_checkpoint(
    prefix: str | os.PathLike,
    model: tf.Module,
    optimizer=None,
    name_map: NameMap = None,
    *,
    allow_unmatched: bool = False,
    allow_missing: bool = False,
) -> LoadResult:
    """Assign an Estimator checkpoint's weights (and, with `optimizer`, its slots and step) to `model`.

    `prefix`: a model_dir or a `model.ckpt-N` prefix. `name_map` turns each legacy weight name into the
    name of a model variable (`variable.name` without ":0"). Raises `CheckpointError` on any unmatched
    legacy weight (unless `allow_unmatched`), any model variable left unfilled (unless `allow_missing`),
    any shape mismatch, or an optimizer whose kind differs from the checkpoint's.
    """
    checkpoint = LegacyCheckpoint(prefix)
    mapper = _mapper(name_map)
    variables = {_variable_name(v): v for v in model.variables}
    result = LoadResult(checkpoint.global_step)
    plan = []
    for legacy in legacy_weights(checkpoint):
        target = mapper(legacy)
        variable = variables.get(target) if target else None
        if variable is None:
            result.unmatched_legacy.append(legacy)
            continue
        if tuple(checkpoint.shapes[legacy]) != tuple(variable.shape):
            raise CheckpointError(
                f"{checkpoint.prefix}: {legacy} has shape {checkpoint.shapes[legacy]}, "
                f"the model's {target} has {tuple(variable.shape)}"
            )
        plan.append((legacy, variable))
        result.matched[legacy] = target
    filled = set(result.matched.values())
    result.missing_in_checkpoint = sorted(n for n in variables if n not in filled and _is_weight(variables[n]))
    if result.unmatched_legacy and not allow_unmatched:
        raise CheckpointError(
            f"{checkpoint.prefix}: no model variable for {', '.join(result.unmatched_legacy)} "
            "(extend name_map, or pass allow_unmatched=True)"
        )
    if result.missing_in_checkpoint and not allow_missing:
        raise CheckpointError(
            f"{checkpoint.prefix}: nothing in the checkpoint fills {', '.join(result.missing_in_checkpoint)} "
            "(extend name_map, or pass allow_missing=True)"
        )
    if optimizer is not None:
        _check_optimizer(checkpoint, optimizer)
        optimizer.build([variable for _, variable in plan])
    for legacy, variable in plan:
        variable.assign(checkpoint.read(legacy))
    if optimizer is not None:
        tf1_momentum = legacy_optimizer_kind(checkpoint) == "Momentum"
        for legacy, variable in plan:
            for slot, slot_name in legacy_slots(checkpoint).get(legacy, {}).items():
                momentum = tf1_momentum and not slot_name.startswith("training/")
                assign_slot(optimizer, variable, slot, checkpoint.read(slot_name), momentum)
                result.slots += 1
        optimizer.iterations.assign(result.global_step or 0)
    return result


def save_starting_checkpoint(model, model_dir: str | os.PathLike, load: Callable[[], LoadResult]) -> str:
    """Run `load` (an Estimator checkpoint into `model`), then save `model` and its optimizer as `ckpt-N`
    (N: the Estimator's step) in `model_dir`, which must hold no checkpoint yet. Returns its path."""
    if tf.train.latest_checkpoint(str(model_dir)):
        raise FileExistsError(f"{model_dir} already holds a checkpoint; convert into an empty directory")
    result = load()
    checkpoint = tf.train.Checkpoint(model=model, optimizer=model.optimizer)
    manager = tf.train.CheckpointManager(checkpoint, str(model_dir), max_to_keep=None)
    return manager.save(checkpoint_number=result.global_step or 0)


def _is_weight(variable: tf.Variable) -> bool:
    return variable.trainable or "moving_" in variable.name


def _check_optimizer(checkpoint: LegacyCheckpoint, optimizer) -> None:
    kind = legacy_optimizer_kind(checkpoint)
    tf1_state = any(V1_SLOT.match(name) for name in checkpoint.shapes)
    if not continues(optimizer, kind, tf1_state):
        whose = f"TF1 {kind}'s" if kind == "RMSProp" and tf1_state else f"{kind}'s"
        raise CheckpointError(
            f"{checkpoint.prefix}: the checkpoint's optimizer state is {whose}; "
            f"a {describe(optimizer)} cannot continue it"
        )
