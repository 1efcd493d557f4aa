"""Reading an Estimator's name-based `model.ckpt-N` checkpoint, one tensor at a time.

`LegacyCheckpoint` opens a model_dir (through its `checkpoint` state file) or a `model.ckpt-N` prefix,
lists every variable with its shape and dtype, and reads tensors on demand, so memory stays bounded by the
largest tensor. Every way a checkpoint can be wrong (missing, truncated, corrupt, a TF2 object-based
checkpoint, not a checkpoint at all) becomes one `CheckpointError` line naming the file. Nothing is
unpickled or executed: the index and the state file are protocol buffers read by TensorFlow's own reader.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import tensorflow as tf

STATE_FILE = "checkpoint"
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
# What TensorFlow's checkpoint reader raises on damaged files (IndexError: a data file shorter than its index says).
# The flag the Estimator's early-stopping hooks add to the graph (the migrated callbacks need no variable for it)
EARLY_STOPPING_FLAG = "signal_early_stopping/STOP"
# What an Estimator's training adds beside the model's weights, the step and the optimizer slots: Adam's
# bias-correction powers, and the early-stopping flag.
TRAINING_STATE = re.compile(rf"(^|/)beta[12]_power(_\d+)?$|^{re.escape(EARLY_STOPPING_FLAG)}$")
_READ_ERRORS = (tf.errors.OpError, ValueError, RuntimeError, IndexError, OSError)
_SUFFIX = re.compile(r"\.(index|meta|data-\d{5}-of-\d{5})$")


class CheckpointError(ValueError):
    """A checkpoint that cannot be read or converted; the message is one line naming the file."""


def _first_line(error: Exception) -> str:
    text = str(getattr(error, "message", "") or error).strip()
    return text.splitlines()[0] if text else type(error).__name__


@dataclass(frozen=True)
class CheckpointState:
    """What a model_dir's `checkpoint` state file says: the latest prefix and all it keeps."""

    model_dir: Path
    latest: Path
    all_paths: tuple[Path, ...]


def read_state(model_dir: Path) -> CheckpointState:
    """Parse `model_dir/checkpoint` (a text protocol buffer), resolving relative paths against model_dir."""
    model_dir = model_dir.absolute()
    state_file = model_dir / STATE_FILE
    if not model_dir.is_dir():
        raise CheckpointError(f"{model_dir}: no such directory")
    if not state_file.is_file():
        raise CheckpointError(f"{model_dir}: no `checkpoint` state file (is this an Estimator model_dir?)")
    try:
        state = tf.train.get_checkpoint_state(str(model_dir))
    except (tf.errors.OpError, ValueError) as error:  # text_format.ParseError is a ValueError
        raise CheckpointError(f"{state_file}: not a checkpoint state file ({_first_line(error)})") from None
    if state is None or not state.model_checkpoint_path:
        raise CheckpointError(f"{state_file}: names no checkpoint")

    # get_checkpoint_state has already joined relative paths onto the directory it was given.
    return CheckpointState(
        model_dir, Path(state.model_checkpoint_path), tuple(Path(p) for p in state.all_model_checkpoint_paths)
    )


def resolve_prefix(path: str | os.PathLike) -> Path:
    """The checkpoint prefix for a model_dir (its latest checkpoint), a prefix, or one of its files."""
    path = Path(path).absolute()
    if path.is_dir():
        return read_state(path).latest
    prefix = path.with_name(_SUFFIX.sub("", path.name))
    if Path(f"{prefix}.index").is_file():
        return prefix
    if path.exists():
        raise CheckpointError(f"{path}: not a checkpoint (no {prefix.name}.index beside it)")
    raise CheckpointError(f"{path}: no such checkpoint or directory")


class LegacyCheckpoint:
    """An Estimator's name-based checkpoint: names, shapes and dtypes up front, tensors on demand."""

    def __init__(self, path: str | os.PathLike):
        self.prefix = resolve_prefix(path)
        index = Path(f"{self.prefix}.index")
        if not index.is_file():
            raise CheckpointError(f"{self.prefix}: the state file names it, but {index.name} is missing")
        try:
            self._reader = tf.train.load_checkpoint(str(self.prefix))
            self.shapes = {k: tuple(v) for k, v in self._reader.get_variable_to_shape_map().items()}
            self.dtypes = {k: v.base_dtype for k, v in self._reader.get_variable_to_dtype_map().items()}
        except _READ_ERRORS as error:
            raise CheckpointError(f"{index}: not a readable checkpoint index ({_first_line(error)})") from None
        if OBJECT_GRAPH_KEY in self.shapes:
            raise CheckpointError(
                f"{self.prefix}: a TF2 object-based checkpoint (tf.train.Checkpoint), not an Estimator's "
                "name-based one; restore it with tf.train.Checkpoint.restore"
            )
        if not self.shapes:
            raise CheckpointError(f"{self.prefix}: the checkpoint holds no variables")

    @property
    def meta_graph_file(self) -> Path:
        return Path(f"{self.prefix}.meta")

    def read(self, name: str) -> np.ndarray:
        """One tensor, read from the data file now; a truncated or corrupt data file is a CheckpointError."""
        if name not in self.shapes:
            raise CheckpointError(f"{self.prefix}: no variable {name}")
        try:
            return self._reader.get_tensor(name)
        except _READ_ERRORS as error:
            raise CheckpointError(f"{self.prefix}: cannot read {name} ({_first_line(error)})") from None

    def read_tensor(self, name: str) -> tf.Tensor:
        """One tensor as a TensorFlow tensor, read by RestoreV2 without a NumPy copy (for streaming)."""
        if name not in self.shapes:
            raise CheckpointError(f"{self.prefix}: no variable {name}")
        try:
            (tensor,) = tf.raw_ops.RestoreV2(
                prefix=str(self.prefix), tensor_names=[name], shape_and_slices=[""], dtypes=[self.dtypes[name]]
            )
        except _READ_ERRORS as error:
            raise CheckpointError(f"{self.prefix}: cannot read {name} ({_first_line(error)})") from None
        return tensor

    def nbytes(self, name: str) -> int:
        return int(np.prod(self.shapes[name], dtype=np.int64)) * self.dtypes[name].size

    @property
    def global_step(self) -> int | None:
        return int(self.read("global_step")) if "global_step" in self.shapes else None
