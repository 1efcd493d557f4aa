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
"""

from __future__ import annotations

import os
import sys

import tensorflow as tf
import tf_keras

from compat import preemption, resume


class ExactBackupAndRestore(tf_keras.callbacks.Callback):
    """Back up the full training state every `save_freq` steps (or each epoch); resume bit-exactly.

    Arguments as `tf_keras.callbacks.BackupAndRestore`, plus:
      max_to_keep: backups kept (at least 2, so a corrupt newest one falls back to the previous).
      async_save: write backups in the background (`tf.train.CheckpointOptions(enable_async=True)`).
      preemption_signals: signals that make training stop after the current step, save and exit with
        `compat.preemption.PREEMPTED_EXIT_CODE` (used when `save_before_preemption` is true, the default).
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
    ):
        super().__init__()
        if save_freq not in ("epoch", False) and (not isinstance(save_freq, int) or save_freq < 1):
            raise ValueError(f"save_freq must be 'epoch', False or a positive integer, got {save_freq!r}")
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq = save_freq
        self.delete_checkpoint = delete_checkpoint
        self.max_to_keep = max(2, max_to_keep)
        self.options = tf.train.CheckpointOptions(enable_async=async_save)
        self.watcher = preemption.PreemptionWatcher(preemption_signals) if save_before_preemption else None
        self._supports_tf_logs = True

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
        self._generators = random_generators(self.model)
        self._epoch = tf.Variable(0, dtype=tf.int64, trainable=False)
        self._step_in_epoch = tf.Variable(0, dtype=tf.int64, trainable=False)
        self._global_step = tf.Variable(0, dtype=tf.int64, trainable=False)
        self._checkpoint = self._state_root()
        self._manager = tf.train.CheckpointManager(self._checkpoint, self.backup_dir, max_to_keep=self.max_to_keep)
        self._restored = resume.latest_valid_checkpoint(self._manager, self._companions)
        if self._restored is not None:
            # A separate root: restoring through self._checkpoint would leave a deferred restore that
            # rewinds every iterator later attached to it for saving.
            self._state_root().restore(self._restored).expect_partial()
        # Counted in Python between saves (no TensorFlow op per step); the variables are set at each save.
        self._step = int(self._global_step.numpy())
        self._next_epoch, self._next_step = int(self._epoch.numpy()), int(self._step_in_epoch.numpy())
        self._saved_step = self._step if self._restored else None
        self._iterator = None
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
            random_generators=self._generators,
        )

    def _train_function(self, iterator):
        if iterator is not self._iterator:
            if not isinstance(iterator, tf.data.Iterator):
                raise TypeError(
                    f"ExactBackupAndRestore checkpoints a tf.data.Iterator; fit gave {type(iterator).__name__} "
                    "(distribution strategies are not supported: TensorFlow cannot checkpoint distributed "
                    "iterators; use tf_keras.callbacks.BackupAndRestore there)"
                )
            self._iterator = iterator
            if not self.options.experimental_enable_async_checkpoint:
                # At once, not at the next save: holding on to the spent iterator of the previous epoch
                # made saves of a 25M-parameter model stall for 5-16 s instead of 0.65 s (measured).
                self._checkpoint.iterator = iterator
            if self._restored is not None:
                tf.train.Checkpoint(iterator=iterator).read(self._data_prefix(self._restored)).expect_partial()
                self._restored = None
            if self._save_pending:
                self._save()
        if self._preempted():
            self._save_and_exit()
        return self._original_train_function(iterator)

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        self._step += 1
        due = self.save_freq not in ("epoch", False) and self._step % self.save_freq == 0
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
        if self._preempted():
            # Preempted during the last epoch's last step: training is complete, but the backup is what
            # tells the re-run so; keep it, and exit as documented.
            self._save_and_exit()
        self._checkpoint.sync()
        if self.delete_checkpoint:
            if tf.io.gfile.exists(self.backup_dir):
                tf.io.gfile.rmtree(self.backup_dir)
        elif self._save_pending:
            self._save()
            self._checkpoint.sync()

    def _preempted(self) -> bool:
        return self.watcher is not None and self.watcher.requested

    def _detach(self) -> None:
        self.model.train_function = self._original_train_function
        self.model._training_state = None
        if self.watcher:
            self.watcher.stop()

    def _save(self) -> str:
        step = self._step
        self._global_step.assign(step)
        self._epoch.assign(self._next_epoch)
        self._step_in_epoch.assign(self._next_step)
        if self.options.experimental_enable_async_checkpoint:
            # TF 2.21's async saver drops iterators from the checkpoint (measured): the data position is
            # written first, synchronously, as `data-N`; ckpt-N is only valid with it (`_companions`).
            tf.train.Checkpoint(iterator=self._iterator).write(self._data_prefix(f"ckpt-{step}"))
        self._save_pending = False
        self._saved_step = step
        path = self._manager.save(checkpoint_number=step, options=self.options)
        self._remove_stale_data_positions()
        return path

    def _data_prefix(self, checkpoint_prefix: str) -> str:
        """Where the iterator of `checkpoint_prefix` is: inside it, or (async saves) in data-N beside it."""
        if not self.options.experimental_enable_async_checkpoint:
            return checkpoint_prefix
        return os.path.join(self.backup_dir, "data-" + checkpoint_prefix.rsplit("-", 1)[1])

    def _companions(self, checkpoint_prefix: str) -> list[str]:
        data = self._data_prefix(checkpoint_prefix)
        return [data] if data != checkpoint_prefix else []

    def _remove_stale_data_positions(self) -> None:
        if not self.options.experimental_enable_async_checkpoint or not self._manager.checkpoints:
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
        print(
            f"ExactBackupAndRestore: stopped by signal {self.watcher.received} after step "
            f"{self._step}; saved {self._manager.latest_checkpoint}; exiting with "
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
