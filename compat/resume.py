"""What migrated programs call to resume from their model_dir.

An Estimator's model_dir names its `model.ckpt-N` in the `checkpoint` state file, so a migrated program
started on it unconverted would find that name-based checkpoint as its latest: `tf.train.Checkpoint`
restores nothing from it without a word, training starts over at step 0, and the `CheckpointManager`,
which sweeps what its state file lists, would delete the Estimator's checkpoints as it saves new ones.
"""

from __future__ import annotations

import tensorflow as tf

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


class EstimatorCheckpointError(RuntimeError):
    """The model_dir holds an Estimator checkpoint that must be converted before training resumes."""


def restore_latest(checkpoint: tf.train.Checkpoint, manager: tf.train.CheckpointManager):
    """`checkpoint.restore(manager.latest_checkpoint)`, refusing an Estimator's name-based checkpoint."""
    latest = manager.latest_checkpoint
    if latest is not None and not tf.train.load_checkpoint(latest).has_tensor(OBJECT_GRAPH_KEY):
        raise EstimatorCheckpointError(
            f"{latest} is an Estimator checkpoint; convert it first with "
            f"`migrate convert-checkpoint {manager.directory}` (restoring it here would silently start "
            "over at step 0 and later delete the Estimator's checkpoints)"
        )
    return checkpoint.restore(latest)
