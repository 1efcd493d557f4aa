"""Estimator's `warm_start_from=`: the settings it made of the argument, and the warm start of a migrated
canned model (a wrapped model_fn warm-starts its TF1 variables itself: compat.wrapped_model_fns).

As Estimator (tensorflow_estimator 2.15, `_train_with_estimator_spec`; `tf.compat.v1.train.warm_start`): when a
train call finds no checkpoint in model_dir, the variables `vars_to_warm_start` selects take their values from
`ckpt_to_initialize_from`, by the Estimator's variable names (`var_name_to_prev_var_name` renames them there);
everything else (optimizer slots, the step) starts afresh. The selection, as TF1's collections answered it:
  - a regular expression (the default ".*"): the trainable variables whose name it matches from the start;
  - a list of such expressions: every variable they match (the model's weights; optimizer slots and the step
    are refused with one error: a TF1 optimizer's slots are not the Keras twin's);
  - None: only those given a vocabulary, which is refused (`var_name_to_vocab_info` is not migrated): none.
The checkpoint may be an Estimator's (names) or a migrated program's (tf.train.Checkpoint: the variables' own
names, recorded in its object graph).
"""

from __future__ import annotations

import logging
import os
import re
from typing import Any, NamedTuple

import tensorflow as tf

log = logging.getLogger(__name__)


class WarmStartSettings(NamedTuple):
    """`tf.estimator.WarmStartSettings`: the same fields, positions and defaults (what
    `tf.compat.v1.train.warm_start` takes)."""

    ckpt_to_initialize_from: str
    vars_to_warm_start: Any = ".*"
    var_name_to_vocab_info: dict | None = None
    var_name_to_prev_var_name: dict | None = None


def settings_of(warm_start_from) -> WarmStartSettings | None:
    """Estimator's `_get_default_warm_start_settings`: a checkpoint (or a SavedModel directory: its variables),
    or WarmStartSettings as given."""
    if warm_start_from is None:
        return None
    if isinstance(warm_start_from, str | bytes | os.PathLike):
        path = os.fsdecode(warm_start_from)
        if tf.io.gfile.exists(os.path.join(path, "variables", "variables.index")):
            return WarmStartSettings(os.path.join(path, "variables", "variables"))
        return WarmStartSettings(path)
    if isinstance(warm_start_from, WarmStartSettings):
        return warm_start_from
    if type(warm_start_from).__name__ == "WarmStartSettings":  # TF1's own, where the rewrite did not follow it
        return WarmStartSettings(*warm_start_from)
    raise ValueError(f"warm_start_from must be a string or a WarmStartSettings, instead got {type(warm_start_from)}")


def _checkpoint_file(path: str) -> str:
    """A checkpoint prefix, or the latest checkpoint of a directory (as `init_from_checkpoint` read it)."""
    if tf.io.gfile.isdir(path):
        latest = tf.train.latest_checkpoint(path)
        if latest is None:
            raise ValueError(f"warm_start_from: no checkpoint in {path}")
        return latest
    return path


def _selected(weights: dict[str, tf.Variable], trainable: set[str], selection, other_names) -> list[str]:
    """The Estimator names of the weights `selection` (vars_to_warm_start) picks, as TF1's collections did;
    `other_names`: the Estimator's other global variables (the step, optimizer slots), which a list refuses."""
    if selection is None:
        return []  # only variables given a vocabulary: refused before this
    if isinstance(selection, str):
        return [name for name in weights if name in trainable and re.match(selection, name + ":0")]
    if isinstance(selection, list | tuple) and all(isinstance(pattern, str) for pattern in selection):
        names = []
        for pattern in selection:
            others = [name for name in other_names if re.match(pattern, name + ":0")]
            if others:
                raise ValueError(
                    f"warm_start_from: vars_to_warm_start {pattern!r} selects {', '.join(sorted(others)[:3])}, "
                    "the step or optimizer state, which a migrated canned estimator does not warm-start (its "
                    "optimizer's slots are the Keras twin's); select the model's weights only"
                )
            names += [name for name in weights if re.match(pattern, name + ":0") and name not in names]
        return names
    raise ValueError(f"warm_start_from: vars_to_warm_start of a migrated canned estimator must be a regular "
                     f"expression or a list of them, got {type(selection).__name__}")


def warm_start_canned(model, settings: WarmStartSettings) -> int:
    """Assign a fresh `compat.canned` model's selected weights from `settings.ckpt_to_initialize_from`, as
    Estimator warm-started the canned estimator; returns how many."""
    from tensorflow.python.training.saver import (
        object_graph_key_mapping,  # full variable name -> checkpoint key
    )

    from .canned_checkpoint import estimator_variable_name, model_variable_name

    if settings.var_name_to_vocab_info:
        raise ValueError("warm_start_from: var_name_to_vocab_info (a vocabulary's rows remapped) is not migrated for "
                         "a canned estimator; warm-start from a checkpoint of the same vocabulary")
    path = _checkpoint_file(os.fsdecode(settings.ckpt_to_initialize_from))
    reader = tf.train.load_checkpoint(path)
    try:
        keys_by_name = object_graph_key_mapping(path)  # a tf.train.Checkpoint's: its variables' own names
        stored_name = model_variable_name  # (never the Estimator's: Ftrl's slots are named "linear/<variable>")
    except tf.errors.NotFoundError:
        keys_by_name = {name: name for name in reader.get_variable_to_shape_map()}  # an Estimator's: names
        stored_name = str
    weights = {estimator_variable_name(v.name.removesuffix(":0")): v for v in model.weights}
    if stored_name is str:  # the Estimator's own other variables, by name
        other_names = [name for name in keys_by_name if name not in weights]
    else:  # a migrated run's slots are the Keras twin's: where the Estimator's were (TF1's, Keras's) and the step
        other_names = ["global_step", "training/<slot>", *(f"{name}/<slot>" for name in weights)]
    trainable = {estimator_variable_name(v.name.removesuffix(":0")) for v in model.trainable_weights}
    renamed = dict(settings.var_name_to_prev_var_name or {})
    selected = _selected(weights, trainable, settings.vars_to_warm_start, other_names)
    unused = set(renamed) - set(selected)
    if unused:
        raise ValueError(f"warm_start_from: var_name_to_prev_var_name names {sorted(unused)}, which are not "
                         f"warm-started; the variables warm-started: {selected}")
    values = {}
    for name in selected:
        previous = renamed.get(name, name)
        key = keys_by_name.get(stored_name(previous))
        if key is None:
            raise ValueError(f"warm_start_from: {path} holds no {previous} (to warm-start {name})")
        value = reader.get_tensor(key)
        if tuple(value.shape) != tuple(weights[name].shape):
            raise ValueError(f"warm_start_from: {previous} in {path} has shape {tuple(value.shape)}, the model's "
                             f"{name} {tuple(weights[name].shape)}")
        values[name] = value
    for name, value in values.items():  # all read and checked before any is assigned
        weights[name].assign(value)
    log.info("Warm-started %d variables from %s.", len(values), path)
    return len(values)
