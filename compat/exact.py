"""ExactBackupAndRestore: `BackupAndRestore` for `Model.fit` that resumes bit-exactly.

What a backup holds: the model (weights, and the state of every `tf.random.Generator` its layers own,
which is where dropout draws from once `tf_keras.backend.experimental.enable_tf_random_generator()` is
on), the optimizer (slots, iterations), the epoch and step to continue at, and the state of the
`tf.data` iterator `fit` was drawing from: its position, its shuffle buffer, and the seed its shuffle
draws the next epoch's order from. Restored, the run continues with the same batches and the same random
numbers it would have had: the final weights equal the uninterrupted run's.

Mechanism (why iterator checkpointing, not "replay the order and skip"): a `shuffle(...,
reshuffle_each_iteration=True)` draws each epoch's order from a seed generator shared by every iterator
of that dataset; TensorFlow saves that generator's position with the iterator, so restoring the
iterator also restores which order the following epochs get. Skipping would need to re-run the input
pipeline up to the position (time grows with the position) and cannot recover the per-epoch seeds.
The cost is the iterator's state in each checkpoint: for a shuffle, its buffer (up to `buffer_size`
elements); for `prefetch`, the prefetched elements. See docs/exact-resume.md.

How it hooks into `fit` (tf_keras 2.x): like tf_keras's own BackupAndRestore it sets
`model._training_state`, which `fit` asks for the epoch and step to start at; it wraps
`model.train_function` for the duration of `fit` to see the iterator each step is drawn from, restoring
the saved position into the first one. `fit` makes a new iterator each epoch for a finite dataset, so a
save due at the last step of an epoch is written when the next epoch's iterator exists, before its first
batch (nothing trains in between): its state holds that epoch's order.

Under a distribution strategy (MultiWorkerMirroredStrategy, MirroredStrategy) `fit` draws from a
DistributedIterator, which TensorFlow cannot checkpoint: the position is replayed instead (remake the
run's iterators, skip the batches drawn), every worker saves and only the chief's copy is kept, and a stop
on preemption is agreed by all workers in the step (compat/workers.py, docs/exact-resume.md).
"""

from __future__ import annotations

import os
import sys
import time

import tensorflow as tf
import tf_keras

from . import backup_listeners, preemption, resume, root_logging, timed_backup, workers


class ExactBackupAndRestore(tf_keras.callbacks.Callback):
    """Back up the full training state every `save_freq` steps (or each epoch); resume bit-exactly.

    Arguments as `tf_keras.callbacks.BackupAndRestore`, plus:
      max_to_keep: backups kept (at least 2, so a corrupt newest one falls back to the previous).
      async_save: write backups in the background (`tf.train.CheckpointOptions(enable_async=True)`).
      preemption_signals: signals that make training stop after the current step, save and exit with
        `compat.preemption.PREEMPTED_EXIT_CODE` (used when `save_before_preemption` is true, the default).
      save_secs: also back up whenever this many seconds have passed since the last backup (Estimator's
        `save_checkpoints_secs`; `save_freq=False, save_secs=N` saves on the clock only). One worker only.
    Integer `save_freq` counts steps across restarts (a backup at every multiple of it), so the cadence
    does not shift after a resume.
    """

    def __init__(
        self,
        backup_dir,
        save_freq="epoch",
        delete_checkpoint=True,
        save_before_preemption=True,
        *,
        max_to_keep=2,
        async_save=False,
        preemption_signals=preemption.DEFAULT_SIGNALS,
        save_secs=None,
    ):
        super().__init__()
        if save_freq not in ("epoch", False) and (not isinstance(save_freq, int) or save_freq < 1):
            raise ValueError(f"save_freq must be 'epoch', False or a positive integer, got {save_freq!r}")
        if save_secs is not None and save_secs <= 0:
            raise ValueError(f"save_secs must be a positive number of seconds, got {save_secs!r}")
        self.save_secs = save_secs
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq = save_freq
        self.delete_checkpoint = delete_checkpoint
        self.max_to_keep = max(2, max_to_keep)
        self.options = tf.train.CheckpointOptions(enable_async=async_save)
        self.watcher = preemption.PreemptionWatcher(preemption_signals) if save_before_preemption else None
        self._supports_tf_logs = True
        self._logs = None  # the last step's, for compat.backup_listeners

    # fit's protocol (model._training_state): where to start.
    def maybe_load_initial_counters_from_ckpt(self, steps_per_epoch, initial_epoch, mode=None):
        if self._restored is None:
            return initial_epoch, 0
        return self._next_epoch, self._next_step

    def on_train_begin(self, logs=None):
        self._steps_per_epoch = self.params.get("steps")
        if not self._steps_per_epoch:
            raise ValueError(
                "ExactBackupAndRestore needs the number of steps per epoch: pass steps_per_epoch= to fit or a "
                "dataset whose cardinality TensorFlow knows (dataset.apply(tf.data.experimental.assert_cardinality(n)))"
            )
        steps_per_execution = getattr(self.model, "_steps_per_execution", None)
        if steps_per_execution is not None and int(steps_per_execution.numpy()) != 1:
            raise ValueError("ExactBackupAndRestore needs compile(steps_per_execution=1): it follows fit step by step")
        strategy = self.model.distribute_strategy
        # Under a strategy fit draws from a DistributedIterator, which TensorFlow cannot checkpoint: its
        # position is replayed instead (compat.workers).
        self._replay = tf.distribute.has_strategy()
        # Async saves leave a tf.data iterator out (TF 2.21): its position goes beside, as data-N.
        self._data_beside = self.options.experimental_enable_async_checkpoint and not self._replay
        self._chief = workers.is_chief(strategy)
        self._scratch = None if self._chief else workers.scratch_dir(self.backup_dir, strategy)
        several = workers.worker_count(strategy) > 1
        if self.save_secs:
            timed_backup.refuse_several_workers(self.model, type(self).__name__)
        self._last_save = time.monotonic()
        self._agreement = None
        if self.watcher and several:
            self._agreement = workers.StopAgreement(strategy, self.model.train_function)
        self._generators = random_generators(self.model)
        self._epoch = tf.Variable(0, dtype=tf.int64, trainable=False)
        self._step_in_epoch = tf.Variable(0, dtype=tf.int64, trainable=False)
        self._global_step = tf.Variable(0, dtype=tf.int64, trainable=False)
        self._iterator_index = tf.Variable(0, dtype=tf.int64, trainable=False)
        self._batches_drawn = tf.Variable(0, dtype=tf.int64, trainable=False)
        self._checkpoint = self._state_root()
        self._manager = tf.train.CheckpointManager(self._checkpoint, self.backup_dir, max_to_keep=self.max_to_keep)
        self._writer = self._manager if self._chief else tf.train.CheckpointManager(self._checkpoint, self._scratch, 1)
        self._restored = resume.latest_valid_checkpoint(self._manager, self._companions)
        if self._restored is not None:
            # A separate root: restoring through self._checkpoint would leave a deferred restore that
            # rewinds every iterator later attached to it for saving.
            self._state_root().restore(self._restored).expect_partial()
        # Counted in Python between saves (no TensorFlow op per step); the variables are set at each save.
        self._step = int(self._global_step.numpy())
        self._next_epoch, self._next_step = int(self._epoch.numpy()), int(self._step_in_epoch.numpy())
        self._saved_step = self._step if self._restored else None
        # Which of the run's iterators fit draws from (it makes one per epoch) and how many batches it gave.
        self._next_iterator = int(self._iterator_index.numpy())
        self._iterator_number = self._drawn = 0
        self._fit_iterator = self._iterator = None
        self._save_pending = False
        self._original_train_function = self.model.train_function
        self.model.train_function = self._train_function
        self.model._training_state = self
        if self.watcher:
            self.watcher.start()

    def _state_root(self) -> tf.train.Checkpoint:
        return tf.train.Checkpoint(
            model=self.model,
            optimizer=self.model.optimizer,
            epoch=self._epoch,
            step_in_epoch=self._step_in_epoch,
            global_step=self._global_step,
            iterator_index=self._iterator_index,
            batches_drawn=self._batches_drawn,
            random_generators=self._generators,
        )

    def _train_function(self, iterator):
        if iterator is not self._fit_iterator:
            self._fit_iterator = iterator
            self._iterator_number, self._next_iterator = self._next_iterator, self._next_iterator + 1
            resuming = self._restored is not None
            self._drawn = int(self._batches_drawn.numpy()) if resuming else 0
            self._iterator = self._replayed(iterator, resuming) if self._replay else self._restored_into(iterator)
            self._restored = None
            if self._save_pending:
                self._save()
        if self._preempted():
            self._save_and_exit()
        self._drawn += 1
        if self._agreement is not None:
            return self._agreement.step(self._iterator, self.watcher.requested)
        return self._original_train_function(self._iterator)

    def _restored_into(self, iterator):
        """fit's tf.data iterator, set to the backed-up position; from now on part of every backup."""
        if not isinstance(iterator, tf.data.Iterator):
            raise TypeError(
                f"ExactBackupAndRestore checkpoints a tf.data.Iterator; fit gave {type(iterator).__name__}"
            )
        if not self._data_beside:
            # At once, not at the next save: holding on to the spent iterator of the previous epoch
            # made saves of a 25M-parameter model stall for 5-16 s instead of 0.65 s (measured).
            self._checkpoint.iterator = iterator
        if self._restored is not None:
            tf.train.Checkpoint(iterator=iterator).read(self._data_prefix(self._restored)).expect_partial()
        return iterator

    def _replayed(self, iterator, resuming: bool):
        """The iterator to train from under a strategy: on a resume, fit's first one is replaced by the
        iterator the backup was drawing from, remade (see compat.workers) and past the batches drawn."""
        if not workers.is_distributed_iterator(iterator):
            raise TypeError(f"ExactBackupAndRestore under a strategy expected a DistributedIterator, got {iterator!r}")
        if resuming:
            # fit's first iterator of this process has the first epoch's order; the n-th remade, the n-th's
            for _ in range(self._iterator_number):
                iterator = workers.another_iterator(iterator)
            workers.skip(iterator, self._drawn)
        return iterator

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        self._logs = logs
        self._step += 1
        due = self.save_freq not in ("epoch", False) and self._step % self.save_freq == 0
        due = due or bool(self.save_secs) and time.monotonic() - self._last_save >= self.save_secs
        if batch + 1 < self._steps_per_epoch:
            self._next_epoch, self._next_step = self._current_epoch, batch + 1
            if due or self._preempted():
                self._save()
            if self._preempted():
                self._save_and_exit()
        else:
            # The epoch's iterator is spent: the backup waits for the next epoch's (see the module doc).
            self._next_epoch, self._next_step = self._current_epoch + 1, 0
            self._save_pending = self._save_pending or due or self.save_freq == "epoch" or self._preempted()

    def on_train_end(self, logs=None):
        self._detach()
        if self._save_pending and (self._preempted() or not self.delete_checkpoint):
            self._move_to_next_iterator()
        if self._preempted():
            # Preempted during the last epoch's last step: training is complete, but the backup is what
            # tells the re-run so; keep it, and exit as documented.
            self._save_and_exit()
        self._checkpoint.sync()
        if self.delete_checkpoint:
            if self._chief and tf.io.gfile.exists(self.backup_dir):
                tf.io.gfile.rmtree(self.backup_dir)
        elif self._save_pending:
            self._save()
            self._checkpoint.sync()

    def _move_to_next_iterator(self) -> None:
        """The finished run's last iterator is spent: its backup holds the next one, for a later `fit`
        with more epochs (made as fit would make it, so it gets the next epoch's order)."""
        self._iterator_number, self._drawn = self._iterator_number + 1, 0
        if not self._replay:
            self._iterator = iter(self._iterator._dataset)  # tf.data keeps the dataset an iterator came from
            if not self._data_beside:
                self._checkpoint.iterator = self._iterator

    def _preempted(self) -> bool:
        if self._agreement is not None:
            return self._agreement.agreed  # every worker stops at the same step
        return self.watcher is not None and self.watcher.requested

    def _detach(self) -> None:
        self.model.train_function = self._original_train_function
        self.model._training_state = None
        if self.watcher:
            self.watcher.stop()

    def _save(self) -> None:
        step = self._step
        self._global_step.assign(step)
        self._epoch.assign(self._next_epoch)
        self._step_in_epoch.assign(self._next_step)
        self._iterator_index.assign(self._iterator_number)
        self._batches_drawn.assign(self._drawn)
        with root_logging.untouched():
            if self._data_beside:
                # TF 2.21's async saver drops iterators from the checkpoint (measured): the data position is
                # written first, synchronously, as `data-N`; ckpt-N is only valid with it (`_companions`).
                tf.train.Checkpoint(iterator=self._iterator).write(self._data_prefix(f"ckpt-{step}"))
            self._save_pending = False
            self._saved_step = step
            self._last_save = time.monotonic()  # as Estimator's timer: restarted when a save begins
            # Every worker saves the same way (the save runs collectives); only the chief's copy is kept.
            self._writer.save(checkpoint_number=step, options=self.options)
        if self._chief:
            self._remove_stale_data_positions()
        else:
            self._checkpoint.sync()
            tf.io.gfile.rmtree(self._scratch)
        if backup_listeners.active():
            self._checkpoint.sync()  # an asynchronous save is complete before anyone copies it
            backup_listeners.backed_up(self.backup_dir, step, self._logs)

    def _data_prefix(self, checkpoint_prefix: str) -> str:
        """Where the iterator of `checkpoint_prefix` is: inside it, or (async saves) in data-N beside it."""
        if not self._data_beside:
            return checkpoint_prefix
        return os.path.join(self.backup_dir, "data-" + checkpoint_prefix.rsplit("-", 1)[1])

    def _companions(self, checkpoint_prefix: str) -> list[str]:
        data = self._data_prefix(checkpoint_prefix)
        return [data] if data != checkpoint_prefix else []

    def _remove_stale_data_positions(self) -> None:
        if not self._data_beside or not self._manager.checkpoints:
            return
        oldest = int(self._manager.checkpoints[0].rsplit("-", 1)[1])
        for path in tf.io.gfile.glob(os.path.join(self.backup_dir, "data-*.index")):
            step = int(os.path.basename(path)[len("data-") : -len(".index")])
            if step < oldest:
                for part in tf.io.gfile.glob(path[: -len(".index")] + ".*"):
                    tf.io.gfile.remove(part)

    def _save_and_exit(self):
        if self._saved_step != self._step or self._save_pending:
            self._save()
        self._checkpoint.sync()
        self._detach()
        received = self.watcher.received
        reason = f"signal {received}" if received else "another worker's preemption signal"
        print(
            f"ExactBackupAndRestore: stopped by {reason} after step "
            f"{self._step}; saved ckpt-{self._saved_step} in {self.backup_dir}; exiting with "
            f"{preemption.PREEMPTED_EXIT_CODE}",
            file=sys.stderr,
            flush=True,
        )
        raise SystemExit(preemption.PREEMPTED_EXIT_CODE)


def random_generators(model) -> list[tf.random.Generator]:
    """The `tf.random.Generator` of every random layer (dropout, noise, ...), created if still lazy.

    tf_keras keeps these out of the layers' checkpoints on purpose (backward compatibility), so an exact
    checkpoint lists them itself (`tf.train.Checkpoint(..., random_generators=random_generators(model))`).
    Layers on the global stateful RNG are refused: no checkpoint can hold its state. Reaching the
    generators takes tf_keras internals (`layer._random_generator`), kept here in one place.
    """
    generators = []
    for layer in model.submodules:
        random = getattr(layer, "_random_generator", None)
        kind = getattr(random, "_rng_type", None)
        if kind == "legacy_stateful":
            raise ValueError(
                f"exact resume: layer {layer.name!r} draws random numbers from TensorFlow's global "
                "RNG, whose state no checkpoint holds; call "
                "tf_keras.backend.experimental.enable_tf_random_generator() before building the model"
            )
        if kind == "stateful":
            random._maybe_init()
            generators.append(random._generator)
    return generators
