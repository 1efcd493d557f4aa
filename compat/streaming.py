"""Writing converted checkpoints (the TF2 training checkpoint and model.keras) a tensor at a time.

A `tf.train.Checkpoint` of a full-size model needs every weight and slot in memory at once. Its layout,
though (the object graph and the key of every tensor), does not depend on sizes. So a miniature model
of the same architecture (every feature and hidden layer one unit wide) is built, each of its weights and
slots is filled with a unique marker value and written once; its checkpoint gives the object graph and
tells which key holds which weight or slot. The real checkpoint is then written with `SaveV2` in groups
of at most one largest tensor, each tensor read from the legacy checkpoint (concatenated or rescaled as the
mapping says) just before, and the shards are merged with `MergeV2Checkpoints`, which renames data files
rather than copying them. Memory stays bounded by the largest tensor.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import tempfile
import zipfile
from pathlib import Path

import h5py
import numpy as np
import tensorflow as tf
import tf_keras

from . import canned
from .legacy_checkpoint import LegacyCheckpoint
from .optimizer_state import keras_momentum, keras_slot
from .rebuild import build_model, build_optimizer, read_parts, slot_sources, weight_sources
from .recognise import CannedEstimator, part_of

SHARD_BYTES = 64 * 1024**2  # smallest group of tensors per data file
_FIRST_MARKER = 1000.5  # marker values are far from any learning rate or step a checkpoint holds


@dataclasses.dataclass(frozen=True)
class _Recipe:
    """How to make one tensor of the real checkpoint from the legacy one."""

    names: tuple[str, ...]  # legacy weights, concatenated along the first axis
    part: str  # dnn | linear
    slot: str | None = None  # None: the weight itself; else the tf_keras slot of that weight


def miniature(estimator: CannedEstimator) -> CannedEstimator:
    """The same Estimator with every feature and hidden layer one unit wide."""
    return dataclasses.replace(
        estimator,
        features={part: {key: (1,) for key in features} for part, features in estimator.features.items()},
        hidden_units=[1] * len(estimator.hidden_units),
    )


def _layout(estimator: CannedEstimator, directory: Path) -> tuple[str, dict[float, _Recipe]]:
    """Write the miniature model's checkpoint; return its prefix and marker value -> recipe."""
    small = miniature(estimator)
    model = build_model(small)
    optimizers = canned.model_optimizers(model)
    recipes: dict[float, _Recipe] = {}
    marker = _FIRST_MARKER
    for variable, names in weight_sources(small, model):
        part = part_of(names[0])
        targets = [(variable, None)]
        for candidate in optimizers[part].variables:
            slot, _, owner = candidate.name.partition("/")
            if owner == variable.name:
                targets.append((keras_slot(optimizers[part], variable, slot), slot))
        for target, slot in targets:
            target.assign(tf.fill(target.shape, tf.constant(marker, target.dtype)))
            recipes[marker] = _Recipe(tuple(names), part, slot)
            marker += 1.0
    for optimizer in optimizers.values():
        optimizer.iterations.assign(estimator.global_step)
    step = model.optimizer.iterations
    # save(), not write(): a CheckpointManager-made checkpoint holds save_counter too
    prefix = tf.train.Checkpoint(model=model, optimizer=model.optimizer, step=step).save(str(directory / "small"))
    return prefix, recipes


def _real_tensor(checkpoint: LegacyCheckpoint, estimator: CannedEstimator, recipe: _Recipe,
                 learning_rate: float) -> tf.Tensor:
    names = recipe.names if recipe.slot is None else slot_sources(estimator, recipe.names, recipe.slot)
    if names is None:  # a slot the legacy optimizer does not keep: it starts at zero
        shape = (sum(checkpoint.shapes[n][0] for n in recipe.names), *checkpoint.shapes[recipe.names[0]][1:])
        return tf.zeros(shape, checkpoint.dtypes[recipe.names[0]])
    parts = [checkpoint.read_tensor(name) for name in names]  # TF tensors: no NumPy copy
    value = parts[0] if len(parts) == 1 else tf.concat(parts, axis=0)
    if recipe.slot is not None and estimator.tf1_momentum(recipe.part):
        value = keras_momentum(value, learning_rate)
    return value


def _model_file_config(estimator: CannedEstimator) -> str:
    """The full-size model's config.json, from a model built in a graph: its variables are never
    initialised, so nothing of their size is allocated."""
    with tf.Graph().as_default():
        model = canned.inference_model(build_model(estimator))
        return json.dumps(tf_keras.saving.serialize_keras_object(model))


def write_model_file(checkpoint: LegacyCheckpoint, estimator: CannedEstimator, path: Path) -> None:
    """Write `path` (model.keras) as `inference_model(model).save(path)` would, one weight at a time.

    A .keras file is a zip of config.json, metadata.json and model.weights.h5. The config comes from the
    full-size model built in a graph (`_model_file_config`); the weights file's layout from a miniature
    model saved with marker values; each real weight is read from the legacy checkpoint just before its
    h5 dataset is written.
    """
    scratch = Path(tempfile.mkdtemp(prefix=".model-file.", dir=path.parent))
    try:
        small = miniature(estimator)
        model = build_model(small)
        recipes: dict[float, _Recipe] = {}
        for index, (variable, names) in enumerate(weight_sources(small, model)):
            marker = _FIRST_MARKER + index
            variable.assign(tf.fill(variable.shape, tf.constant(marker, variable.dtype)))
            recipes[marker] = _Recipe(tuple(names), part_of(names[0]))
        canned.inference_model(model).save(scratch / "small.keras")
        weights = scratch / "model.weights.h5"
        with zipfile.ZipFile(scratch / "small.keras") as small_file:
            metadata = small_file.read("metadata.json")
            small_file.extract("model.weights.h5", scratch / "small")
        with h5py.File(scratch / "small" / "model.weights.h5", "r") as source, h5py.File(weights, "w") as target:
            def copy(name, item):
                if isinstance(item, h5py.Group):
                    target.require_group(name).attrs.update(item.attrs)
                    return
                # Real weights are read straight into NumPy: one copy, not a TF tensor plus a NumPy copy.
                layout = item[()]
                value = read_parts(checkpoint, _legacy_names(name, layout, recipes)) if layout.size else layout
                target.create_dataset(name, data=value).attrs.update(item.attrs)
                del value

            target.attrs.update(source.attrs)
            source.visititems(copy)
        staged = scratch / "model.keras"
        with zipfile.ZipFile(staged, "w") as model_file:  # stored, not deflated, as tf_keras writes it
            model_file.writestr("metadata.json", metadata)
            model_file.writestr("config.json", _model_file_config(estimator))
            model_file.write(weights, "model.weights.h5")
        staged.rename(path)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _legacy_names(name: str, small_value: np.ndarray, recipes: dict[float, _Recipe]) -> tuple[str, ...]:
    """The legacy weights a model.keras dataset is made of, from the markers its miniature holds: one
    weight's marker throughout, or runs of rows with one marker each (the plain linear kernel, which
    stacks every dense column's weights: `canned.inference_model`)."""
    rows = small_value.reshape(small_value.shape[0], -1) if small_value.ndim else small_value.reshape(1, 1)
    names: list[str] = []
    previous = None
    for row in rows:
        recipe = recipes.get(float(row[0]))
        if recipe is None or not np.all(row == row[0]):
            raise RuntimeError(f"model.keras weight {name}: no Estimator weight fills it (markers {np.unique(rows)})")
        if recipe is not previous:
            names += recipe.names
            previous = recipe
    return tuple(names)


def write_training_checkpoint(checkpoint: LegacyCheckpoint, estimator: CannedEstimator, prefix: Path) -> str:
    """Write `prefix` (e.g. OUT/ckpt-N): the TF2 checkpoint `tf.train.Checkpoint(model=, optimizer=,
    step=)` of the converted model would write, streamed. Returns the prefix written.

    Tensors are written in groups of at most one largest tensor's bytes (at least SHARD_BYTES), one
    `SaveV2` shard per group: a small model gets one data file, and memory holds one group at a time.
    """
    scratch = Path(tempfile.mkdtemp(prefix=".streaming.", dir=prefix.parent))
    budget = max(SHARD_BYTES, max(checkpoint.nbytes(name) for name in checkpoint.shapes))
    try:
        small_prefix, recipes = _layout(estimator, scratch)
        small = tf.train.load_checkpoint(small_prefix)
        learning_rates = {part: canned_learning_rate(estimator, part) for part in estimator.optimizers}
        shards: list[str] = []
        group: list[tuple[str, tf.Tensor]] = []

        def flush():
            shard = str(scratch / f"shard-{len(shards)}")
            tf.raw_ops.SaveV2(prefix=shard, tensor_names=[k for k, _ in group],
                              shape_and_slices=[""] * len(group), tensors=[t for _, t in group])
            shards.append(shard)
            group.clear()

        for key in sorted(small.get_variable_to_shape_map()):
            value = small.get_tensor(key)  # the object graph comes back as bytes, numbers as arrays
            floating = isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.size
            recipe = recipes.get(float(np.ravel(value)[0])) if floating else None
            if recipe is not None:
                value = _real_tensor(checkpoint, estimator, recipe, learning_rates[recipe.part])
            tensor = value if isinstance(value, tf.Tensor) else tf.constant(value)
            if group and sum(_bytes(t) for _, t in group) + _bytes(tensor) > budget:
                flush()
            group.append((key, tensor))
            del value, tensor
        flush()
        tf.raw_ops.MergeV2Checkpoints(checkpoint_prefixes=shards, destination_prefix=str(prefix))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return str(prefix)


def _bytes(tensor: tf.Tensor) -> int:
    return 0 if tensor.dtype == tf.string else tensor.shape.num_elements() * tensor.dtype.size


def canned_learning_rate(estimator: CannedEstimator, part: str) -> float:
    return float(build_optimizer(estimator.optimizers[part], estimator.head).learning_rate.numpy())
