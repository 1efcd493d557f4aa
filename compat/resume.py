"""What migrated programs call to resume from their model_dir: the newest checkpoint that reads back whole.

Crash safety. `tf.train.Checkpoint.write` stages its files and the `CheckpointManager` names a checkpoint
in its state file (written atomically) only after the checkpoint itself, so a process killed mid-save
normally leaves the previous checkpoint as the latest. What that cannot cover (a disk that filled up, a
copy cut short, a bit flipped, an async save whose data never reached the disk, a file deleted by hand)
is caught here: before anything is restored, every tensor of the newest checkpoint is read back, which
checks the index, the presence and length of the data files and every tensor's CRC32C. A checkpoint that
fails is skipped with one warning naming it and the error, and the next newest is used.

An Estimator's model_dir names its `model.ckpt-N` in the `checkpoint` state file, so a migrated program
started on it unconverted would find that name-based checkpoint as its latest: `tf.train.Checkpoint`
restores nothing from it without a word, training starts over at step 0, and the `CheckpointManager`,
which sweeps what its state file lists, would delete the Estimator's checkpoints as it saves new ones.
"""

from __future__ import annotations

import logging
import os
import re
import warnings

import tensorflow as tf

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


log = logging.getLogger(__name__)

class EstimatorCheckpointError(RuntimeError):
    """The model_dir holds an Estimator checkpoint that must be converted before training resumes."""


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
    """Restore the newest readable checkpoint into `checkpoint`; an Estimator's name-based one only into a
    wrapped model_fn (compat.wrapped_model_fns, whose variables exist), refused otherwise.

    Returns the restore status, or None when there is nothing to restore (a fresh model_dir).
    """
    latest = latest_valid_checkpoint(manager)
    if latest is None:
        return None
    if not tf.train.load_checkpoint(latest).has_tensor(OBJECT_GRAPH_KEY):
        model = getattr(checkpoint, "model", None)
        if hasattr(model, "load_estimator_checkpoint"):  # a wrapped model_fn keeps the TF1 names: by name
            step = model.load_estimator_checkpoint(latest)
            log.info("Continuing the Estimator's checkpoint %s at step %d", latest, step + 1)
            return step
        how = _how_to_convert(model, manager.directory)
        raise EstimatorCheckpointError(
            f"{latest} is an Estimator checkpoint; convert it first with {how} (restoring it here would "
            "silently start over at step 0 and later delete the Estimator's checkpoints)"
        )
    return checkpoint.restore(latest)


def restore(checkpoint: tf.train.Checkpoint, prefix: str):
    """Restore the checkpoint at `prefix`, as a migrated `tf.compat.v1.train.Saver.restore(sess, prefix)`:
    every variable of the model and its optimizer must be in it (Saver.restore failed otherwise). Refuses a
    TF1 name-based checkpoint (the Saver's own, before migration), which `tf.train.Checkpoint` would not
    restore. Returns the restore status."""
    if prefix is None:
        raise ValueError("Can't load save_path when it is None.")  # Saver.restore's error
    if not tf.train.load_checkpoint(prefix).has_tensor(OBJECT_GRAPH_KEY):
        how = _how_to_convert(getattr(checkpoint, "model", None), os.path.dirname(prefix) or ".")
        raise EstimatorCheckpointError(
            f"{prefix} is a TF1 checkpoint written by a tf.compat.v1.train.Saver; convert it first with {how}"
        )
    return checkpoint.restore(prefix).assert_existing_objects_matched()


def _how_to_convert(model, model_dir: str) -> str:
    """What converts an Estimator checkpoint for this model: the command, or a call with the program's model."""
    if hasattr(model, "make_variables"):  # a migrated model_fn
        module = "model_fns"
    else:
        from compat import canned  # only here: migrated custom loops need no tf_keras feature-column code

        if not canned.has_categorical_features(model):
            return f"`migrate convert-checkpoint {model_dir}`"
        module = "canned_checkpoint"
    return f"compat.{module}.convert_estimator_checkpoint(model, estimator_dir, new_model_dir) and train in new_model_dir"
