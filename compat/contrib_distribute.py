"""tf.contrib.distribute's single-machine strategies, for the RunConfig(train_distribute=...) of code the rewrite
migrates (`tf.contrib.distribute.MirroredStrategy(num_gpus=...)`; codemods/rules/contrib_modules.py).

TensorFlow 1.15's contrib MirroredStrategy was core's with a device count (`num_gpus`, `num_gpus_per_worker`) and one
difference: it took each input batch as one replica's, where core's (TensorFlow 2's) splits a batch across the
replicas. With one replica (one GPU, or the CPU on a machine with none) the two are the same strategy, and that is
what this gives; over several devices the same program would train on batches of another size, so it is one error.
OneDeviceStrategy was core's.
"""

from __future__ import annotations

import tensorflow as tf

OneDeviceStrategy = tf.compat.v1.distribute.OneDeviceStrategy


def MirroredStrategy(devices=None, num_gpus=None, num_gpus_per_worker=None, cross_device_ops=None,  # noqa: N802
                     auto_shard_dataset=False, cross_tower_ops=None):
    """tf.contrib.distribute.MirroredStrategy's arguments: the devices given, else `num_gpus` GPUs (0: the CPU), else
    every local GPU (the CPU when there is none), as a TensorFlow 2 MirroredStrategy of one replica (more: one
    error)."""
    del auto_shard_dataset  # (contrib sharded input across workers only: one machine here)
    if cross_device_ops is not None and cross_tower_ops is not None:
        raise ValueError("tf.contrib.distribute.MirroredStrategy: give cross_device_ops or cross_tower_ops, not both")
    if num_gpus is not None and num_gpus_per_worker is not None:
        raise ValueError("tf.contrib.distribute.MirroredStrategy: you cannot specify both `num_gpus` and "
                         "`num_gpus_per_worker`.")
    count = num_gpus if num_gpus is not None else num_gpus_per_worker
    if devices is None:  # as TensorFlow 1.15 chose them: `num_gpus` GPUs, whether or not the machine has them
        if count is None:
            count = len(tf.config.list_logical_devices("GPU"))
        devices = tuple(f"/device:GPU:{i}" for i in range(count)) or ("/device:CPU:0",)
    elif count is not None:
        raise ValueError("tf.contrib.distribute.MirroredStrategy: must only specify one of `devices` and "
                         "`num_gpus_per_worker`.")
    devices = tuple(devices)
    if len(devices) != 1:
        raise ValueError(
            f"tf.contrib.distribute.MirroredStrategy over {len(devices)} devices ({', '.join(devices)}): contrib's "
            "strategy gave each replica a whole input batch, TensorFlow 2's splits each batch across the replicas, so "
            "the migrated training would take other steps; use tf.distribute.MirroredStrategy by hand (its batches are "
            f"global: multiply the input_fn's batch size by {len(devices)}), or one device"
        )
    return tf.distribute.MirroredStrategy(devices=devices, cross_device_ops=cross_device_ops or cross_tower_ops)
