"""What migrated programs call to resume from their model_dir: the newest checkpoint that reads back whole.

Crash safety. `tf.train.Checkpoint.write` stages its files and the `CheckpointManager` names a checkpoint
in its state file (written atomically) only after the checkpoint itself, so a process killed mid-save
normally leaves the previous checkpoint as the latest. What that cannot cover (a disk that filled up, a
copy cut short, a bit flipped, an async save whose data never reached the disk, a file deleted by hand)
is caught here: before anything is restored, every tensor of the newest checkpoint is read back, which
checks the index, the presence and length of the data files and every tensor's CRC32C. A checkpoint that
fails is skipped with one warning naming it and the error, and the next newest is used.

Carry-over. An Estimator's model_dir names its `model.ckpt-N` in the `checkpoint` state file, so a migrated
program started on it finds that name-based checkpoint as its latest. `tf.train.Checkpoint` would restore
nothing from it without a word, so it is loaded by name instead (weights, optimizer slots, the step) into
whatever model the rewrite emitted: a `compat.canned` model, a migrated model_fn class or a wrapped model_fn.
Training continues at N + 1 and says so in one log line. The Estimator's files are never written or deleted;
its state file, which the manager's first save replaces, is first copied to `checkpoint.estimator`.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import tempfile
import warnings

import tensorflow as tf

from .legacy_checkpoint import STATE_FILE, CheckpointError

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
# The step of an Estimator made by model_to_estimator, whose checkpoints are object-based (compat.keras_estimators)
ESTIMATOR_STEP_KEY = "estimator_global_step/.ATTRIBUTES/VARIABLE_VALUE"
ESTIMATOR_STATE_BACKUP = "checkpoint.estimator"  # the Estimator's state file, kept when a TF2 one replaces it


log = logging.getLogger(__name__)

class EstimatorCheckpointError(RuntimeError):
    """The model_dir holds an Estimator checkpoint that this model cannot continue from."""


class CorruptCheckpointWarning(UserWarning):
    """The newest checkpoint(s) could not be read back; an older one is used."""


def verify_checkpoint(prefix: str) -> None:
    """Read every tensor of the checkpoint at `prefix`; raises `tf.errors.OpError` if any is bad."""
    reader = tf.train.load_checkpoint(prefix)
    # RestoreV2, not reader.get_tensor: a tf.data iterator's state is a variant tensor numpy cannot hold.
    for name, dtype in reader.get_variable_to_dtype_map().items():
        tf.raw_ops.RestoreV2(prefix=prefix, tensor_names=[name], shape_and_slices=[""], dtypes=[dtype])


def latest_valid_checkpoint(manager: tf.train.CheckpointManager, companions=None) -> str | None:
    """The newest checkpoint `manager` lists that reads back whole; one warning for those skipped.

    `companions(prefix)`, if given, names further checkpoints that belong to `prefix` and must read too.
    """
    skipped = []
    for prefix in reversed(_listed_checkpoints(manager.directory)):
        try:
            for part in [prefix, *(companions(prefix) if companions else [])]:
                verify_checkpoint(part)
        except tf.errors.OpError as error:
            skipped.append(f"{prefix} ({type(error).__name__}: {_first_line(error.message)})")
            continue
        if skipped:
            _warn_skipped(skipped, f"resuming from {prefix}")
        return prefix
    if skipped:
        _warn_skipped(skipped, "no readable checkpoint is left: starting from scratch")
    return None


def _listed_checkpoints(directory: str) -> list[str]:
    """The checkpoints the directory's state file names, oldest first, the latest last.

    Read from the state file rather than `manager.checkpoints`, which leaves out checkpoints written
    without timestamps (an Estimator's, a converted one's) that the manager does not own.
    """
    state = tf.train.get_checkpoint_state(directory)
    if state is None:
        return []
    listed = [path for path in state.all_model_checkpoint_paths if path != state.model_checkpoint_path]
    # (get_checkpoint_state has already joined relative paths to the directory)
    return [*listed, state.model_checkpoint_path] if state.model_checkpoint_path else listed


def _first_line(message: str) -> str:
    """An op error's message without TensorFlow's function-node and op decorations."""
    message = re.sub(r"\{\{function_node [^}]*\}\}\s*|\s*\[Op:\w+\]", "", message)
    return message.strip().splitlines()[0]


def _warn_skipped(skipped: list[str], outcome: str) -> None:
    warnings.warn(f"unreadable checkpoint skipped: {'; '.join(skipped)}; {outcome}", CorruptCheckpointWarning, 3)


def restore_latest(checkpoint: tf.train.Checkpoint, manager: tf.train.CheckpointManager):
    """Restore the newest readable checkpoint into `checkpoint`; an Estimator's name-based one is carried
    over into `checkpoint.model` (`carry_over`).

    Returns the restore status (the step, for a carried-over checkpoint), or None when there is nothing to
    restore (a fresh model_dir).
    """
    latest = latest_restorable(manager)
    if latest is None:
        return None
    if estimator_checkpoint(latest):
        step = carry_over(getattr(checkpoint, "model", None), latest)
        _keep_estimator_state_file(manager.directory)
        # A warning, so that it shows without logging configured: the model_dir's state file changes hands.
        log.warning("Continuing the Estimator's checkpoint %s at step %d", latest, step + 1)
        return step
    return checkpoint.restore(latest)


def latest_restorable(manager: tf.train.CheckpointManager) -> str | None:
    """The checkpoint `restore_latest` restores: an Estimator's model_dir's newest (taken over), else the newest of
    the manager's that reads back; None for a fresh model_dir."""
    return _taken_over_checkpoint(manager.directory) or latest_valid_checkpoint(manager)


def _taken_over_checkpoint(directory: str) -> str | None:
    """The newest checkpoint of a model_dir whose state file no migrated program has written yet (an
    Estimator's, a TF1 Saver's, or convert-checkpoint's: only a CheckpointManager stamps times), once every
    tensor of it reads back; None for a model_dir the program has saved in (or an empty one).

    Such a checkpoint is the Estimator's work: when it does not read, the program stops with one
    `CheckpointError` rather than fall back to an older one or start over, and no file is changed.
    """
    state = tf.train.get_checkpoint_state(directory)
    if state is None or not state.model_checkpoint_path or state.all_model_checkpoint_timestamps:
        return None
    prefix = state.model_checkpoint_path
    try:
        verify_checkpoint(prefix)
    except tf.errors.OpError as error:
        raise CheckpointError(
            f"{prefix}: the Estimator's newest checkpoint cannot be read ({type(error).__name__}: "
            f"{_first_line(error.message)}); nothing was loaded and no file was changed: restore it, or name an "
            f"earlier model.ckpt-N in {os.path.join(directory, STATE_FILE)}"
        ) from None
    return prefix


def estimator_checkpoint(prefix: str) -> bool:
    """Whether the checkpoint at `prefix` is an Estimator's (or a TF1 Saver's): name-based, or the object-based
    one of a model_to_estimator model. `tf.train.Checkpoint(model=...)` would restore nothing from either."""
    reader = tf.train.load_checkpoint(prefix)
    return not reader.has_tensor(OBJECT_GRAPH_KEY) or reader.has_tensor(ESTIMATOR_STEP_KEY)


def carry_over(model, prefix: str) -> int:
    """Load the Estimator (or TF1 Saver) checkpoint at `prefix` into `model` by its TF1 names: weights,
    optimizer slots and step, all or nothing. Returns the step. `CheckpointError` names what does not map."""
    # a wrapped model_fn (compat.wrapped_model_fns), a model_to_estimator model (compat.keras_estimators)
    if hasattr(model, "load_estimator_checkpoint"):
        return model.load_estimator_checkpoint(prefix)
    from . import canned, model_fns  # only here: migrated custom loops need no feature-column code

    if isinstance(model, model_fns.EstimatorModel):
        if not model.built:
            raise EstimatorCheckpointError(
                f"{prefix} is an Estimator checkpoint; the model's variables must exist to load it by name: "
                "call model.make_variables(...) before restoring"
            )
        return model_fns.load_estimator_checkpoint(model, prefix).global_step or 0
    if isinstance(model, canned.CannedHead):
        from . import canned_checkpoint

        return canned_checkpoint.load_estimator_checkpoint(model, prefix).global_step or 0
    raise EstimatorCheckpointError(
        f"{prefix} is a TF1 name-based checkpoint and {type(model).__name__} is not a model `migrate rewrite` "
        "emits (compat.canned, compat.model_fns, compat.wrapped_model_fns): load it with "
        "compat.load.load_legacy_checkpoint(prefix, model, optimizer, name_map)"
    )


def _keep_estimator_state_file(directory: str) -> None:
    """Copy the Estimator's state file to `checkpoint.estimator` (atomically, once): the manager's first save
    replaces `checkpoint` with its own, which lists only TF2 checkpoints. (The manager deletes none of the
    Estimator's checkpoints: it sweeps only those its state file stamps newer than its last preserved time,
    and a TF1 Saver's state file stamps none.)"""
    backup = os.path.join(directory, ESTIMATOR_STATE_BACKUP)
    if os.path.exists(backup):
        return
    with (open(os.path.join(directory, STATE_FILE), "rb") as state,
          tempfile.NamedTemporaryFile(dir=directory, prefix=".checkpoint.estimator.", delete=False) as staged):
        shutil.copyfileobj(state, staged)
    os.replace(staged.name, backup)


def restore(checkpoint: tf.train.Checkpoint, prefix: str):
    """Restore the checkpoint at `prefix`, as a migrated `tf.compat.v1.train.Saver.restore(sess, prefix)`:
    every variable of the model and its optimizer must be in it (Saver.restore failed otherwise). A TF1
    name-based checkpoint (the Saver's own, before migration) is loaded by name (`carry_over`). Returns the
    restore status (the step, for a name-based checkpoint)."""
    if prefix is None:
        raise ValueError("Can't load save_path when it is None.")  # Saver.restore's error
    if estimator_checkpoint(prefix):
        return carry_over(getattr(checkpoint, "model", None), prefix)
    return checkpoint.restore(prefix).assert_existing_objects_matched()
