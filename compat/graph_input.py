"""An input_fn that returns tensors (an iterator's `get_next()`, often reshaped) read as Estimator read it.

TF1 input_fns commonly end `features, labels = tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()`,
then work on those tensors (`tf.where`, densifying, renaming) before returning them. Estimator called the
input_fn in a fresh graph and ran those tensors once per step, in a session, until the iterator raised
OutOfRangeError. Called eagerly in TF2 the same input_fn yields a single batch. `graph_input_dataset` calls it
again in a `tf.Graph`, as Estimator did (with the RunConfig's graph-level seed), and turns each session run of
its tensors into one element of a `tf.data.Dataset`: the same batches, in the same order, ending where the
iterator ended; each iteration of the dataset starts a new session, from the input's start, as each
Estimator.train call started its input_fn again. The dataset cannot be saved mid-way (`--exact` resumes need
the input_fn to return the dataset itself). Queue-runner input (`tf.compat.v1.train.shuffle_batch`, ...) is
refused: a session would wait forever for threads nobody starts.
"""

from __future__ import annotations

from collections.abc import Callable

import tensorflow as tf


def returns_tensors(value) -> bool:
    """Whether an input_fn's return value is tensors (features, or a (features, labels) pair, nested)."""
    leaves = tf.nest.flatten(value, expand_composites=False)
    return bool(leaves) and all(isinstance(leaf, tf.Tensor | tf.SparseTensor) for leaf in leaves)


def graph_input_dataset(input_fn: Callable, arguments: dict, name: str, seed: int | None = None) -> tf.data.Dataset:
    """The batches `input_fn(**arguments)` returns as graph tensors, as a `tf.data.Dataset` (see the module)."""
    graph = tf.Graph()
    with graph.as_default():
        if seed is not None:
            tf.compat.v1.set_random_seed(seed)
        outputs = input_fn(**arguments)
        if not returns_tensors(outputs):
            raise TypeError(f"input_fn `{name}` returned {type(outputs).__name__} in a graph, tensors when eager")
        if graph.get_collection(tf.compat.v1.GraphKeys.QUEUE_RUNNERS):
            raise ValueError(
                f"input_fn `{name}` reads through queue runners (tf.compat.v1.train.*_batch, *_input_producer), "
                "which TF2 does not run: build its input with tf.data and return the dataset"
            )
        # what Estimator's Scaffold ran first: variables and lookup tables the input_fn made
        initialize = tf.group(tf.compat.v1.global_variables_initializer(),
                              tf.compat.v1.local_variables_initializer(), tf.compat.v1.tables_initializer())
    signature = tf.nest.map_structure(_spec, outputs)

    def batches():
        session = tf.compat.v1.Session(graph=graph)  # not as a context: that would make `graph` the default
        try:
            session.run(initialize)
            while True:
                try:
                    values = session.run(outputs)
                except tf.errors.OutOfRangeError:
                    return
                yield tf.nest.map_structure(_eager_value, values)
        finally:
            session.close()

    return tf.data.Dataset.from_generator(batches, output_signature=signature)


def _spec(tensor):
    if isinstance(tensor, tf.SparseTensor):
        return tf.SparseTensorSpec(tensor.shape, tensor.dtype)
    return tf.TensorSpec(tensor.shape, tensor.dtype)


def _eager_value(value):
    if isinstance(value, tf.compat.v1.SparseTensorValue):
        return tf.SparseTensor(value.indices, value.values, value.dense_shape)
    return value
