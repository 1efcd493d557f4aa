"""`migrate convert-checkpoint`: a canned Estimator's `model.ckpt-N` -> the tf_keras model and TF2 state.

The model is built by the same `compat.canned` builders `migrate rewrite` emits, the legacy weights and
optimizer slots are assigned to it, and two things are written:
  model.keras          `tf_keras.models.load_model` gives a model taking the features dict and returning
                       the Estimator's logits;
  ckpt-N + checkpoint  a `tf.train.Checkpoint(model=, optimizer=, step=)` at step N = global_step, listed
                       in the `checkpoint` state file, where migrated programs' CheckpointManager looks.
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

import numpy as np
import tensorflow as tf
import tf_keras

from compat import canned
from compat.legacy_checkpoint import STATE_FILE, CheckpointError, LegacyCheckpoint
from compat.optimizer_state import assign_slot
from compat.recognise import CannedEstimator, OptimizerState, recognise

MODEL_FILE = "model.keras"
ESTIMATOR_STATE_BACKUP = "checkpoint.estimator"
PROVENANCE_FILE = "conversion.json"
# Optimizer defaults the checkpoint cannot tell: TF1 Adam's epsilon is 1e-8, Keras's 1e-7.
ADAM_EPSILON = {"v1": 1e-8, "v2": 1e-7}
DEFAULT_LEARNING_RATE = {"Adagrad": 0.05, "Adam": 0.001, "Ftrl": 0.2, "Momentum": 0.01, "SGD": 0.01}


@dataclass
class Conversion:
    """The recognised Estimator, the model holding its state, and anything the user should know."""

    estimator: CannedEstimator
    model: tf_keras.Model
    notes: list[str] = field(default_factory=list)


def feature_columns(features: dict[str, tuple[int, ...]]) -> list:
    return [tf.feature_column.numeric_column(key, shape=list(shape)) for key, shape in features.items()]


def build_optimizer(state: OptimizerState, head: str) -> tf_keras.optimizers.Optimizer:
    """The tf_keras optimizer that continues `state` with the same update rule and hyperparameters."""
    hyper = state.hyper
    if hyper.get("decay", 0.0):
        raise CheckpointError(
            f"the {state.part} optimizer decays its learning rate (decay={hyper['decay']:g}); "
            "tf_keras optimizers have no `decay`: convert with a LearningRateSchedule by hand"
        )
    lr = hyper.get("learning_rate", DEFAULT_LEARNING_RATE[state.kind])
    if state.kind == "Adagrad":
        return canned.estimator_adagrad(lr, epsilon=0.0 if head == "v1" else canned.KERAS_ADAGRAD_EPSILON)
    if state.kind == "Adam":
        return tf_keras.optimizers.Adam(
            lr,
            beta_1=hyper.get("beta1", hyper.get("beta_1", 0.9)),
            beta_2=hyper.get("beta2", hyper.get("beta_2", 0.999)),
            epsilon=hyper.get("epsilon", ADAM_EPSILON[head]),
        )
    if state.kind == "Ftrl":
        return tf_keras.optimizers.Ftrl(
            lr,
            learning_rate_power=hyper.get("learning_rate_power", -0.5),
            l1_regularization_strength=hyper.get("l1_regularization_strength", 0.0),
            l2_regularization_strength=hyper.get("l2_regularization_strength", 0.0),
            l2_shrinkage_regularization_strength=hyper.get("l2_shrinkage_regularization_strength", 0.0),
            beta=hyper.get("beta", 0.0),
        )
    if state.kind == "Momentum":
        return tf_keras.optimizers.SGD(lr, momentum=hyper.get("momentum", 0.9))
    return tf_keras.optimizers.SGD(lr)


def build_model(estimator: CannedEstimator) -> tf_keras.Model:
    """The `compat.canned` model `migrate rewrite` emits for this Estimator, with its optimizer(s)."""
    optimizers = {part: build_optimizer(state, estimator.head) for part, state in estimator.optimizers.items()}
    reduction = canned.V1_HEAD_REDUCTION if estimator.head == "v1" else canned.V2_HEAD_REDUCTION
    head = ({"n_classes": estimator.n_classes} if estimator.task == "classifier"
            else {"label_dimension": estimator.label_dimension})
    builder = getattr(canned, f"{estimator.family}_{estimator.task}")
    if estimator.family == "dnn_linear_combined":
        return builder(
            feature_columns(estimator.features["linear"]), feature_columns(estimator.features["dnn"]),
            estimator.hidden_units, linear_optimizer=optimizers["linear"], dnn_optimizer=optimizers["dnn"],
            dnn_activation_fn=estimator.activation, loss_reduction=reduction, **head,
        )
    columns = feature_columns(estimator.features[estimator.family])
    optimizer = optimizers[estimator.family]
    if estimator.family == "dnn":
        return builder(columns, estimator.hidden_units, optimizer=optimizer, loss_reduction=reduction,
                       activation_fn=estimator.activation, **head)
    return builder(columns, optimizer=optimizer, loss_reduction=reduction, **head)


def weight_sources(estimator: CannedEstimator, model: tf_keras.Model) -> list[tuple[tf.Variable, list[str]]]:
    """Each model variable with the legacy variables it is made of (concatenated along the first axis).
    A variable of the `linear_model` layer belongs to the linear part, every other one to the DNN.

    The linear model keeps one weight per feature; the Keras layer one kernel over the features
    concatenated in sorted-name order, as `DenseFeatures` (and the Estimator's input layer) orders them.
    """
    sources = []
    for layer in model.layers:
        if not isinstance(layer, tf_keras.layers.Dense):
            continue
        if layer.name == "linear_model":
            keys = estimator.features["linear"]
            sources.append((layer.kernel, [f"linear/linear_model/{k}/weights" for k in keys]))
            sources.append((layer.bias, ["linear/linear_model/bias_weights"]))
        else:
            sources.append((layer.kernel, [f"dnn/{layer.name}/kernel"]))
            sources.append((layer.bias, [f"dnn/{layer.name}/bias"]))
    return sources


def _read_concatenated(checkpoint: LegacyCheckpoint, names: list[str], target: tf.Variable) -> np.ndarray:
    parts = [checkpoint.read(name) for name in names]
    value = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)
    if tuple(value.shape) != tuple(target.shape):
        raise CheckpointError(
            f"{checkpoint.prefix}: {' + '.join(names)} has shape {value.shape}, "
            f"the model's {target.name} has {tuple(target.shape)}"
        )
    return value


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
    notes: list[str] = []
    optimizers = canned.model_optimizers(model)
    for variable, names in weight_sources(estimator, model):
        variable.assign(_read_concatenated(checkpoint, names, variable))
        part = "linear" if names[0].startswith("linear/") else "dnn"
        state, optimizer = estimator.optimizers[part], optimizers[part]
        for keras_slot in {s for name in names for s in state.slots.get(name, {})}:
            slot_names = [state.slots[name][keras_slot] for name in names]
            value = _read_concatenated(checkpoint, slot_names, variable)
            tf1_momentum = state.kind == "Momentum" and estimator.head == "v1"
            assign_slot(optimizer, variable, keras_slot, value, tf1_momentum)
    for part, optimizer in optimizers.items():
        optimizer.iterations.assign(estimator.global_step)
        if estimator.optimizers[part].kind == "Adam":
            _check_adam_step(checkpoint, estimator.optimizers[part], estimator.global_step, notes)
    return notes


def load_canned(path: str | os.PathLike) -> Conversion:
    """Recognise the canned Estimator checkpoint at `path` and return a model holding its full state."""
    tf.get_logger().setLevel("ERROR")  # feature columns' deprecation warnings say nothing to act on here
    checkpoint = LegacyCheckpoint(path)
    estimator = recognise(checkpoint)
    model = build_model(estimator)
    notes = assign_state(checkpoint, estimator, model)
    return Conversion(estimator, model, notes)


def _write_training_checkpoint(model: tf_keras.Model, directory: Path) -> str:
    step = model.optimizer.iterations
    checkpoint = tf.train.Checkpoint(model=model, optimizer=model.optimizer, step=step)
    manager = tf.train.CheckpointManager(checkpoint, str(directory), max_to_keep=None)
    return manager.save(checkpoint_number=int(step))


def _provenance(source: Path, conversion: Conversion, checkpoint_prefix: str) -> str:
    estimator = conversion.estimator
    return json.dumps({
        "source": str(source.absolute()),
        "estimator": estimator.estimator_name,
        "global_step": estimator.global_step,
        "checkpoint": os.path.basename(checkpoint_prefix),
        "optimizers": {part: state.kind for part, state in estimator.optimizers.items()},
        "features": {part: {k: list(v) for k, v in f.items()} for part, f in estimator.features.items()},
        "notes": conversion.notes,
    }, indent=1) + "\n"


def convert_checkpoint(path: str | os.PathLike, out: str | os.PathLike | None = None) -> tuple[Conversion, Path]:
    """Convert the Estimator checkpoint at `path` into `out` (a new directory) or, with None, in place.

    Returns the conversion and the directory written. Nothing is left half-written: `out` appears only
    when complete, and in place the state file is switched last, in one rename.
    """
    source = Path(path)
    conversion = load_canned(source)
    legacy_prefix = LegacyCheckpoint(source).prefix
    if out is not None:
        return conversion, _write_new_directory(Path(out), source, conversion)
    return conversion, _write_in_place(legacy_prefix.parent, source, conversion)


def _write_new_directory(out: Path, source: Path, conversion: Conversion) -> Path:
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise CheckpointError(f"{out}: already exists and is not empty; choose a new --out directory")
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    umask = os.umask(0)
    os.umask(umask)
    staging.chmod(0o777 & ~umask)  # mkdtemp makes it private; the result is an ordinary directory
    try:
        prefix = _write_training_checkpoint(conversion.model, staging)
        canned.inference_model(conversion.model).save(staging / MODEL_FILE)
        (staging / PROVENANCE_FILE).write_text(_provenance(source, conversion, prefix))
        if out.exists():
            out.rmdir()
        staging.rename(out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return out


def _write_in_place(model_dir: Path, source: Path, conversion: Conversion) -> Path:
    staging = Path(tempfile.mkdtemp(prefix=".convert-checkpoint.", dir=model_dir))
    try:
        prefix = _write_training_checkpoint(conversion.model, staging)
        canned.inference_model(conversion.model).save(staging / MODEL_FILE)
        (staging / PROVENANCE_FILE).write_text(_provenance(source, conversion, prefix))
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
    return model_dir
