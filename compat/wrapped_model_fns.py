"""Tier 2 of custom model_fns: the program's own TF1 model_fn, run as written inside a tf_keras model.

When a model_fn cannot become a clean Keras class (compat.model_fns, tier 1), the rewrite keeps it as it is
and hands it to `WrappedModelFn`. For each mode the model_fn builds its graph once, as it built the
Estimator's, in `tf.compat.v1.wrap_function` pruned to what Estimator fetched (so, as in a session, an op runs
only when a fetch needs it: a train_op built in every mode does not train during evaluation), and the Keras
step calls that function. The graph is TF1's: `get_variable`, `variable_scope`, `tf.compat.v1.layers`,
collections, `tf.compat.v1.train` optimizers, learning-rate decays of the global step, gradient clipping,
`tf.compat.v1.metrics`. Its `train_op` is what the step runs, so the TF1 optimizer updates the weights with
the kernels the Estimator ran (no Keras twin, no re-derived update rule).

What makes that sound is `Tf1Graph`, entered around each model_fn call:
- every variable the model_fn makes is created once, eagerly, and found again by its TF1 name on every later
  trace (a variable creator keyed by the name the graph gives it: `hidden/kernel`, `beta1_power`,
  `hidden/kernel/Adam_1`), so the model's checkpoint holds the Estimator's variables under the Estimator's
  names (`load_estimator_checkpoint` restores a `model.ckpt-N` by name);
- the traced graph starts with empty collections and a fresh variable store, as each Estimator graph did,
  and the variables enter the collections TF1 put them in (`tf.compat.v1.trainable_variables()`, the
  optimizer's default var_list, work);
- the global step exists before the model_fn runs (Estimator created it), so `get_global_step()` finds it;
- `init_from_checkpoint` (warm starts) fills the variables when they are made, once, not at every step;
- tensors compare (`==`, `in`) and hash by identity, as in a TF1 graph.

Variables in `LOCAL_VARIABLES` (streaming metrics) live for one evaluation, as in Estimator's eval graphs.
"""

from __future__ import annotations

import collections
import contextlib
import copy
import functools
import inspect
import os
import sys
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import tensorflow as tf
import tf_keras
from tensorflow.python.eager import lift_to_graph  # a variable's initial value, out of the trace
from tensorflow.python.ops import (
    resource_variable_ops,  # a variable's op, which TF1 code names it by
    variable_scope,  # partitioned variables, refused
)
from tensorflow.python.summary import summary as tf1_summary  # TF1 summary ops kept TF1's
from tensorflow.python.trackable import resource  # the lookup tables a model_fn makes, for its export
from tensorflow.python.training import (
    checkpoint_utils,  # init_from_checkpoint's initializer
    moving_averages,  # ExponentialMovingAverage.variables_to_restore, by TF1 names
    training_util,  # the global step read the built-in hooks fetch
)
from tf_keras.src.legacy_tf_layers import base as legacy_tf_layers  # their regularizers, added once

from . import added_metrics, forwarded_features, warm_start
from .estimator_evaluation import finish_evaluation
from .estimator_prediction import as_estimator_yields, features_of
from .estimator_training import ModeKeys, configure
from .legacy_checkpoint import EARLY_STOPPING_FLAG, CheckpointError, LegacyCheckpoint
from .tf1_programs import keep_tf_slim_working, use_tf_keras
from .wrapped_hooks import HookSession, ModeGraph, SessionHooks, SummarySaver

use_tf_keras()  # the model_fn's tf.compat.v1.layers are Keras 2's, as Estimator ran them
keep_tf_slim_working()  # a model_fn written with tf_slim (or tf.contrib.layers, migrated to it) runs its layers

GLOBAL_VARIABLES = tf.compat.v1.GraphKeys.GLOBAL_VARIABLES
TRAINABLE_VARIABLES = tf.compat.v1.GraphKeys.TRAINABLE_VARIABLES
LOCAL_VARIABLES = tf.compat.v1.GraphKeys.LOCAL_VARIABLES
# Ops drawing from TensorFlow's stateful RNG, whose state no checkpoint holds (exact resume refuses them).
STATEFUL_RANDOM_OPS = {"RandomUniform", "RandomUniformInt", "RandomStandardNormal", "TruncatedNormal",
                       "RandomShuffle", "Multinomial", "RandomGamma", "RandomPoisson", "RandomPoissonV2"}


_SPEC_FIELDS = ("mode", "predictions", "loss", "train_op", "eval_metric_ops", "export_outputs",
                "training_chief_hooks", "training_hooks", "scaffold", "evaluation_hooks", "prediction_hooks")


class EstimatorSpec(collections.namedtuple("EstimatorSpec", _SPEC_FIELDS)):
    """`tf.estimator.EstimatorSpec`: the same fields, defaults and the checks that decide what each mode needs."""

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metric_ops=None, export_outputs=None,
                training_chief_hooks=None, training_hooks=None, scaffold=None, evaluation_hooks=None,
                prediction_hooks=None):
        if mode == ModeKeys.TRAIN and (loss is None or train_op is None):
            raise ValueError("Missing loss or train_op: EstimatorSpec in TRAIN mode needs both.")
        if mode == ModeKeys.EVAL and loss is None:
            raise ValueError("Missing loss: EstimatorSpec in EVAL mode needs it.")
        if mode == ModeKeys.PREDICT and predictions is None:
            raise ValueError("Missing predictions: EstimatorSpec in PREDICT mode needs them.")
        hooks = [tuple(h or ()) for h in (training_chief_hooks, training_hooks, evaluation_hooks, prediction_hooks)]
        # a built-in training hook the rewrite migrated (compat.estimator_hooks) is a Keras callback: fit runs it
        training_kinds = (tf.compat.v1.train.SessionRunHook, tf_keras.callbacks.Callback)
        for kinds, group in ((training_kinds, hooks[0] + hooks[1]), (tf.compat.v1.train.SessionRunHook, hooks[2] + hooks[3])):
            for hook in group:
                if not isinstance(hook, kinds):
                    raise TypeError(f"All hooks must be SessionRunHook instances, given: {hook}")
        if mode == ModeKeys.PREDICT:
            export_outputs = _export_outputs(export_outputs, predictions)
        return super().__new__(cls, mode, predictions, loss, train_op, eval_metric_ops or {}, export_outputs,
                               hooks[0], hooks[1], scaffold, hooks[2], hooks[3])


class _ExportOutput:
    """An EstimatorSpec's `export_outputs` entry: the signature it becomes in an export (`kind`: "predict", or
    "classify"/"regress", which read one serialized tf.Example string named `inputs`) and its outputs by name."""

    kind: str
    outputs: dict


class PredictOutput(_ExportOutput):
    """`tf.estimator.export.PredictOutput`: its tensors by name (a single tensor is named `output`)."""

    kind = "predict"

    def __init__(self, outputs):
        named = outputs if isinstance(outputs, dict) else {"output": outputs}
        for key in named:
            if not isinstance(key, str):
                raise ValueError(f"Prediction output key must be a string, got {key!r}")
        self.outputs = dict(named)


class ClassificationOutput(_ExportOutput):
    """`tf.estimator.export.ClassificationOutput`: `classes` and/or `scores`."""

    kind = "classify"

    def __init__(self, scores=None, classes=None):
        if scores is None and classes is None:
            raise ValueError("Cannot create a ClassificationOutput with empty arguments. At least one of `scores` "
                             "and `classes` must be defined.")
        self.outputs = {name: value for name, value in (("classes", classes), ("scores", scores)) if value is not None}


class RegressionOutput(_ExportOutput):
    """`tf.estimator.export.RegressionOutput`: its `outputs`."""

    kind = "regress"

    def __init__(self, value):
        self.outputs = {"outputs": value}


_SERVING_DEFAULT = "serving_default"


def _export_outputs(export_outputs, predictions) -> dict:
    """A PREDICT EstimatorSpec's export outputs as Estimator made them: its predictions as `serving_default`
    when none is given; one output given under another name is also `serving_default`."""
    if export_outputs is None:
        export_outputs = {_SERVING_DEFAULT: PredictOutput(predictions)}
    if not isinstance(export_outputs, dict):
        raise TypeError(f"`export_outputs` must be dict, received: {export_outputs}.")
    if not all(isinstance(output, _ExportOutput) for output in export_outputs.values()):
        raise TypeError(f"Values in `export_outputs` must be ExportOutput objects, received: {export_outputs}.")
    export_outputs = dict(export_outputs)
    if len(export_outputs) == 1:
        export_outputs.setdefault(_SERVING_DEFAULT, next(iter(export_outputs.values())))
    elif _SERVING_DEFAULT not in export_outputs:
        raise ValueError("Multiple `export_outputs` were provided, but none of them are specified as the default. "
                         "Use `tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY` to indicate which one is the default.")
    return export_outputs


class Tf1Graph:
    """The graph a model_fn builds while a tf.function traces it, made to behave as one Estimator graph.

    `variables` (TF1 name -> variable) persists across traces; `local_variables` is the store for variables
    TF1 kept in LOCAL_VARIABLES (a fresh dict per evaluation). Entered inside a function being traced.
    """

    def __init__(self, variables: dict, local_variables: dict | None = None):
        self.variables = variables
        self.local_variables = {} if local_variables is None else local_variables
        self._exit = contextlib.ExitStack()
        self._created = set()  # ids of the variables this graph made
        self._making_metric = 0  # inside a Keras metric's add_weight

    @property
    def made_variables(self) -> bool:
        """Whether this graph made model variables (the first of a model's graphs; not a metric's locals)."""
        return any(id(variable) in self._created for variable in self.variables.values())

    @contextlib.contextmanager
    def making_variables(self, graph):
        """The variables made in `graph` (the default one: a mode's graph, where its hooks' begin() runs) made as
        the model_fn's are: in this store, by their TF1 names, outside the graph."""
        self.graph = graph
        with tf.variable_creator_scope(self._variable):
            yield

    def __enter__(self) -> Tf1Graph:
        if tf.executing_eagerly():
            raise RuntimeError("a model_fn builds a graph: run it inside a tf.function")
        self.graph = tf.compat.v1.get_default_graph()
        # A FuncGraph shares the variable collections, variable store and scope counts with the eager
        # context (so names would go `dense_1`, `dense_2` trace after trace); each model_fn call gets its own,
        # as each Estimator graph had.
        saved = self.graph._collections  # noqa: SLF001  (FuncGraph keeps no public way to swap them)
        self.collections = self.graph._collections = {}  # noqa: SLF001  (kept: the mode's hooks run in them)
        self._exit.callback(setattr, self.graph, "_collections", saved)
        self._exit.enter_context(tf.variable_creator_scope(self._variable))
        # A Keras metric's variables (TensorFlow 2's Estimator took metric objects in eval_metric_ops) were local
        # ones, as TF1's metrics' are: each evaluation starts from zero, no checkpoint holds them
        metric_add_weight = tf_keras.metrics.Metric.add_weight

        def add_metric_weight(metric, *args, **kwargs):
            self._making_metric += 1
            try:
                return metric_add_weight(metric, *args, **kwargs)
            finally:
                self._making_metric -= 1

        tf_keras.metrics.Metric.add_weight = add_metric_weight
        self._exit.callback(setattr, tf_keras.metrics.Metric, "add_weight", metric_add_weight)
        # tf_keras asks whether it runs eagerly outside functions to choose between TF1's graph Keras (its layers,
        # Input placeholders) and TF2's (KerasTensors); inside this wrapped function it would get its layers from
        # the first and its Inputs from the second (a `Sequential([..., input_shape=...])` in a model_fn then
        # recurses for ever). The answer Estimator's graph gave, for Keras's own questions only:
        keras_tf1 = tf.compat.v2.compat.v1  # (tf_keras reaches TensorFlow as tensorflow.compat.v2)
        outside = keras_tf1.executing_eagerly_outside_functions
        keras_tf1.executing_eagerly_outside_functions = lambda: False
        self._exit.callback(setattr, keras_tf1, "executing_eagerly_outside_functions", outside)
        # TF1 summary ops stay TF1's, as in Estimator's graph (SummarySaver writes what they make): TF2 turns them
        # into writes to a default TF2 writer when there is one (Keras's TensorBoard callback pushes its own), which
        # no fetch would run, and warns when there is none
        invoke_v2 = tf1_summary._should_invoke_v2_op  # noqa: SLF001
        tf1_summary._should_invoke_v2_op = lambda: False  # noqa: SLF001
        self._exit.callback(setattr, tf1_summary, "_should_invoke_v2_op", invoke_v2)
        # `init_from_checkpoint` sets an initializer that Estimator ran once, when no checkpoint existed; in a
        # traced function its assign would run at every step. Here it fills the variables made now, once
        # (a checkpoint restored afterwards wins, as Estimator's did).
        original = checkpoint_utils._set_checkpoint_initializer  # noqa: SLF001
        checkpoint_utils._set_checkpoint_initializer = self._warm_start  # noqa: SLF001
        self._exit.callback(setattr, checkpoint_utils, "_set_checkpoint_initializer", original)
        # ExponentialMovingAverage.variables_to_restore names each variable by `v.op.name`, which a variable made
        # eagerly has not: the same map, by the TF1 names the variables have here
        original_to_restore = moving_averages.ExponentialMovingAverage.variables_to_restore
        moving_averages.ExponentialMovingAverage.variables_to_restore = _variables_to_restore
        self._exit.callback(setattr, moving_averages.ExponentialMovingAverage, "variables_to_restore",
                            original_to_restore)
        # A TF1 layer's kernel_regularizer: its loss is added when the layer makes a variable new to the graph, not
        # when it reuses one (tf_keras's own test of that fails in a function whose variables are made eagerly)
        original_add_weight = legacy_tf_layers.Layer.add_weight
        legacy_tf_layers.Layer.add_weight = _regularized_once(original_add_weight)
        self._exit.callback(setattr, legacy_tf_layers.Layer, "add_weight", original_add_weight)
        # TF1 code names a variable by its op (`tf.summary.histogram(v.op.name, v)`, slim's assign_from_checkpoint_fn,
        # `{v.op.name: v}` maps for a Saver), which a variable made eagerly has not: the model_fn's variables answer
        # with their TF1 name. TensorFlow's own code keeps asking the variable (it tests `hasattr(v, "op")`).
        original_op = resource_variable_ops.BaseResourceVariable.op
        resource_variable_ops.BaseResourceVariable.op = property(functools.partial(_variable_op, self, original_op))
        self._exit.callback(setattr, resource_variable_ops.BaseResourceVariable, "op", original_op)
        original_partitioned = variable_scope._VariableStore._get_partitioned_variable  # noqa: SLF001
        variable_scope._VariableStore._get_partitioned_variable = _refuse_partitioned  # noqa: SLF001
        self._exit.callback(setattr, variable_scope._VariableStore, "_get_partitioned_variable", original_partitioned)
        # In Estimator's graph `==` on tensors was identity and tensors were hashable (TF2's element-wise
        # equality applies only to functions traced eagerly, as this one is): TF1 code relies on it
        # (`if train_op not in tf.get_collection(TRAIN_OP)` in tf_slim's create_train_op, tensors as dict keys).
        equality = tf.Tensor._USE_EQUALITY  # noqa: SLF001  (what disable_tensor_equality sets; no getter)
        tf.compat.v1.disable_tensor_equality()
        self._exit.callback(setattr, tf.Tensor, "_USE_EQUALITY", equality)
        return self

    def __exit__(self, *exc_info):
        return self._exit.__exit__(*exc_info)

    def _variable(self, next_creator, **kwargs):
        requested = kwargs.get("name") or "Variable"
        # The name TF1's graph gives this variable: get_variable passes the full name (outside any name
        # scope); tf.Variable(name=...) is scoped and made unique; a name ending in "/" is taken as it is. The
        # graph that names it is the one being built: in a while loop's body (dynamic_rnn's cell) that is the
        # body's graph, whose scope get_variable cleared, not the model_fn's, still in the loop's scope.
        graph = tf.compat.v1.get_default_graph()
        name = requested.rstrip("/") if requested.endswith("/") else graph.unique_name(requested)
        collections_ = [LOCAL_VARIABLES] if self._making_metric else list(kwargs.get("collections") or [GLOBAL_VARIABLES])
        if kwargs.get("trainable", True) is not False and TRAINABLE_VARIABLES not in collections_:
            collections_.append(TRAINABLE_VARIABLES)
        store = self.local_variables if LOCAL_VARIABLES in collections_ else self.variables
        variable = store.get(name)
        if variable is None:
            # A caching device is where reads are cached, a placement hint; dynamic_rnn's is a function of the op,
            # which a variable made eagerly cannot take.
            kwargs.pop("caching_device", None)
            initial_value = kwargs.get("initial_value")
            if tf.is_symbolic_tensor(initial_value):  # tf.Variable(tf.zeros(...)), get_variable(initializer=<tensor>)
                kwargs["initial_value"] = self._computed_once(name, initial_value)
            with tf.init_scope():  # (which keeps the graph's name scope: the name given ends in "/", taken whole)
                variable = next_creator(**{**kwargs, "name": name + "/"})
            store[name] = variable
            self._created.add(id(variable))
        for key in collections_:  # (wrap_function also files the variables it is told of: once each)
            if not any(member is variable for member in self.graph.get_collection(key)):
                self.graph.add_to_collection(key, variable)
        return variable

    def _computed_once(self, name: str, tensor) -> np.ndarray:
        """A variable's initial value given as a tensor of the graph being traced, computed now: TF1 ran its
        initializer once, where a variable made eagerly cannot hold an op of a trace. The ops it comes from are
        copied into a graph of their own (their seeds with them) and run there."""
        inputs = {placeholder.op for placeholder in [*self.graph.inputs, *self.graph.internal_captures]}
        graph = tf.Graph()
        try:
            lifted = lift_to_graph.lift_to_graph([tensor], graph, disallowed_placeholders=inputs)
        except lift_to_graph.UnliftableError as error:
            raise ValueError(f"variable {name}: its initial value ({tensor.name}) is computed from the model_fn's "
                             "input or from another variable, which a migrated model cannot evaluate when it makes "
                             "its variables; give it an initializer that needs neither (a constant, "
                             "tf.compat.v1.zeros_initializer(), a random initializer)") from error
        with tf.compat.v1.Session(graph=graph) as session:
            return session.run(lifted[tensor])

    def _warm_start(self, variable, ckpt_file, tensor_name, slice_spec, name="checkpoint_initializer"):
        """`tf.compat.v1.train.init_from_checkpoint`'s initializer for one variable, applied now to a
        variable this trace made (later traces find it initialised)."""
        if id(variable) not in self._created:
            return
        if slice_spec:
            raise ValueError(f"init_from_checkpoint into the partitioned variable {variable.name} is not migrated")
        with tf.init_scope():
            variable.assign(tf.train.load_checkpoint(ckpt_file).get_tensor(tensor_name))


def _regularized_once(add_weight):
    """A TF1 layer's `add_weight`, its regularizer's loss added (to the layer's losses, which a TF1 graph files
    under REGULARIZATION_LOSSES) only for a variable that this graph did not hold before, as TF1's layers did."""

    def regularized(layer, *args, **kwargs):
        if "regularizer" in kwargs:
            regularizer = kwargs.pop("regularizer")
        elif len(args) > _REGULARIZER_POSITION:
            regularizer, args = args[_REGULARIZER_POSITION], (*args[:_REGULARIZER_POSITION], None,
                                                              *args[_REGULARIZER_POSITION + 1:])
        else:
            regularizer = None
        held = {variable.ref() for variable in tf.compat.v1.global_variables()}
        variable = add_weight(layer, *args, **kwargs)
        if regularizer is not None and variable.ref() not in held:
            layer._handle_weight_regularization(args[0] if args else kwargs["name"], variable, regularizer)  # noqa: SLF001
        return variable

    return regularized


_REGULARIZER_POSITION = 4  # add_weight(name, shape, dtype, initializer, regularizer, ...)


class VariableOp(NamedTuple):
    """What TF1 code reads of a variable's op (`v.op.name`, `.type`, `.graph`), for a model_fn's variable made
    eagerly, which has none."""

    name: str
    graph: tf.Graph
    type: str = "VarHandleOp"


# Modules that ask a variable for its op to choose a path (TensorFlow's, Keras's, this package's): they get the
# variable's own answer
_OWN_OP_READERS = ("tensorflow.", "tf_keras.", "keras.", "estimator_migrate.")


def _variable_op(graph: Tf1Graph, original: property, variable):
    """`variable.op` while a model_fn builds: its VariableOp for one of the model_fn's variables read by the program
    (or a library of its own: tf_slim), the variable's own answer otherwise."""
    caller = sys._getframe(1).f_globals.get("__name__", "")  # noqa: SLF001  (who reads decides)
    # (the caller first: TensorFlow asks of every variable while it traces, and need not wait for the search)
    if not caller.startswith(_OWN_OP_READERS) and any(
            variable is made for made in (*graph.variables.values(), *graph.local_variables.values())):
        return VariableOp(variable.name.rsplit(":", 1)[0], graph.graph)
    return original.fget(variable)


def _variables_to_restore(ema, moving_avg_variables=None) -> dict:
    """`ExponentialMovingAverage.variables_to_restore` in a model_fn's graph: the name each variable is restored
    from (its average's, for the averaged ones: by default the trainable variables and those of the
    MOVING_AVERAGE_VARIABLES collection; its own TF1 name for every other global variable) -> the variable."""
    if moving_avg_variables is None:
        moving_avg_variables = tf.compat.v1.trainable_variables() + tf.compat.v1.moving_average_variables()
    averaged = list({variable.ref(): variable for variable in moving_avg_variables}.values())
    restore = {ema.average_name(variable): variable for variable in averaged}
    averaged_names = {variable.name for variable in averaged}
    for variable in tf.compat.v1.global_variables():
        name = variable.name.split(":")[0]
        if variable.name not in averaged_names and name not in restore:
            restore[name] = variable
    return restore


def _refuse_partitioned(store, name, *args, **kwargs):
    """A partitioned variable (`get_variable(partitioner=...)`, a variable scope's partitioner): refused with one
    error. A migrated model holds each variable whole, and an embedding lookup over TF1's parts maps ids to rows
    otherwise than over the whole variable ('mod' strategy): dropping the partitioner would compute differently."""
    raise ValueError(f"variable {name}: a partitioned variable (get_variable(partitioner=...) or a variable_scope's "
                     "partitioner) is not migrated: a migrated model holds each variable whole, and a lookup over its "
                     "parts maps ids to rows differently; remove the partitioner (the Estimator's checkpoints of the "
                     "parts then do not carry over)")


class _NewSession(tf_keras.callbacks.Callback):
    """Each Estimator training call ran in a new session, its local variables initialised afresh (a streaming
    metric in the TRAIN spec, logged by a hook, counts from the call's first batch); the graph here lives on
    from call to call, its local variables set back to their initial values when a training begins."""

    def __init__(self, graph: ModeGraph):
        super().__init__()
        self.graph = graph

    def on_train_begin(self, logs=None):
        self.graph.initialize_local_variables()


class _RunSessionHooks(tf_keras.callbacks.Callback):
    """A training's SessionRunHooks, begun and ended with it; WrappedModelFn.train_step runs them per step."""

    steps_eagerly = True  # fit must run the steps eagerly (run_eagerly) for the hooks to choose their fetches

    def __init__(self, model, hooks):
        super().__init__()
        self.running = SessionHooks(hooks, model._train_graph, model.making_variables)  # noqa: SLF001
        self.running.begin()  # made with the training's callbacks: before the training restores a checkpoint

    def on_train_begin(self, logs=None):
        self.running.after_create_session()
        self.model.session_hooks = self.running

    def on_train_end(self, logs=None):
        self.model.session_hooks = None
        self.running.end()


class _StepCounter(tf_keras.optimizers.SGD):
    """The compiled optimizer of a wrapped model_fn: only its `iterations` are used (the global step after
    each step); the model_fn's own TF1 optimizer updates the weights."""


def _flat_input(features, labels) -> list:
    """A batch as the wrapped graph takes it: the features' tensors, then the labels' (when there are)."""
    return tf.nest.flatten(features) + ([] if labels is None else tf.nest.flatten(labels))


def _features_and_labels(batch):
    if isinstance(batch, tuple) and len(batch) == 2:
        return batch
    return batch, None


class WrappedModelFn(tf_keras.Model):
    """A tf_keras model training, evaluating and predicting with an Estimator model_fn as written.

    `model_fn(features, labels, mode, params, config)` gets the arguments it takes, as Estimator passed them
    (by name; a copy of `params`; `config`: the TrainingConfig `estimator_training.configure` attached). Its
    EstimatorSpec's train_op is the training step, its `loss` is logged per step, and `optimizer.iterations`
    follows the global step. `written_for_tf1`: the program ran on TensorFlow 1.x, whose hooks' fetches of a
    variable gave its value after the step (compat.wrapped_hooks.ModeGraph).
    """

    def __init__(self, model_fn, params=None, warm_start_from=None, written_for_tf1: bool = False, **kwargs):
        super().__init__(**kwargs)
        self.written_for_tf1 = written_for_tf1  # hooks fetch variables as TF 1.x gave them (wrapped_hooks.ModeGraph)
        if not callable(model_fn):
            raise TypeError(f"model_fn must be callable, got {type(model_fn).__name__}")
        self.model_fn = model_fn
        self.model_fn_params = copy.deepcopy(params or {})  # as Estimator's constructor: later changes are not seen
        self.warm_start_settings = warm_start.settings_of(warm_start_from)
        self.tf1_variables = {}  # TF1 name -> variable: tracked, so checkpoints hold them
        self.trained_graph = True  # False when only a PREDICT graph made the variables (no optimizer's)
        self.stateful_random_ops = []  # the op types of the TRAIN graph drawing from the global RNG
        self._train_graph = None  # tf1_graph(TRAIN), made with the variables
        self.session_hooks = None  # the SessionHooks of the training under way, if it has any
        # mode -> what its latest graph's Scaffold Saver restores under other names (_restored_from); a UserDict,
        # which Keras does not track as a checkpoint dependency
        self.restored_from = collections.UserDict()
        self.compile(optimizer=_StepCounter())

    def _call_model_fn(self, features, labels, mode: str) -> EstimatorSpec:
        """Call the model_fn as Estimator did (`_call_model_fn`), after making the global step."""
        parameters = inspect.signature(self.model_fn).parameters
        kwargs = {}
        if "labels" in parameters:
            kwargs["labels"] = labels
        elif labels is not None:
            raise ValueError("model_fn does not take labels, but input_fn returns labels.")
        for name, value in (("mode", mode), ("params", self.params_for_model_fn(mode)),
                            ("config", getattr(self, "estimator_config", None))):
            if name in parameters:
                kwargs[name] = value
        step = tf.compat.v1.train.get_or_create_global_step()
        # Estimator's graph held the variable as `global_step`, which hooks fetch by name ("global_step:0"); here the
        # variable lives outside the graph: its value goes by that name.
        # ("global_step/": the name as it is, which the variable's scope already reserved; no op has it)
        named = tf.identity(step, name="global_step/")
        if named.name != "global_step:0":
            raise RuntimeError(f"the global step's read is named {named.name}")
        # Estimator read it once before the model_fn (training_util._get_or_create_global_step_read), and the built-in
        # hooks (StopAtStepHook, StepCounterHook, ...) fetch that read: made here (the variable lives outside the
        # graph, where TF's own helper cannot name it).
        with tf.compat.v1.name_scope("global_step/"):
            tf.compat.v1.add_to_collection(training_util.GLOBAL_STEP_READ_KEY, step.read_value() + 0)
        spec = self.estimator_spec(tf.autograph.experimental.do_not_convert(self.model_fn)(features=features, **kwargs))
        _check_scaffold(spec.scaffold, mode)
        if mode == ModeKeys.PREDICT and spec.prediction_hooks:
            raise ValueError(f"model_fn returns prediction_hooks ({', '.join(type(h).__name__ for h in spec.prediction_hooks)}): "
                             "hooks of predict() are not migrated")
        return spec

    def params_for_model_fn(self, mode: str) -> dict:
        """The `params` the model_fn gets in `mode`: a copy of the estimator's, as Estimator passed them."""
        return copy.deepcopy(self.model_fn_params)

    def params_for_input_fn(self, mode: str) -> dict:
        """The `params` an input_fn gets in `mode`: a copy of the estimator's, as Estimator's `params` gave."""
        return copy.deepcopy(self.model_fn_params)

    def estimator_spec(self, spec) -> EstimatorSpec:
        """The EstimatorSpec the model_fn returned, checked."""
        if not isinstance(spec, EstimatorSpec):
            raise TypeError(
                f"model_fn `{getattr(self.model_fn, '__qualname__', self.model_fn)}` returned "
                f"{type(spec).__name__}; it must return compat.wrapped_model_fns.EstimatorSpec "
                "(what `migrate rewrite` makes of tf.estimator.EstimatorSpec)"
            )
        return spec

    def tf1_graph(self, mode: str, element_spec, local_variables: dict | None = None) -> ModeGraph:
        """The model_fn's graph for `mode` over inputs of `element_spec`. Its `step` is a function of the
        input's flattened tensors returning what Estimator fetched: TRAIN {"loss", "step"} after the train_op,
        EVAL the metrics' updates (of a batch), PREDICT the predictions; EVAL's `values` reads the metrics
        (no input). Its `hooks` are the EstimatorSpec's training (chief included) or evaluation hooks.

        Built with `tf.compat.v1.wrap_function` and pruned to those fetches, so that, as in Estimator's
        session, an op runs only when a fetch needs it (a train_op a model_fn builds in every mode does not
        train during evaluation; a tf.function would run every stateful op it traced)."""
        features_spec, labels_spec = (tf.nest.map_structure(_relaxed, part) for part in _features_and_labels(element_spec))
        if mode == ModeKeys.PREDICT:
            labels_spec = None
        built = {}

        def graph(features, labels=None):
            with Tf1Graph(self.tf1_variables, local_variables) as tf1:
                spec = self._call_model_fn(features, labels, mode)
                # Estimator ran a Scaffold's init_fn when its session started without a checkpoint: here once,
                # when this graph has made the variables (a checkpoint restored afterwards wins, as with warm starts)
                built["init_fn"] = spec.scaffold.init_fn if spec.scaffold is not None and tf1.made_variables else None
                if mode == ModeKeys.TRAIN and self.warm_start_settings is not None:
                    # Estimator warm-started its training graph's variables once the model_fn had made them; here
                    # they take the values when made, and a checkpoint restored afterwards wins, as with Estimator
                    # (which warm-started only when model_dir held none).
                    tf.compat.v1.train.warm_start(*self.warm_start_settings)
                built["restored_from"] = {} if mode == ModeKeys.TRAIN else _restored_from(spec.scaffold, self.tf1_variables)
                built["saver"] = getattr(spec.scaffold, "saver", None) if mode == ModeKeys.TRAIN else None
                built["collections"] = tf1.collections
                built["hooks"] = (spec.training_hooks + spec.training_chief_hooks if mode == ModeKeys.TRAIN
                                  else spec.evaluation_hooks if mode == ModeKeys.EVAL else ())
                built["summaries"] = bool(tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.SUMMARIES))
                if mode == ModeKeys.TRAIN:
                    # as Estimator: a `loss` scalar among the summaries, unless the model_fn wrote one
                    if not any(summary.op.name == "loss"
                               for summary in tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.SUMMARIES)):
                        tf.compat.v1.summary.scalar("loss", spec.loss)
                    with tf.control_dependencies([spec.train_op]):
                        built["fetches"] = {"loss": tf.identity(spec.loss),
                                            "step": tf.compat.v1.train.get_global_step().read_value()}
                elif mode == ModeKeys.EVAL:
                    if getattr(self, "added_metric_fns", ()):  # compat.added_metrics, as Estimator's add_metrics
                        added = added_metrics.call_metric_fns(self.added_metric_fns, features, labels, spec.predictions,
                                                              getattr(self, "estimator_config", None))
                        spec = spec._replace(eval_metric_ops={**spec.eval_metric_ops, **added})
                    built["updates"], built["values"] = _metrics(spec)
                else:
                    forwarded = forwarded_features.forwarded_values(self, features, spec.predictions) \
                        if spec.predictions is not None else {}  # compat.forwarded_features, as TF 1.x's
                    built["fetches"] = {**spec.predictions, **forwarded} if forwarded else spec.predictions
                    built["export_outputs"] = forwarded_features.with_forwarded_outputs(spec.export_outputs, forwarded)
            built["feeds"] = _flat_input(features, labels)

        tables = resource.ResourceTracker()  # the lookup tables the model_fn makes (outside the graph)
        with resource.resource_tracker_scope(tables):
            wrapped = tf.compat.v1.wrap_function(graph, [features_spec] if labels_spec is None
                                                 else [features_spec, labels_spec])
        if mode == ModeKeys.EVAL:  # as Estimator: the updates at each batch, the values read once at the end
            built["fetches"] = built["updates"]
        made = ModeGraph(wrapped, built["feeds"], built["fetches"], built["collections"], built["hooks"],
                         self.written_for_tf1)
        # (a table made eagerly, a feature column's vocabulary, was initialized then: None, or another graph's op)
        table_initializers = [op for op in built["collections"].get(tf.compat.v1.GraphKeys.TABLE_INITIALIZERS, ())
                              if op is not None and getattr(op, "graph", None) is wrapped.graph]
        if table_initializers:
            # The graph's lookup tables (a vocabulary's, a head's label_vocabulary) were made outside it, once; their
            # initializers stayed in it. Estimator's Scaffold ran them as the session started: here, once now.
            wrapped.prune([], table_initializers)()
        if built["init_fn"] is not None:
            with made.as_default():  # as the session Estimator gave it: its graph the default one
                built["init_fn"](HookSession(made))
        if mode == ModeKeys.EVAL:
            made.values = wrapped.prune([], built["values"])
        made.export_outputs = built.get("export_outputs")
        made.resources = list(tables.resources)
        self.restored_from[mode] = built["restored_from"]
        if built["saver"] is not None:  # (a training Scaffold's: its retention is model_dir's, as it saved there)
            saver = built["saver"]  # (a UserDict: Keras tracks no plain dict attribute of it)
            self.saver_retention = collections.UserDict(
                max_to_keep=saver._max_to_keep, keep_checkpoint_every_n_hours=saver._keep_checkpoint_every_n_hours)  # noqa: SLF001
        made.summaries = built["summaries"]  # the model_fn wrote summaries of its own
        return made

    def serving_signatures(self, features_spec) -> tuple[dict[str, tuple[str, Callable]], list]:
        """What Estimator's export_saved_model exported of the model_fn, for features of `features_spec` (a
        serving input receiver's): signature key -> (kind, a function of the flattened features returning the
        signature's outputs by name), from the PREDICT spec's export outputs (its predictions by default); and
        the resources those functions use (lookup tables), which the export must hold."""
        graph = self.tf1_graph(ModeKeys.PREDICT, features_spec)
        return {key: (output.kind, graph.wrapped.prune(graph.feeds, output.outputs))
                for key, output in graph.export_outputs.items()}, graph.resources

    def call(self, features, training=False):
        """The PREDICT-mode predictions (Keras's forward pass)."""
        specs = tf.nest.map_structure(lambda t: tf.TensorSpec(t.shape, t.dtype), features)
        return self.tf1_graph(ModeKeys.PREDICT, specs).step(*tf.nest.flatten(features))

    def train_step(self, data):
        features, labels = _features_and_labels(data)
        if self._train_graph is None:
            self.make_variables(tf.nest.map_structure(lambda t: tf.TensorSpec(t.shape, t.dtype), data), ModeKeys.TRAIN)
        if self.session_hooks is None:
            fetched = self._train_graph.step(*_flat_input(features, labels))
        else:  # hooks choose their fetches at each step: the step runs eagerly (fit(run_eagerly), the plain loop)
            fetched, stop = self.session_hooks.step(_flat_input(features, labels))
            self.stop_training = self.stop_training or stop
        self.optimizer.iterations.assign(tf.cast(fetched["step"], self.optimizer.iterations.dtype))
        return {"loss": fetched["loss"]}

    def make_variables(self, element_spec, mode: str | None = None) -> None:
        """Make the model_fn's variables from the input's structure (`dataset.element_spec`), so a checkpoint
        restores into them before training: for training or evaluation, the TRAIN graph's (weights, optimizer
        slots, global step); for prediction, the PREDICT graph's. Without `mode`, an input with labels is
        taken for training's, one of features only for prediction's (a model_fn reading its labels from the
        features, as BERT's, needs the mode)."""
        if mode is None:
            mode = ModeKeys.TRAIN if _features_and_labels(element_spec)[1] is not None else ModeKeys.PREDICT
        training = mode != ModeKeys.PREDICT
        if self._train_graph is not None or (self.tf1_variables and not training):
            return
        graph = self.tf1_graph(ModeKeys.TRAIN if training else ModeKeys.PREDICT, element_spec)
        self.trained_graph = training
        if training:
            self._train_graph = graph
        # Random ops of the graph itself (dropout, sampling): initializers ran eagerly, outside it.
        self.stateful_random_ops = sorted(
            {op.type for op in graph.graph.get_operations() if op.type in STATEFUL_RANDOM_OPS})
        self.built = True

    def estimator_evaluate(self, dataset: tf.data.Dataset, steps: int | None = None,
                           summary_dir: str | None = None, hooks=()) -> dict[str, float]:
        """Estimator.evaluate: the EVAL spec's eval_metric_ops over every batch (or the first `steps`, or until
        a hook requests a stop), `loss` as the mean of the batch losses (Estimator's `metrics.mean(loss)`),
        `global_step`. `hooks` (SessionRunHooks) and the spec's evaluation_hooks run around each batch."""
        # A graph of its own per evaluation: the streaming metrics' accumulators start at zero
        graph = self.tf1_graph(ModeKeys.EVAL, dataset.element_spec, local_variables={})
        hooks = [*hooks, *graph.hooks]
        running = SessionHooks(hooks, graph, self.making_variables) if hooks else None
        if running is not None:
            running.begin()
            running.after_create_session()
        batches = 0
        with self.restoring_as_the_scaffold(ModeKeys.EVAL):
            for batch in dataset if steps is None else dataset.take(steps):
                batches += 1
                if running is None:
                    graph.step(*tf.nest.flatten(batch))
                elif running.step(tf.nest.flatten(batch))[1]:
                    break
            if running is not None:
                running.end()
        if not batches:
            raise ValueError("evaluate: the input_fn's dataset gave no batch")
        values = graph.values()
        return finish_evaluation({name: _python_value(value) for name, value in values.items()}, self, summary_dir)

    def estimator_predict(self, dataset: tf.data.Dataset, predict_keys=None, yield_single_examples: bool = True):
        """Estimator.predict: the PREDICT spec's predictions, per example (or per batch)."""
        prediction_step = self.tf1_graph(ModeKeys.PREDICT, dataset.element_spec).step

        def batches():
            for batch in dataset:
                with self.restoring_as_the_scaffold(ModeKeys.PREDICT):  # per batch: the caller may train in between
                    yield tf.nest.map_structure(np.asarray, prediction_step(*tf.nest.flatten(features_of(batch))))

        return as_estimator_yields(batches(), predict_keys, yield_single_examples)

    @contextlib.contextmanager
    def restoring_as_the_scaffold(self, mode: str):
        """Within it, each variable the `mode` graph's Scaffold Saver restores from another name (a weight from
        its moving average) holds that value, as Estimator's session restored it for an evaluation, a prediction or
        an export; after it, its own value again (Estimator's evaluation left the training's variables alone)."""
        restored_from = self.restored_from.get(mode, {})
        missing = sorted(source for source in restored_from.values() if source not in self.tf1_variables)
        if missing:
            raise ValueError(f"the model_fn's {mode} Scaffold Saver restores {', '.join(missing)}, which the "
                             "model's checkpoint holds only when its training graph made them: evaluate (or "
                             "predict) after training in the same program, or with an input that has labels")
        own = {name: self.tf1_variables[name].numpy() for name in restored_from}
        sources = {name: self.tf1_variables[source].numpy() for name, source in restored_from.items()}
        for name, value in sources.items():
            self.tf1_variables[name].assign(value)
        try:
            yield
        finally:
            for name, value in own.items():
                self.tf1_variables[name].assign(value)

    def making_variables(self, graph):
        """Where hooks' begin() in a graph of the model_fn makes variables: with the model_fn's (SessionHooks)."""
        return Tf1Graph(self.tf1_variables).making_variables(graph)

    @property
    def writes_summaries(self) -> bool:
        """Whether its training writes Estimator's summaries (the model_fn wrote some of its own, and a cadence is
        set), the loss among them: training_callbacks."""
        config = getattr(self, "estimator_config", None)
        return bool(self._train_graph is not None and self._train_graph.summaries and config is not None
                    and config.save_summary_steps)

    def listener_session(self) -> HookSession:
        """The session saving listeners are given (compat.kept_checkpoints.SavingListeners): it runs fetches in the
        TRAIN graph, made with the variables, as a hook's session does."""
        return HookSession(self._train_graph)

    def training_callbacks(self, hooks) -> list[tf_keras.callbacks.Callback]:
        """The callbacks of a training (its variables made with `make_variables`): one that begins it as a new
        session began (`_NewSession`), the TRAIN spec's training hooks that are Keras callbacks (built-in hooks the
        rewrite migrated), then one that runs `hooks` (SessionRunHooks given to train), the spec's SessionRunHooks
        and, when the model_fn wrote summaries of its own, Estimator's summary hook (`SummarySaver`, every
        `save_summary_steps`) around the steps, when there are any. The steps then run one by one, eagerly (each
        hook chooses its fetches at every step)."""
        spec_hooks = self._train_graph.hooks
        callbacks = [_NewSession(self._train_graph),
                     *(hook for hook in spec_hooks if isinstance(hook, tf_keras.callbacks.Callback))]
        session_hooks = [*hooks, *(hook for hook in spec_hooks if isinstance(hook, tf.compat.v1.train.SessionRunHook))]
        if self.writes_summaries:
            config = self.estimator_config
            session_hooks.append(SummarySaver(config.save_summary_steps, config.model_dir))
        return [*callbacks, _RunSessionHooks(self, session_hooks)] if session_hooks else callbacks

    def load_estimator_checkpoint(self, prefix: str | os.PathLike) -> int:
        """An Estimator's `model.ckpt-N` (a model_dir or a prefix) of this model_fn, once its variables exist
        (`make_variables`): every variable by its TF1 name (weights, optimizer slots and powers, the global
        step), all or nothing. Returns N."""
        checkpoint = LegacyCheckpoint(prefix)
        variables = self.tf1_variables
        # A model built for prediction has no optimizer variables: the checkpoint's are not its
        unmatched = sorted(set(checkpoint.shapes) - set(variables) - {EARLY_STOPPING_FLAG}) if self.trained_graph else []
        missing = sorted(set(variables) - set(checkpoint.shapes))
        if unmatched or missing:
            found = [f"no variable of the model_fn for {', '.join(unmatched)}" if unmatched else "",
                     f"nothing in the checkpoint for {', '.join(missing)}" if missing else ""]
            raise CheckpointError(f"{checkpoint.prefix}: not this model_fn's checkpoint: "
                                  + "; ".join(part for part in found if part))
        for name, variable in variables.items():
            if tuple(checkpoint.shapes[name]) != tuple(variable.shape):
                raise CheckpointError(f"{checkpoint.prefix}: {name} has shape {tuple(checkpoint.shapes[name])}, "
                                      f"the model_fn's has {tuple(variable.shape)}")
        for name, variable in variables.items():
            variable.assign(checkpoint.read(name))
        step = int(variables["global_step"].numpy()) if "global_step" in variables else 0
        self.optimizer.iterations.assign(step)
        return step


# What a Scaffold does beyond Estimator's defaults (tf.compat.v1.train.Scaffold's attributes) and its init_fn
_SCAFFOLD_SETTINGS = ("_init_op", "_init_feed_dict", "_ready_op", "_ready_for_local_init_op",
                      "_local_init_op", "_local_init_feed_dict", "_summary_op", "_saver")


class Estimator(WrappedModelFn):
    """The base of a project's own `class MyModel(tf.estimator.Estimator)` whose constructor only hands
    Estimator's its model_fn and settings (`super().__init__(model_fn=..., model_dir=..., config=...,
    params=...)`): the same parameters, and the instance is the migrated estimator (a wrapped model_fn,
    configured as `estimator_training.configure` configures one). `params` and `config` read as Estimator's."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # A name of the project's class that the migrated estimator (a tf_keras.Model, a wrapped model_fn) has too
        # would replace it silently (a helper method named `build`, `call` or `summary`): one error, when defined.
        clashes = sorted(name for name in vars(cls) if not name.startswith("__") and name in _estimator_names())
        if clashes:
            raise TypeError(
                f"{cls.__qualname__} defines {', '.join(clashes)}, which the migrated estimator (a tf_keras.Model "
                "running the model_fn as written: compat.wrapped_model_fns.Estimator) has too: rename "
                f"{'them' if len(clashes) > 1 else 'it'} in {cls.__qualname__}"
            )

    def __init__(self, model_fn, model_dir=None, config=None, params=None, warm_start_from=None):
        super().__init__(model_fn, params=params, warm_start_from=warm_start_from)
        configure(self, model_dir=model_dir, config=config)

    @property
    def params(self) -> dict:
        """A copy of the params, as Estimator's `params` property."""
        return copy.deepcopy(self.model_fn_params)


@functools.cache
def _estimator_names() -> frozenset:
    """The names an instance of `Estimator` has: its class's, a tf_keras.Model's and a wrapped model_fn's own
    attributes (read from an instance), and those `configure` sets."""
    probe = WrappedModelFn(lambda features, labels, mode: None)
    configured = ("estimator_config", "model_dir", "config", "latest_checkpoint", "get_variable_names",
                  "get_variable_value")
    return frozenset(dir(Estimator)) | frozenset(dir(probe)) | frozenset(configured)


def _check_scaffold(scaffold, mode: str) -> None:
    """A default `Scaffold()` is what Estimator made anyway, and its `init_fn` runs when the variables are made
    (`WrappedModelFn.tf1_graph`); an evaluation's or prediction's `saver` says which checkpoint value each variable
    is restored from (`WrappedModelFn.restoring_as_the_scaffold`). One that sets init or ready ops, a summary op or
    a training's Saver other than the default one with its own retention changes how the session starts or
    saves, which a wrapped model_fn does not do."""
    given = [name.lstrip("_") for name in _SCAFFOLD_SETTINGS
             if getattr(scaffold, name, None) is not None] if scaffold is not None else []
    if given == ["saver"] and isinstance(scaffold.saver, tf.compat.v1.train.Saver):
        if mode != ModeKeys.TRAIN:
            return
        saver = scaffold.saver
        # Estimator saved model_dir's checkpoints with a training Scaffold's Saver: its retention is carried over
        # (saver_retention); a Saver saving other than every variable under model.ckpt-<step> is not. (Built, a
        # Saver holds its var_list: without one, the graph's variables.)
        saved = saver._var_list  # noqa: SLF001
        saved = list(saved.values()) if isinstance(saved, dict) else list(saved or [])
        every = {id(v) for v in tf.compat.v1.global_variables() + tf.compat.v1.get_collection("saveable_objects")}
        if {id(v) for v in saved} == every and not saver._pad_step_number:  # noqa: SLF001
            return
        raise ValueError(
            "the model_fn's train Scaffold's Saver saves some of the variables (var_list) or pads the step "
            "(pad_step_number): Estimator saved model_dir's checkpoints with it, and the migrated checkpoints hold "
            "every variable under model.ckpt-<step>; give Saver() only max_to_keep / keep_checkpoint_every_n_hours "
            "(which are carried over)"
        )
    if given:
        raise ValueError(
            f"the model_fn's {mode} Scaffold sets {', '.join(given)}: a wrapped model_fn has no session to start or "
            "save with them (warm start with tf.compat.v1.train.init_from_checkpoint in the model_fn, or a Scaffold's "
            "init_fn, instead; an evaluation's or prediction's Saver only restores)"
        )


def _restored_from(scaffold, variables: dict) -> dict[str, str]:
    """What an EVAL or PREDICT Scaffold's Saver restores under another name than the variable's own (as
    `Saver(ema.variables_to_restore())` restores each weight from its moving average): TF1 name of the model's
    variable -> the name of the checkpoint value it gets. Empty without a Saver, or for one of the variables'
    own names (a list of variables, or none: Estimator's default restore)."""
    var_list = getattr(getattr(scaffold, "saver", None), "_var_list", None)  # what the Saver was given
    if not isinstance(var_list, dict):
        return {}
    names = {id(variable): name for name, variable in variables.items()}
    restored = {}
    for source, variable in var_list.items():
        if id(variable) not in names:
            raise ValueError(f"the model_fn's Scaffold Saver restores {source!r} into {variable!r}, which is not one "
                             "of the model_fn's variables (a partitioned variable, or a list of them, is not migrated)")
        if names[id(variable)] != source:
            restored[names[id(variable)]] = source
    return restored


def _metric_pair(name: str, pair):
    """A TF1 (value, update_op) pair as it is; a Keras metric object updated in the model_fn as TensorFlow 2's
    Estimator took it: its result and its update (its variables are local ones: Tf1Graph)."""
    if isinstance(pair, tf_keras.metrics.Metric):
        if not pair.updates:
            raise ValueError(f'Please call update_state(...) on the "{pair.name}" metric')
        return pair.result(), pair.updates[0]
    if not (isinstance(pair, tuple | list) and len(pair) == 2):
        raise TypeError(f"eval_metric_ops[{name!r}] must be a (value, update_op) pair or a Keras metric, "
                        f"got {type(pair).__name__}")
    return pair


def _metrics(spec: EstimatorSpec) -> tuple[list, dict]:
    """An EVAL spec's metric update ops and value tensors, with Estimator's `loss` (the mean of the batch
    losses)."""
    metrics = dict(spec.eval_metric_ops)
    if "loss" in metrics:
        raise ValueError("eval_metric_ops must not hold `loss` (Estimator adds it)")
    metrics["loss"] = tf.compat.v1.metrics.mean(spec.loss)
    pairs = {name: _metric_pair(name, pair) for name, pair in metrics.items()}
    return [update for _, update in pairs.values()], {name: value for name, (value, _) in pairs.items()}


def _python_value(value) -> float:
    value = np.asarray(value)
    return value.item() if value.ndim == 0 else value


def _relaxed(spec):
    """A batch's TensorSpec with the batch dimension left open, so one trace serves every batch size."""
    if isinstance(spec, tf.TensorSpec) and spec.shape.rank:
        return tf.TensorSpec([None, *spec.shape[1:]], spec.dtype, spec.name)
    return spec
