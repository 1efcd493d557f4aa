"""Benchmark: what exact resume costs under MultiWorkerMirroredStrategy (two workers on 127.0.0.1).

    PYTHONPATH=. .venv/bin/python bench/multiworker_overhead.py [--save_freq 50] [--epochs 6] [--repeats 3]

Anchor: tf_keras BackupAndRestore at the same cadence. Each configuration runs as two real worker
processes (this file, `--worker i`) training the digits MLP (dropout, reshuffled data, global batch 32)
for a warm-up epoch plus `--epochs` timed epochs; the chief reports the timed seconds. Configurations: no
backups; BackupAndRestore(save_freq=N); ExactBackupAndRestore(save_freq=N); and the same without saving on
preemption, which isolates the per-step all-reduce that makes all workers stop at the same step. Rounds
over all configurations, median of `--repeats`; prints steps/s and overheads against no backups.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

CONFIGS = ["none", "backup_and_restore", "exact", "exact_no_preemption"]


def worker(args) -> None:
    cluster = {"worker": [f"127.0.0.1:{args.port + i}" for i in range(2)]}
    os.environ["TF_CONFIG"] = json.dumps(
        {"cluster": cluster, "task": {"type": "worker", "index": args.worker}}
    )
    import tensorflow as tf
    import tf_keras
    from sklearn.datasets import load_digits

    from estimator_migrate.compat.exact import ExactBackupAndRestore

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    tf_keras.backend.experimental.enable_tf_random_generator()
    tf_keras.utils.set_random_seed(0)
    digits = load_digits()
    data = tf.data.Dataset.from_tensor_slices(((digits.data / 16).astype("float32"), digits.target))
    data = data.shuffle(512, seed=1, reshuffle_each_iteration=True).batch(32, drop_remainder=True).prefetch(2)
    with strategy.scope():
        model = tf_keras.Sequential(
            [
                tf_keras.Input((64,)),
                tf_keras.layers.Dense(64, activation="relu"),
                tf_keras.layers.Dropout(0.1),
                tf_keras.layers.Dense(10),
            ]
        )
        model.compile(optimizer="adam", loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    backup_dir = os.path.join(args.dir, args.config)
    callbacks = {
        "none": [],
        "backup_and_restore": [tf_keras.callbacks.BackupAndRestore(backup_dir, save_freq=args.save_freq)],
        "exact": [ExactBackupAndRestore(backup_dir, save_freq=args.save_freq)],
        "exact_no_preemption": [
            ExactBackupAndRestore(backup_dir, save_freq=args.save_freq, save_before_preemption=False)
        ],
    }[args.config]
    clock = {}
    timer = tf_keras.callbacks.LambdaCallback(
        on_epoch_begin=lambda epoch, logs: (
            clock.setdefault("start", time.perf_counter()) if epoch == 1 else None
        ),
        on_train_end=lambda logs: clock.setdefault("end", time.perf_counter()),
    )
    model.fit(data, epochs=1 + args.epochs, callbacks=[*callbacks, timer], verbose=0)
    if args.worker == 0:
        steps = args.epochs * (len(digits.target) // 32)
        print(json.dumps({"seconds": clock["end"] - clock["start"], "steps": steps}), flush=True)


def free_port_pair() -> int:
    while True:
        with socket.socket() as a, socket.socket() as b:
            a.bind(("127.0.0.1", 0))
            port = a.getsockname()[1]
            try:
                b.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
            return port


def run_config(args, config: str, directory: str) -> float:
    port = free_port_pair()
    command = [sys.executable, __file__, "--port", str(port), "--dir", directory, "--config", config]
    command += ["--save_freq", str(args.save_freq), "--epochs", str(args.epochs)]
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}
    workers = [
        subprocess.Popen(
            [*command, "--worker", str(i)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            text=True,
        )
        for i in range(2)
    ]
    out = workers[0].communicate()[0]
    workers[1].wait()
    if any(w.returncode for w in workers):
        raise RuntimeError(f"{config}: workers exited {[w.returncode for w in workers]}")
    result = json.loads(out.strip().splitlines()[-1])
    return result["steps"] / result["seconds"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--save_freq", type=int, default=50)
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--worker", type=int)
    parser.add_argument("--port", type=int)
    parser.add_argument("--dir")
    parser.add_argument("--config", choices=CONFIGS)
    args = parser.parse_args()
    if args.worker is not None:
        return worker(args)
    rates = {config: [] for config in CONFIGS}
    with tempfile.TemporaryDirectory() as directory:
        run_config(args, "none", directory)  # warm-up (file caches)
        for _ in range(args.repeats):
            for config in CONFIGS:
                rates[config].append(run_config(args, config, directory))
    median = {config: statistics.median(values) for config, values in rates.items()}
    print(f"two workers, save_freq={args.save_freq}, {args.epochs} timed epochs, median of {args.repeats}")
    for config in CONFIGS:
        overhead = median["none"] / median[config] - 1
        runs = ", ".join(f"{r:.1f}" for r in rates[config])
        print(f"  {config:22s} {median[config]:7.1f} steps/s  overhead {overhead:+6.1%}  (runs: {runs})")
    exact, anchor = median["none"] / median["exact"] - 1, median["none"] / median["backup_and_restore"] - 1
    print(
        f"exact overhead / BackupAndRestore overhead: {exact / anchor:.2f}x"
        if anchor > 0
        else f"BackupAndRestore overhead {anchor:+.1%}: no ratio"
    )


if __name__ == "__main__":
    main()
