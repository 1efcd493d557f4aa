"""Benchmark: what checkpointing costs a `fit` job: none, BackupAndRestore, ExactBackupAndRestore sync/async.

    PYTHONPATH=. .venv/bin/python bench/checkpoint_overhead.py [--save_freq 100] [--repeats 3]

Anchor: tf_keras BackupAndRestore at the same cadence. For a small model (digits MLP, 9k parameters)
and a ~25M-parameter one (Adam: 3 x 25M floats = ~300 MB a checkpoint), each in this one process:
steps/s with no checkpointing, with BackupAndRestore(save_freq=N), with ExactBackupAndRestore(save_freq=N)
synchronous and async, and with both at save_freq="epoch" (the default). Prints each overhead against
no checkpointing, exact's overhead against BackupAndRestore's, and for exact mode the time a save blocks
training (async against sync). Steps are timed over two epochs after a warm-up epoch (tracing); each
configuration runs `--repeats` times, in rounds over all configurations after one warm-up run, and the
median is reported (disk writeback makes single saves of the large model vary from 0.2 to 5 s here).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

import numpy as np
import tensorflow as tf
import tf_keras

from estimator_migrate.compat.exact import ExactBackupAndRestore

BATCH = 32


class TimedExact(ExactBackupAndRestore):
    """ExactBackupAndRestore that records how long each save blocks the training loop."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.blocking: list[float] = []

    def _save(self):
        start = time.perf_counter()
        super()._save()
        self.blocking.append(time.perf_counter() - start)


class StepClock(tf_keras.callbacks.Callback):
    """Wall time from the end of the warm-up epoch to the end of training."""

    def on_epoch_begin(self, epoch, logs=None):
        if epoch == 1:
            self.start = time.perf_counter()

    def on_train_end(self, logs=None):
        self.seconds = time.perf_counter() - self.start


def build(widths: list[int]) -> tf_keras.Model:
    tf_keras.utils.set_random_seed(0)
    layers = [tf_keras.Input((64,))]
    layers += [tf_keras.layers.Dense(width, activation="relu") for width in widths]
    layers += [tf_keras.layers.Dropout(0.1), tf_keras.layers.Dense(10)]
    model = tf_keras.Sequential(layers)
    model.compile(tf_keras.optimizers.Adam(1e-4), tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def dataset(steps_per_epoch: int) -> tf.data.Dataset:
    rng = np.random.default_rng(0)
    x = rng.random((steps_per_epoch * BATCH, 64), dtype=np.float32)
    y = rng.integers(0, 10, steps_per_epoch * BATCH)
    return tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1024, seed=1).batch(BATCH)


def measure(widths, steps, make_callback) -> tuple[float, list[float]]:
    """Steps/s over `steps` timed steps (2 epochs after a warm-up one), and exact's save blocking times."""
    model = build(widths)
    with tempfile.TemporaryDirectory() as directory:
        backup = make_callback(directory)
        clock = StepClock()
        callbacks = [backup, clock] if backup is not None else [clock]
        model.fit(dataset(steps // 2), epochs=3, callbacks=callbacks, verbose=0)
    return steps / clock.seconds, getattr(backup, "blocking", [])


def configurations(n: int) -> dict:
    """label -> (role, factory of the callback for a backup directory)."""
    return {
        "none": ("none", lambda d: None),
        f"BackupAndRestore(save_freq={n})": ("anchor", lambda d: tf_keras.callbacks.BackupAndRestore(d, save_freq=n)),
        f"exact sync (save_freq={n})": ("sync", lambda d: TimedExact(d, save_freq=n)),
        f"exact async (save_freq={n})": ("async", lambda d: TimedExact(d, save_freq=n, async_save=True)),
        'BackupAndRestore("epoch")': ("anchor epoch", lambda d: tf_keras.callbacks.BackupAndRestore(d)),
        'exact sync ("epoch")': ("default", lambda d: TimedExact(d)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--save_freq", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    tf_keras.backend.experimental.enable_tf_random_generator()
    for name, widths, steps in [("small", [64, 64], 600), ("large", [4096, 4096, 2048], 200)]:
        params = build(widths).count_params()
        print(f"\n{name} model: {params / 1e6:.2f}M parameters, {steps} timed steps (epochs of {steps // 2}), "
              f"batch {BATCH}, median of {args.repeats} runs")
        table = configurations(args.save_freq)
        measure(widths, steps, table["none"][1])  # warm-up: the first large allocations are the slowest
        rates = {role: [] for role, _ in table.values()}
        blocking = {role: [] for role, _ in table.values()}
        for _ in range(args.repeats):  # rounds over all configurations, so drift hits them alike
            for role, make in table.values():
                rate_of_run, blocking_of_run = measure(widths, steps, make)
                rates[role].append(rate_of_run)
                blocking[role] += blocking_of_run
        rate = {role: statistics.median(values) for role, values in rates.items()}
        overhead = {role: rate["none"] / rate[role] - 1 for role in rate}
        for label, (role, _) in table.items():
            saves = ""
            if blocking[role]:
                median = statistics.median(blocking[role])
                saves = f"; a save blocks {median * 1e3:.1f} ms (median of {len(blocking[role])})"
            print(f"  {label:32s} {rate[role]:8.1f} steps/s  overhead {overhead[role] * 100:+6.2f}%{saves}")
        print(f"  exact sync overhead vs BackupAndRestore's: {_against(overhead['sync'], overhead['anchor'])}")
        print(f"  exact async overhead vs BackupAndRestore's: {_against(overhead['async'], overhead['anchor'])}")
        print(f"  exact at the default cadence (epoch): {overhead['default'] * 100:+.2f}% (goal <= 3.5%)")
        ratio = statistics.median(blocking["async"]) / statistics.median(blocking["sync"])
        print(f"  async save blocking / sync save blocking: {ratio:.2f}x (goal <= 0.2x)", flush=True)


def _against(value: float, anchor: float) -> str:
    if anchor <= 0:
        return f"{value * 100:+.2f}% vs {anchor * 100:+.2f}% (the anchor's overhead is within noise)"
    return f"{value / anchor:.2f}x ({value * 100:+.2f}% vs {anchor * 100:+.2f}%)"


if __name__ == "__main__":
    main()
