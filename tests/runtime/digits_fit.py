"""A fit job on digits for the fault-injection tests: shuffled tf.data, dropout, periodic backups.

Run it, kill it (`--kill_at`, `--kill_during_save_at`: SIGKILL; `--sigterm_at`: SIGTERM), run it again:
with `--mode exact` (compat.exact.ExactBackupAndRestore) the final weights, written to `--out`, are
bit-identical to an uninterrupted run's (`--mode none`: plain fit, no backups); with `--mode backup`
(tf_keras BackupAndRestore) they are not.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # a tf_keras program: docs/exact-resume.md's advice

import numpy as np
import tensorflow as tf
import tf_keras
from sklearn.datasets import load_digits

from estimator_migrate.compat.exact import ExactBackupAndRestore

BATCH = 32


def dataset(drop_remainder: bool = False) -> tf.data.Dataset:
    digits = load_digits()
    pixels = (digits.data / 16.0).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((pixels, digits.target.astype("int64")))
    return ds.shuffle(512, seed=11, reshuffle_each_iteration=True).batch(BATCH, drop_remainder).prefetch(2)


def model(width: int) -> tf_keras.Model:
    net = tf_keras.Sequential(
        [
            tf_keras.Input((64,)),
            tf_keras.layers.Dense(width, activation="relu"),
            tf_keras.layers.Dropout(0.3),
            tf_keras.layers.Dense(width, activation="relu"),
            tf_keras.layers.Dropout(0.3),
            tf_keras.layers.Dense(10),
        ]
    )
    net.compile(
        optimizer=tf_keras.optimizers.Adam(1e-3),
        loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    )
    return net


class Fault(tf_keras.callbacks.Callback):
    """Kills this process with a real signal at a global step (counted across restarts by the optimizer)."""

    def __init__(self, args):
        super().__init__()
        self.args = args
        if args.kill_during_save_at is not None:
            # A process of its own: it stops this one before checking that the save is still being written.
            killer = os.path.join(os.path.dirname(os.path.abspath(__file__)), "save_killer.py")
            self.save_killer = subprocess.Popen(
                [sys.executable, killer, str(os.getpid()), args.dir], stdin=subprocess.PIPE
            )

    def on_train_batch_begin(self, batch, logs=None):
        if self.args.sigterm_at is not None and self._step() + 1 == self.args.sigterm_at:
            os.kill(os.getpid(), signal.SIGTERM)  # arrives now; the step still runs

    def on_train_batch_end(self, batch, logs=None):
        step = self._step()
        print(f"step {step}", flush=True)
        if step == self.args.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        if step == self.args.kill_during_save_at:
            self.save_killer.stdin.write(b"arm\n")
            self.save_killer.stdin.flush()

    def _step(self) -> int:
        return int(self.model.optimizer.iterations.numpy())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["exact", "backup", "none"], default="exact")
    parser.add_argument("--dir", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--save_freq", type=int, default=10)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--async_save", action="store_true")
    parser.add_argument("--kill_at", type=int)
    parser.add_argument("--kill_during_save_at", type=int)
    parser.add_argument("--sigterm_at", type=int)
    args = parser.parse_args()

    tf_keras.backend.experimental.enable_tf_random_generator()
    tf_keras.utils.set_random_seed(5)
    net = model(args.width)
    callbacks = [Fault(args)]
    if args.mode == "exact":
        callbacks.insert(0, ExactBackupAndRestore(args.dir, save_freq=args.save_freq, async_save=args.async_save))
    elif args.mode == "backup":
        callbacks.insert(0, tf_keras.callbacks.BackupAndRestore(args.dir, save_freq=args.save_freq))
    net.fit(dataset(), epochs=args.epochs, callbacks=callbacks, verbose=0)
    np.savez(args.out, *net.get_weights(), steps=int(net.optimizer.iterations.numpy()))


if __name__ == "__main__":
    main()
