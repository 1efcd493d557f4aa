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

An input_fn that feeds its dataset from placeholders (`tf.compat.v1.placeholder`, which eager TF2 cannot make)
and an initializable iterator, initialized by a hook's `after_create_session(session, coord)` with
`session.run(iterator.initializer, feed_dict=...)` (the "IteratorInitializerHook" of TF 1.x's blog posts), is read
the same way: the input's first session is made with the dataset, and `input_session(graph)` gives it to the
hook's session (compat.wrapped_hooks), which runs fetches of the input's graph there, feeds included. A model with
no TF1 graph (a canned or Keras-class estimator) has no such session: there the hooks that act on sessions only
(`acts_on_sessions_only`: no before_run or after_run) are given `graph_input_dataset(..., session_hooks=...)`, which
runs them on the input's own graph and sessions, as Estimator ran them on its graph: begin() once the input_fn
built it, after_create_session() on each session once it is initialized, end() before it closes.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence

import tensorflow as tf

# The input graphs whose first session is open: a hook's session runs their fetches there (see the module).
_OPEN_SESSIONS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def input_session(graph) -> tf.compat.v1.Session | None:
    """The open session of an input_fn's graph (made by `graph_input_dataset`), None for any other graph."""
    return _OPEN_SESSIONS.get(graph) if isinstance(graph, tf.Graph) else None


def needs_graph(error: Exception) -> bool:
    """Whether calling an input_fn eagerly raised because it makes graph-only ops (`tf.compat.v1.placeholder`)."""
    return isinstance(error, RuntimeError) and "is not compatible with eager execution" in str(error)


def returns_tensors(value) -> bool:
    """Whether an input_fn's return value is tensors (features, or a (features, labels) pair, nested)."""
    leaves = tf.nest.flatten(value, expand_composites=False)
    return bool(leaves) and all(isinstance(leaf, tf.Tensor | tf.SparseTensor) for leaf in leaves)


def acts_on_sessions_only(hook) -> bool:
    """Whether `hook` is a SessionRunHook that fetches nothing around the steps (its class keeps SessionRunHook's
    before_run and after_run): it acts on the graph in begin() and on sessions in after_create_session()/end()."""
    session_run_hook = tf.compat.v1.train.SessionRunHook
    return isinstance(hook, session_run_hook) and type(hook).before_run is session_run_hook.before_run \
        and type(hook).after_run is session_run_hook.after_run


def graph_input_dataset(input_fn: Callable, arguments: dict, name: str, seed: int | None = None,
                        session_hooks: Sequence = ()) -> tf.data.Dataset:
    """The batches `input_fn(**arguments)` returns as graph tensors, as a `tf.data.Dataset`; `session_hooks` run on
    its graph and sessions (see the module)."""
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
        for hook in session_hooks:
            hook.begin()
    signature = tf.nest.map_structure(_spec, outputs)
    # open now, before any batch is read: a hook's after_create_session may initialize the input through it
    _OPEN_SESSIONS[graph] = _initialized_session(graph, initialize, session_hooks)
    unread = {"first session": True}

    def batches():
        if unread.pop("first session", False):
            session = _OPEN_SESSIONS[graph]
        else:  # the dataset iterated again: its input from the start, as a new Estimator.train call
            session = _OPEN_SESSIONS[graph] = _initialized_session(graph, initialize, session_hooks)
        try:
            while True:
                try:
                    values = session.run(outputs)
                except tf.errors.OutOfRangeError:
                    return
                yield tf.nest.map_structure(_eager_value, values)
        finally:
            with graph.as_default():
                for hook in session_hooks:
                    hook.end(session)
            session.close()
            if _OPEN_SESSIONS.get(graph) is session:
                del _OPEN_SESSIONS[graph]

    dataset = tf.data.Dataset.from_generator(batches, output_signature=signature)
    # No prefetch thread calling the generator ahead of the training: an iterator dropped while that thread waits for
    # the GIL in `batches` (the training stopped: a NaN loss, steps reached) deadlocked the program, its
    # destructor holding the GIL while waiting for that thread (tf.data injects a final prefetch by default)
    options = tf.data.Options()
    options.experimental_optimization.inject_prefetch = False
    return dataset.with_options(options)


def _initialized_session(graph: tf.Graph, initialize, session_hooks: Sequence = ()) -> tf.compat.v1.Session:
    session = tf.compat.v1.Session(graph=graph)  # not as a context: that would make `graph` the default
    session.run(initialize)
    with graph.as_default():
        coordinator = tf.train.Coordinator()
        for hook in session_hooks:
            hook.after_create_session(session, coordinator)
    return session


def _spec(tensor):
    if isinstance(tensor, tf.SparseTensor):
        return tf.SparseTensorSpec(tensor.shape, tensor.dtype)
    return tf.TensorSpec(tensor.shape, tensor.dtype)


def _eager_value(value):
    if isinstance(value, tf.compat.v1.SparseTensorValue):
        return tf.SparseTensor(value.indices, value.values, value.dense_shape)
    return value
