"""One worker of a two-worker `MultiWorkerMirroredStrategy` fit on digits, for the multi-worker tests.

Start one process per worker (`--index 0` is the chief) with the same `--port` base: the workers find
each other on 127.0.0.1 through TF_CONFIG, which this script sets. `--mode exact` backs up with
compat.exact.ExactBackupAndRestore into `--dir` (the chief's backups; other workers write theirs to
scratch directories inside it); `--mode none` is plain fit. `--kill_at` SIGKILLs this worker after a
global step, `--sigterm_at` sends it SIGTERM while that step runs. The chief writes the final weights
to `--out`.
"""

from __future__ import annotations

import argparse
import json
import os

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # a tf_keras program: docs/exact-resume.md's advice


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--index", type=int, required=True)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--mode", choices=["exact", "none"], default="exact")
    parser.add_argument("--dir", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--save_freq", type=int, default=10)
    parser.add_argument("--kill_at", type=int)
    parser.add_argument("--sigterm_at", type=int)
    args = parser.parse_args()
    args.kill_during_save_at = None
    cluster = {"worker": [f"127.0.0.1:{args.port + i}" for i in range(args.workers)]}
    os.environ["TF_CONFIG"] = json.dumps({"cluster": cluster, "task": {"type": "worker", "index": args.index}})

    import numpy as np
    import tensorflow as tf
    import tf_keras

    from estimator_migrate.compat.exact import ExactBackupAndRestore
    from tests.runtime.digits_fit import Fault, dataset, model

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    tf_keras.backend.experimental.enable_tf_random_generator()
    tf_keras.utils.set_random_seed(5)
    with strategy.scope():
        net = model(64)
    callbacks = [Fault(args)]
    if args.mode == "exact":
        callbacks.insert(0, ExactBackupAndRestore(args.dir, save_freq=args.save_freq))
    net.fit(dataset(drop_remainder=True), epochs=args.epochs, callbacks=callbacks, verbose=0)
    if args.index == 0:
        np.savez(args.out, *net.get_weights(), steps=int(net.optimizer.iterations.numpy()))


if __name__ == "__main__":
    main()
