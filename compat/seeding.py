"""`RunConfig(tf_random_seed=N)` in TensorFlow 2: the same run every time, as the Estimator's was.

The Estimator set N as the graph-level seed of every graph it built, so every random op without a seed of its
own (initializers, dropout, shuffles) drew the same numbers on every run. In TensorFlow 2 the global seed
(`tf.random.set_seed`) covers TensorFlow's own ops and `tf.data` shuffles, but tf_keras gives each unseeded
initializer, dropout layer and random generator a seed drawn from Python's `random` module: the migrated
program's initial weights and dropout masks changed from run to run. tf_keras draws those seeds from a
generator of its own when one is set (what `tf_keras.utils.set_random_seed` sets, besides seeding Python's
`random` and NumPy). Only that generator is set here: the program's own use of `random` and NumPy stays
as it was under the Estimator, which did not seed them.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import tempfile

import tensorflow as tf


def set_graph_seed(seed: int) -> None:
    """Make the rest of the program's TensorFlow and tf_keras randomness depend on `seed` alone."""
    from tf_keras.src import backend

    if not hasattr(backend, "_SEED_GENERATOR"):
        raise RuntimeError(
            "tf_random_seed: this tf_keras has no seed generator for its layers (tf_keras.src.backend."
            "_SEED_GENERATOR); its initializers and dropout would not be reproducible. Use tf_keras 2.x."
        )
    tf.random.set_seed(seed)
    backend._SEED_GENERATOR.generator = random.Random(seed)


MODEL_DIR_SEED_FILE = "exact_seed"


def model_dir_seed(model_dir) -> int:
    """A seed drawn once for `model_dir` and kept in it (file `exact_seed`): every run on that model_dir gets
    the same one. `--exact` programs without tf_random_seed give it to `tf.random.set_seed` before making their
    input, so the shuffles of the epochs after a resume draw the orders the interrupted run would have drawn
    (a tf.data iterator's checkpoint holds its epoch in progress, not the seeds of the next ones).
    A worker of a multi-worker cluster gets `worker_seed` of it."""
    path = os.path.join(os.fspath(model_dir), MODEL_DIR_SEED_FILE)
    try:
        with open(path) as kept:
            return worker_seed(int(kept.read()))
    except FileNotFoundError:
        pass
    return worker_seed(keep_model_dir_seed(model_dir, random.SystemRandom().randrange(1, 2**31)))


def keep_model_dir_seed(model_dir, seed: int) -> int:
    """Keep `seed` as `model_dir`'s seed unless it has one already; return the one it has. The first process
    to get here wins (a link, atomic); the others read its seed."""
    path = os.path.join(os.fspath(model_dir), MODEL_DIR_SEED_FILE)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=os.path.dirname(path), prefix=".exact_seed.", delete=False) as staged:
        staged.write(f"{seed}\n")
        staged.flush()
        os.fsync(staged.fileno())
    try:
        os.link(staged.name, path)
    except FileExistsError:
        pass
    finally:
        os.unlink(staged.name)
    with open(path) as kept:
        return int(kept.read())


def worker_seed(seed: int) -> int:
    """`seed` for this process's task of the cluster TF_CONFIG describes: the first task (the chief, or worker 0
    when there is no chief) and a process outside a cluster get it as it is, every other task one drawn from it
    and its task. So the workers of a multi-worker run shuffle their input differently, as the unseeded input_fns
    of an Estimator's workers did, and each the same on every run."""
    config = json.loads(os.environ.get("TF_CONFIG") or "{}")
    task = config.get("task") or {}
    task_type, index = task.get("type"), int(task.get("index", 0))
    first = "chief" if "chief" in (config.get("cluster") or {}) else "worker"
    if task_type is None or (task_type, index) == (first, 0):
        return seed
    return random.Random(f"{seed}/{task_type}/{index}").randrange(1, 2**31)  # not the program's `random`


@contextlib.contextmanager
def input_seeded(model_dir):
    """While the input is made: TensorFlow's global seed from `model_dir_seed(model_dir)`; afterwards the
    global seed as it was (none: a model's random ops with seeds of their own keep TensorFlow's default graph
    seed, as under the Estimator, so the model_dir's seed changes nothing but the input)."""
    from tensorflow.python.eager import context

    previous = context.global_seed()
    tf.random.set_seed(model_dir_seed(model_dir))
    try:
        yield
    finally:
        tf.random.set_seed(previous)
