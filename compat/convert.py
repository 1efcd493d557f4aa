"""`migrate convert-checkpoint`: a canned Estimator's `model.ckpt-N` -> the tf_keras model and TF2 state.

The model is built by the same `compat.canned` builders `migrate rewrite` emits (`compat.rebuild`), and
two things are written:
  model.keras          `tf_keras.models.load_model` gives a model taking the features dict and returning
                       the Estimator's logits (weights only: the training state is the checkpoint's);
  ckpt-N + checkpoint  a `tf.train.Checkpoint(model=, optimizer=, step=)` at step N = global_step, listed
                       in the `checkpoint` state file, where migrated programs' CheckpointManager looks;
                       written tensor by tensor (`compat.streaming`).
With `out=None` the TF2 files go into the model_dir itself: the legacy files stay, the Estimator's state
file is kept as `checkpoint.estimator`, and the new state file lists only the TF2 checkpoint (so the
migrated program's CheckpointManager never deletes an Estimator checkpoint).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import tensorflow as tf
import tf_keras

from . import canned
from .legacy_checkpoint import STATE_FILE, CheckpointError, LegacyCheckpoint
from .optimizer_state import assign_slot
from .rebuild import DEFAULT_LEARNING_RATE, build_model, read_concatenated, slot_sources, weight_sources
from .recognise import CannedEstimator, OptimizerState, part_of, recognise
from .resume import ESTIMATOR_STATE_BACKUP
from .streaming import write_model_file, write_training_checkpoint

MODEL_FILE = "model.keras"
PROVENANCE_FILE = "conversion.json"



@dataclass
class Conversion:
    """The recognised Estimator, the model holding its full state (from `load_canned`), and anything the
    user should know."""

    estimator: CannedEstimator
    model: tf_keras.Model | None  # None when the conversion streamed everything to files
    notes: list[str] = field(default_factory=list)


def _check_adam_step(checkpoint: LegacyCheckpoint, state: OptimizerState, step: int, notes: list[str]):
    """TF1 Adam's bias correction lives in beta1_power; Keras derives it from iterations. They must agree."""
    name = state.non_slot.get("beta1_power")
    if name is None:
        return
    beta1 = state.hyper.get("beta1", 0.9)
    applied = math.log(float(checkpoint.read(name))) / math.log(beta1) - 1
    if abs(applied - step) > 0.01:
        notes.append(
            f"{name} says Adam applied {applied:.0f} updates but global_step is {step}; "
            f"the Keras optimizer continues at iterations={step}"
        )


def assign_state(checkpoint: LegacyCheckpoint, estimator: CannedEstimator, model: tf_keras.Model) -> list[str]:
    """Copy weights, optimizer slots and the step into `model`; returns notes for the user."""
    notes: list[str] = _hyperparameter_notes(estimator)
    optimizers = canned.model_optimizers(model)
    for variable, names in weight_sources(estimator, model):
        variable.assign(read_concatenated(checkpoint, names, variable))
        part = part_of(names[0])
        state, optimizer = estimator.optimizers[part], optimizers[part]
        for keras_slot in {s for name in names for s in state.slots.get(name, {})}:
            value = read_concatenated(checkpoint, slot_sources(estimator, names, keras_slot), variable)
            assign_slot(optimizer, variable, keras_slot, value, estimator.tf1_momentum(part))
    for part, optimizer in optimizers.items():
        optimizer.iterations.assign(estimator.global_step)
        if estimator.optimizers[part].kind == "Adam":
            _check_adam_step(checkpoint, estimator.optimizers[part], estimator.global_step, notes)
    return notes


def load_canned(path: str | os.PathLike) -> Conversion:
    """Recognise the canned Estimator checkpoint at `path`; return a compiled model holding its full
    state (weights, optimizer slots, step), ready to `fit` on. Holds everything in memory at once."""
    tf.get_logger().setLevel("ERROR")  # feature columns' deprecation warnings say nothing to act on here
    checkpoint = LegacyCheckpoint(path)
    estimator = recognise(checkpoint)
    model = build_model(estimator)
    notes = assign_state(checkpoint, estimator, model)
    return Conversion(estimator, model, notes)


def _hyperparameter_notes(estimator: CannedEstimator) -> list[str]:
    """A TF1 optimizer whose learning rate the graph did not show continues with a default: say so."""
    if estimator.head != "v1":
        return []
    return [
        f"the {part} optimizer's learning rate is not in the graph; {state.kind} continues with "
        f"{DEFAULT_LEARNING_RATE[state.kind]:g}: check it against the program"
        for part, state in sorted(estimator.optimizers.items())
        if "learning_rate" not in state.hyper
    ]


def _adam_notes(checkpoint: LegacyCheckpoint, estimator: CannedEstimator) -> list[str]:
    notes: list[str] = _hyperparameter_notes(estimator)
    for state in estimator.optimizers.values():
        if state.kind == "Adam":
            _check_adam_step(checkpoint, state, estimator.global_step, notes)
    return notes


def _write_outputs(checkpoint: LegacyCheckpoint, estimator: CannedEstimator, directory: Path) -> Conversion:
    """Write model.keras, ckpt-N and its state file into `directory`, streaming every tensor."""
    write_model_file(checkpoint, estimator, directory / MODEL_FILE)
    prefix = f"ckpt-{estimator.global_step}"
    write_training_checkpoint(checkpoint, estimator, directory / prefix)
    (directory / STATE_FILE).write_text(
        f'model_checkpoint_path: "{prefix}"\nall_model_checkpoint_paths: "{prefix}"\n'
    )
    conversion = Conversion(estimator, None, _adam_notes(checkpoint, estimator))
    (directory / PROVENANCE_FILE).write_text(_provenance(checkpoint.prefix, conversion, prefix))
    return conversion


def _provenance(source: Path, conversion: Conversion, checkpoint_prefix: str) -> str:
    estimator = conversion.estimator
    return json.dumps({
        "source": str(source),
        "estimator": estimator.estimator_name,
        "global_step": estimator.global_step,
        "checkpoint": checkpoint_prefix,
        "optimizers": {part: state.kind for part, state in estimator.optimizers.items()},
        "features": {part: {k: list(v) for k, v in f.items()} for part, f in estimator.features.items()},
        "notes": conversion.notes,
    }, indent=1) + "\n"


def convert_checkpoint(path: str | os.PathLike, out: str | os.PathLike | None = None) -> tuple[Conversion, Path]:
    """Convert the Estimator checkpoint at `path` into `out` (a new directory) or, with None, in place.

    Tensors are streamed: memory holds about one tensor at a time, never the model. Returns the
    conversion (without a model: load model.keras or restore the checkpoint) and the directory written. Nothing is left half-written: `out` appears only when complete, and in place the state
    file is switched last, in one rename.
    """
    tf.get_logger().setLevel("ERROR")
    checkpoint = LegacyCheckpoint(path)
    estimator = recognise(checkpoint)
    if out is not None:
        return _write_new_directory(Path(out), checkpoint, estimator)
    return _write_in_place(checkpoint.prefix.parent, checkpoint, estimator)


def _write_new_directory(out: Path, checkpoint: LegacyCheckpoint, estimator: CannedEstimator):
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise CheckpointError(f"{out}: already exists and is not empty; choose a new --out directory")
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    umask = os.umask(0)
    os.umask(umask)
    staging.chmod(0o777 & ~umask)  # mkdtemp makes it private; the result is an ordinary directory
    try:
        conversion = _write_outputs(checkpoint, estimator, staging)
        if out.exists():
            out.rmdir()
        staging.rename(out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return conversion, out


def _write_in_place(model_dir: Path, checkpoint: LegacyCheckpoint, estimator: CannedEstimator):
    staging = Path(tempfile.mkdtemp(prefix=".convert-checkpoint.", dir=model_dir))
    try:
        conversion = _write_outputs(checkpoint, estimator, staging)
        state = staging / STATE_FILE
        backup = model_dir / ESTIMATOR_STATE_BACKUP
        if not backup.exists():
            shutil.copy2(model_dir / STATE_FILE, backup)
        for produced in sorted(staging.iterdir(), key=lambda p: (p.name.endswith(".index"), p.name)):
            if produced != state:
                produced.rename(model_dir / produced.name)  # data files first, the index after them
        state.rename(model_dir / STATE_FILE)  # the switch: one atomic rename
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return conversion, model_dir
