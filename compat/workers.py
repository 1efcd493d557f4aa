"""What exact resume needs from a distribution strategy: who saves where, agreement, replaying the input.

Under `MultiWorkerMirroredStrategy` every worker runs the same `fit` and holds the same variables. A backup
is written by every worker (saving may read sync-on-read variables through a collective, which needs them
all), but only the chief's lands in `backup_dir`; the others write to a scratch directory inside it and
delete it (as tf_keras's BackupAndRestore does). Every worker restores from the chief's backups.

Stopping on preemption must happen at the same step on every worker, or the others wait forever in the
next step's collective: the signal is seen by one worker, so each step carries a collective "does any
worker want to stop" (`StopAgreement`).

A distributed iterator (TensorFlow's `DistributedIterator`: one multi-device iterator per worker) cannot be
checkpointed, so its position is replayed: the same number of iterators is made again (each one draws the
next epoch's shuffle seeds from the dataset's seed generator, so the n-th iterator of a run has the n-th
epoch's order) and the batches already trained are skipped. TensorFlow keeps no link from an iterator
back to its distributed dataset, so `another_iterator` remakes one from the iterator's own per-worker
datasets: the tf.distribute internals this takes are kept here, in one place.
"""

from __future__ import annotations

import copy
import os

import tensorflow as tf


def worker_count(strategy: tf.distribute.Strategy) -> int:
    """How many worker processes train together (1 without a multi-worker cluster)."""
    resolver = getattr(strategy, "cluster_resolver", None)
    if resolver is None:
        return 1
    cluster = resolver.cluster_spec()
    return max(1, sum(cluster.num_tasks(job) for job in ("chief", "worker") if job in cluster.jobs))


def is_chief(strategy: tf.distribute.Strategy) -> bool:
    """Whether this process writes the backups everyone restores from."""
    return strategy.extended.should_checkpoint


def scratch_dir(backup_dir: str, strategy: tf.distribute.Strategy) -> str:
    """Where a non-chief worker writes its (discarded) copy of each backup."""
    resolver = strategy.cluster_resolver
    return os.path.join(backup_dir, f"workertemp_{resolver.task_type}_{resolver.task_id}")


class StopAgreement:
    """Runs a train function together with a collective "does any worker want to stop".

    `step(iterator, wants_to_stop)` runs one step of `train_function` and returns its logs; `agreed` is
    then True on every worker as soon as one of them wanted to stop. The flag's all-reduce is in the same
    `tf.function` as the step's own collectives: measured, a separate call for it cost ~15 ms a step on two
    workers of this machine (more than the step itself).
    """

    def __init__(self, strategy: tf.distribute.Strategy, train_function):
        self.agreed = False

        @tf.function
        def step_and_agree(iterator, flag):
            logs = train_function(iterator)
            per_replica = strategy.experimental_distribute_values_from_function(lambda _: tf.identity(flag))
            return logs, strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

        self._step_and_agree = step_and_agree

    def step(self, iterator, wants_to_stop: bool):
        logs, total = self._step_and_agree(iterator, tf.constant(1.0 if wants_to_stop else 0.0))
        self.agreed = bool(total > 0)
        return logs


def is_distributed_iterator(iterator) -> bool:
    return isinstance(iterator, tf.distribute.DistributedIterator)


def another_iterator(iterator):
    """A new iterator of the distributed dataset `iterator` was made from, as `iter(dataset)` makes it.

    Making it draws the next shuffle seeds from the dataset's seed generator, exactly like `iter()`.
    """
    worker_iterators = getattr(iterator, "_iterators", None)
    if not worker_iterators or not all(hasattr(w, "_make_iterator") for w in worker_iterators):
        raise TypeError(f"exact resume cannot replay a {type(iterator).__name__}: it has no per-worker datasets")
    fresh = copy.copy(iterator)
    fresh._iterators = []
    for worker_iterator in worker_iterators:
        remade = copy.copy(worker_iterator)
        remade._make_iterator()
        fresh._iterators.append(remade)
    return fresh


def skip(iterator, batches: int) -> None:
    """Draw and drop `batches` batches (on every worker alike: the draws may run collectives)."""
    for _ in range(batches):
        next(iterator)
