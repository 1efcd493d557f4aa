"""SessionRunHooks of a wrapped model_fn, run against its TF1 graph as Estimator's MonitoredSession ran them.

A wrapped model_fn (compat.wrapped_model_fns) builds each mode's graph as Estimator did, so the hooks written
for it still find what they look for: the tensors their `before_run` asks for (by object or by name), the
global step, the graph's collections. `SessionHooks` drives them through a run of steps with MonitoredSession's
protocol: `begin()` in the graph (which they may extend with their own ops, and variables: made with the
model_fn's, checkpointed with them), `after_create_session(session, coord)`, `before_run(run_context)` /
`after_run(run_context, run_values)` around every step, whose fetches run
in the same call as the step's own (one pruned function per set of fetches, as one `session.run`), and
`end(session)`. `run_context.request_stop()` ends the training (or evaluation) after that step. The `session`
a hook is given runs fetches apart from the step, from no input or from the tensors it feeds
(`session.run(global_step)`, a Saver's `restore(session, path)` and `save(session, path)`); a `before_run` cannot feed the step, and
no RunOptions are honoured but `report_tensor_allocations_upon_oom` (which only changed an out-of-memory
error's message).
"""

from __future__ import annotations

import contextlib

import numpy as np
import tensorflow as tf
from tensorflow.python.client.session import SessionInterface  # what a TF1 Saver checks its session is

from . import graph_input

SessionRunHook = tf.compat.v1.train.SessionRunHook


class ModeGraph:
    """One mode's graph of a wrapped model_fn: the `tf.compat.v1.wrap_function` it was built in, its input
    placeholders (`feeds`), what Estimator fetched at each step (`fetches`), the collections the model_fn
    filled and the hooks its EstimatorSpec returned.

    `written_for_tf1`: a hook fetching a variable with the step gets its value after the step, as TensorFlow 1.x
    gave it (a ref variable's fetch returned its buffer, which the step updated before the session returned it:
    the global step 1, 2, 3, ... in every run); otherwise a read unordered with the step, as a TensorFlow 2.x
    Estimator's of its resource variables (the value before the step, as a rule)."""

    def __init__(self, wrapped, feeds: list, fetches, collections: dict, hooks: tuple = (),
                 written_for_tf1: bool = False):
        self.wrapped, self.feeds, self.fetches = wrapped, feeds, fetches
        self.collections, self.hooks = collections, tuple(hooks)
        self.written_for_tf1 = written_for_tf1
        self.step = wrapped.prune(feeds, fetches)  # the step without hooks
        self._pruned = {}
        self._variable_reads = {}  # (id(variable), after the step) -> the graph's read of it
        self._read_variables = {}  # id(a read made before the step) -> its variable
        # The local variables (a TRAIN spec's streaming metrics) as the graph made them
        self._local_initial_values = [(variable, variable.read_value()) for variable in
                                      collections.get(tf.compat.v1.GraphKeys.LOCAL_VARIABLES, [])]

    def initialize_local_variables(self) -> None:
        """Set the local variables back to their initial values, as each Estimator session's Scaffold
        local_init_op did."""
        for variable, value in self._local_initial_values:
            variable.assign(value)

    @property
    def graph(self):
        return self.wrapped.graph

    @contextlib.contextmanager
    def as_default(self):
        """The graph as the default graph, with the collections the model_fn left in it (a hook's begin()
        finds the global step, the summaries, its own ops' inputs)."""
        saved = self.graph._collections  # noqa: SLF001  (see compat.wrapped_model_fns.Tf1Graph)
        self.graph._collections = self.collections  # noqa: SLF001
        try:
            with self.graph.as_default():
                yield self.graph
        finally:
            self.graph._collections = saved  # noqa: SLF001

    def with_fetches(self, extra, inputs: bool = True, fed: tuple = ()):
        """The step's function also returning `extra` (a hook's fetches: tensors, ops, names, variables,
        nested), as {"estimator": ..., "extra": ...}; without `inputs`, only `extra`, from the tensors `fed`
        (names or tensors of the graph: the function's arguments, in that order)."""
        after_the_step = inputs and self.written_for_tf1
        resolved = tf.nest.map_structure(lambda fetch: self.fetchable(fetch, after_the_step), extra)
        feeds = [self.graph.as_graph_element(tensor) for tensor in fed]
        key = (inputs, repr(tf.nest.map_structure(id, resolved)), tuple(map(id, feeds)))  # fetches, layout, feeds
        if key not in self._pruned:
            fetches = {"estimator": self.fetches, "extra": resolved} if inputs else {"extra": resolved}
            self._pruned[key] = self.wrapped.prune(self.feeds if inputs else feeds, fetches)
        return self._pruned[key]

    def fetchable(self, fetch, after_the_step: bool = False):
        """A hook's fetch as an element of the graph: a variable (the model_fn's are TF2 variables, made outside
        the graph) as the graph's read of it, which is what a session fetching it returned; `after_the_step`: read
        once the step's own fetches are done (the global step by its name "global_step:0" alike)."""
        if after_the_step and isinstance(fetch, str | tf.Tensor):  # a read made before (a LoggingTensorHook's)
            element = self.graph.as_graph_element(fetch)
            fetch = self._read_variables.get(id(element), element)
            if element.name == "global_step:0":
                fetch = self.collections[tf.compat.v1.GraphKeys.GLOBAL_STEP][0]
        if isinstance(fetch, tf.Variable):  # a session fetched a variable's value
            key = (id(fetch), after_the_step)
            if key not in self._variable_reads:
                with self.as_default(), tf.control_dependencies(tf.nest.flatten(self.fetches) if after_the_step else []):
                    self._variable_reads[key] = tf.identity(fetch)
                if not after_the_step:
                    self._read_variables[id(self._variable_reads[key])] = fetch
            return self._variable_reads[key]
        if isinstance(fetch, str | tf.Tensor | tf.Operation):
            return self.graph.as_graph_element(fetch)
        raise TypeError(f"a hook fetches {type(fetch).__name__} ({fetch!r}): fetch tensors, ops, names or variables")


def _numpy(structure):
    """Fetched values as a session returned them: numpy arrays, a scalar as a numpy scalar (a string one: bytes,
    which TF1's FileWriter.add_summary tells from a Summary proto by `isinstance(summary, bytes)`), None for an op."""
    return tf.nest.map_structure(lambda value: None if value is None else np.asarray(value)[()], structure)


# RunOptions that only change what a failing step reports (TF1 listed the live tensors in an out-of-memory
# error): a step of the wrapped graph runs without them, its results the same
_DIAGNOSTIC_OPTIONS = {"report_tensor_allocations_upon_oom"}


def _changing_options(options) -> list[str]:
    """The fields a hook's RunOptions set that the wrapped graph's steps cannot honour."""
    if options is None:
        return []
    return [field.name for field, _ in options.ListFields() if field.name not in _DIAGNOSTIC_OPTIONS]


class HookSession(SessionInterface):
    """The `session` a hook (or a Scaffold's init_fn) gets: `run(fetches, feed_dict)` evaluates them in the
    model_fn's graph, from the values fed (a Saver's restore and save feed its file name); fetches made by an input_fn
    read in a graph (compat.graph_input) run in that input's session. A SessionInterface, which a Saver's `save`
    checks its session is."""

    def __init__(self, graph: ModeGraph):
        self._graph = graph

    @property
    def graph(self):
        return self._graph.graph

    @property
    def sess_str(self):
        return ""

    def as_default(self):
        """The graph as the default one, with its collections (as a listener's begin() ran under Estimator)."""
        return self._graph.as_default()

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        graphs = {getattr(fetch, "graph", None) for fetch in tf.nest.flatten(fetches)}
        input_session = graph_input.input_session(graphs.pop()) if len(graphs) == 1 else None
        if input_session is not None:
            return input_session.run(fetches, feed_dict=feed_dict, options=options, run_metadata=run_metadata)
        if _changing_options(options) or run_metadata is not None:
            raise ValueError("a hook's session.run(options=..., run_metadata=...) is not migrated "
                             f"({', '.join(_changing_options(options)) or 'run_metadata'}): a wrapped model_fn's graph "
                             "runs as a TF2 function, without a session's traces")
        fed = [(self.graph.as_graph_element(tensor), value) for tensor, value in (feed_dict or {}).items()]
        function = self._graph.with_fetches(fetches, inputs=False, fed=tuple(tensor for tensor, _ in fed))
        with tf.init_scope():  # hooks call it with the graph as the default one: run it, do not trace it there
            return _numpy(function(*(tf.constant(value, tensor.dtype) for tensor, value in fed))["extra"])


def _check_hook(hook) -> None:
    """One error for a hook a wrapped model_fn cannot run as Estimator ran it."""
    if not isinstance(hook, SessionRunHook):
        raise TypeError(f"{type(hook).__name__} is not a SessionRunHook")
    if isinstance(hook, tf.compat.v1.train.CheckpointSaverHook):
        # Estimator then saved with it only: none in model_dir unless it saved there, TF1 files beside the
        # migrated training's own if it did
        raise ValueError(
            "a CheckpointSaverHook among the hooks of a wrapped model_fn: under Estimator it replaced the "
            "RunConfig's checkpoints, which the migrated training saves itself; drop the hook and set its "
            "cadence as RunConfig(save_checkpoints_steps=..., keep_checkpoint_max=...), or save elsewhere "
            "from a hook of your own with a tf.compat.v1.train.Saver")
    # A SummarySaverHook given a Scaffold read its summary op from it once Estimator had finalized it (the spec's
    # own: `merge_all`); a wrapped model_fn's Scaffold is not finalized, so the hook would write nothing.
    if (isinstance(hook, tf.compat.v1.train.SummarySaverHook) and getattr(hook, "_scaffold", None) is not None
            and hook._scaffold.summary_op is None):  # noqa: SLF001
        raise ValueError("SummarySaverHook(scaffold=...) of a wrapped model_fn: its Scaffold is not finalized as "
                         "Estimator's session finalized it, so it has no summary op; give the hook "
                         "summary_op=tf.compat.v1.summary.merge_all() instead")


def _logged_variables_read(hook, graph: ModeGraph) -> None:
    """A LoggingTensorHook given a variable (`{"step": tf.train.get_global_step()}`): its begin() takes only
    elements of the default graph, which Estimator's variables were; a wrapped model_fn's are not, so it logs
    the graph's read of each (what the session fetched)."""
    hook._tensors = {  # noqa: SLF001  (what LoggingTensorHook.begin reads)
        tag: graph.fetchable(tensor) if isinstance(tensor, tf.Variable) else tensor
        for tag, tensor in hook._tensors.items()  # noqa: SLF001
    }


class SessionHooks:
    """`hooks` run around the steps of one mode's graph, as MonitoredSession ran them."""

    def __init__(self, hooks, graph: ModeGraph, making_variables=contextlib.nullcontext):
        self.hooks = list(hooks)
        for hook in self.hooks:
            _check_hook(hook)
        self.graph = graph
        self.session = HookSession(graph)
        self.making_variables = making_variables
        # MonitoredSession's coordinator: a hook's request_stop() on it ends the run after that step, and an
        # exception reported to it (request_stop(error), from a thread of its own) is raised when the run ends
        self.coordinator = tf.compat.v1.train.Coordinator()

    def begin(self) -> None:
        """Each hook's begin() in the graph, the variables it makes made by `making_variables` (a wrapped model_fn's
        store: checkpointed with the model's, as Estimator's Saver saved every global variable). Before a checkpoint
        is restored, as MonitoredSession called it: the restore then covers them."""
        with self.graph.as_default(), self.making_variables(self.graph.graph):
            for hook in self.hooks:
                if isinstance(hook, tf.compat.v1.train.LoggingTensorHook):
                    _logged_variables_read(hook, self.graph)
                try:
                    hook.begin()
                except AttributeError as error:
                    if "eager execution" not in str(error):
                        raise
                    raise TypeError(
                        f"{type(hook).__name__}.begin() reads the graph op of a variable ({error}): a wrapped model_fn's "
                        "variables are TF2 variables, made once outside its graph; this hook is not migrated (summary "
                        "hooks such as StepCounterHook: drop them, the migrated training writes the loss to TensorBoard)"
                    ) from error

    def after_create_session(self) -> None:
        """Each hook's after_create_session (the variables restored by then)."""
        with self.graph.as_default():
            for hook in self.hooks:
                hook.after_create_session(self.session, self.coordinator)

    def step(self, flat_inputs: list):
        """One step with the hooks' fetches: (what Estimator fetched, whether a hook requested a stop)."""
        context = tf.compat.v1.train.SessionRunContext(
            original_args=tf.compat.v1.train.SessionRunArgs(self.graph.fetches), session=self.session)
        with self.graph.as_default():
            requests = [hook.before_run(context) for hook in self.hooks]
        for hook, request in zip(self.hooks, requests, strict=True):
            if request is not None and (request.feed_dict or _changing_options(request.options)):
                raise ValueError(f"{type(hook).__name__}.before_run: SessionRunArgs(feed_dict=..., options=...) "
                                 f"is not migrated ({', '.join(_changing_options(request.options)) or 'feed_dict'})")
        extra = [() if request is None else request.fetches for request in requests]
        fetched = self.graph.with_fetches(extra)(*flat_inputs)
        values = [None if request is None else _numpy(value) for request, value in zip(requests, fetched["extra"])]
        with self.graph.as_default():
            for hook, value in zip(self.hooks, values, strict=True):
                hook.after_run(context, tf.compat.v1.train.SessionRunValues(results=value, options=None,
                                                                            run_metadata=None))
        return fetched["estimator"], context.stop_requested or self.coordinator.should_stop()

    def end(self) -> None:
        """Each hook's end(session), then the coordinator stopped and joined as MonitoredSession's close did:
        an exception a hook's thread reported to it is raised here."""
        with self.graph.as_default():
            for hook in self.hooks:
                hook.end(self.session)
        self.coordinator.request_stop()
        self.coordinator.join(stop_grace_period_secs=120, ignore_live_threads=True)  # MonitoredSession's defaults


class SummarySaver(SessionRunHook):
    """Estimator's own summary hook (MonitoredTrainingSession's SummarySaverHook over the scaffold's `merge_all`)
    for a wrapped model_fn's training: the graph's summaries (`tf.compat.v1.summary.scalar`, histogram, image, ...,
    and the `loss` scalar Estimator added) fetched in the step's own call at the first step of each training and
    whenever `save_steps` steps have passed since the last written, their serialized protos written as they are
    (`tf.summary.experimental.write_raw_pb`) to `output_dir` at the global step after that step. TF1's hook read the
    step before the step's increment and added one (a read that could race the increment: measured with TF 2.15, a
    cadence of 5 wrote at 1, 6, 11 in three runs of four, at 1, 5, 10 in one); here the step is read after it,
    as TF1's rule meant: 1, 6, 11."""

    def __init__(self, save_steps: int, output_dir: str):
        self._timer = tf.compat.v1.train.SecondOrStepTimer(every_steps=save_steps)
        self._output_dir = output_dir
        self._writer = None

    def begin(self):
        self._summary = tf.compat.v1.summary.merge_all()
        self._global_step = tf.compat.v1.train.get_global_step()
        self._next_step = None
        self._request = False
        with tf.init_scope():
            self._writer = tf.summary.create_file_writer(self._output_dir)

    def before_run(self, run_context):
        self._request = self._next_step is None or self._timer.should_trigger_for_step(self._next_step)
        if not self._request or self._summary is None:
            return None
        return tf.compat.v1.train.SessionRunArgs(self._summary)

    def after_run(self, run_context, run_values):
        # the step after this one's increment: read when a summary is written, counted otherwise
        step = int(run_context.session.run(self._global_step)) if self._request else self._next_step
        if self._request:
            self._timer.update_last_triggered_step(step)
            if run_values.results is not None:
                with tf.init_scope(), self._writer.as_default():
                    tf.summary.experimental.write_raw_pb(run_values.results, step=step)
        self._next_step = step + 1

    def end(self, session):
        with tf.init_scope():
            self._writer.flush()
