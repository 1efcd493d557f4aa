"""Estimator's training contract for a migrated canned model, decided when the program runs.

Real programs build their estimator in one function (or module) and train it in another: `build_estimator(
config)` returns it, `task.py` calls `train_and_evaluate(estimator, ...)`. The rewrite cannot always see from
the source which estimator reaches a train call, so the settings the Estimator kept on itself travel with
the migrated model instead:

- `TrainingConfig` holds a RunConfig's checkpoint and summary settings (same names, defaults and checks);
- `configure(model, model_dir=..., config=...)` attaches them to a `compat.canned` model, resolving
  model_dir as the Estimator did (a fresh temporary directory when none is given);
- `train`, `train_and_evaluate`, `evaluate`, `predict` and `export_saved_model` take the model first and
  the Estimator method's own arguments (same names, same positions), and do what the Estimator did with
  them: resume from the latest checkpoint in model_dir, `fit` with `BackupAndRestore` at the RunConfig's
  cadence, keep `keep_checkpoint_max` checkpoints, save the final state, treat `max_steps` as a total.
  The loop target's `train` and `train_and_evaluate` are in `compat.estimator_loop`.

What the source could not prove is checked here, with one error naming the construct and the fix: the
model is one `configure` made, the input_fn returns a `tf.data.Dataset` (or an iterator's tensors, read in a
graph: compat.graph_input), each hook is a Keras callback.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import json
import logging
import math
import os
import re
import tempfile
import weakref
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import tensorflow as tf
import tf_keras
from tensorflow.python.eager import context

from . import (
    chunked_calls,
    estimator_evaluation,
    estimator_export,
    estimator_hooks,
    estimator_prediction,
    graph_input,
    resume,
    seeding,
    step_backup,
    warm_start,
)
from .exact import ExactBackupAndRestore, random_generators
from .kept_checkpoints import KeptCheckpoints, SavingListeners, call_start
from .timed_backup import TimedBackupAndRestore
from .warm_start import WarmStartSettings  # noqa: F401  (tf.estimator.WarmStartSettings, where programs name it)

log = logging.getLogger(__name__)
SessionRunHook = tf.compat.v1.train.SessionRunHook

# Estimator's ModeKeys values, as input_fns and model_fns received them.
TRAIN, EVAL, PREDICT = "train", "eval", "infer"


class ModeKeys:
    """`tf.estimator.ModeKeys`: the same values, which input_fns and model_fns compare `mode` with."""

    TRAIN = TRAIN
    EVAL = EVAL
    PREDICT = PREDICT
DEFAULT_SAVE_CHECKPOINTS_SECS = 600  # RunConfig's when neither cadence is given


class _UseDefault:
    """RunConfig's `_USE_DEFAULT`: a cadence argument not given (None given switches that cadence off)."""

    def __repr__(self) -> str:
        return "USE_DEFAULT"


USE_DEFAULT = _UseDefault()


@dataclasses.dataclass(frozen=True)
class TrainingConfig:
    """A RunConfig's settings that decide how a migrated estimator trains and checkpoints.

    Same names, defaults and checks as `tf.estimator.RunConfig`: giving both `save_checkpoints_steps` and
    `save_checkpoints_secs` is an error; giving neither saves every 600 seconds; giving one as None and not the
    other (or both None, or 0) switches checkpointing off: a training then saves nothing, as Estimator's
    (`saves_checkpoints`). `replace` follows RunConfig.replace: a cadence given there replaces the other one.
    `session_config` and `log_step_count_steps` are accepted and have no effect (TF2 has no sessions; `fit` logs
    progress itself), as are a cluster's `protocol`, `session_creation_timeout_secs` and
    `experimental_max_worker_delay_secs` and `checkpoint_save_graph_def` (TF2 checkpoints hold no graph);
    `device_fn`, `eval_distribute` and `experimental_distribute` are accepted when None (their default): anything
    else is one error.
    `train_distribute` is accepted when it is None (as a program that picks a strategy only on some machines
    passes it) or a strategy of one replica (one device: the Estimator took the same steps as without it; the
    training then runs without it); a strategy of several replicas is one error: the model was built outside its
    scope, and without the strategy each step would take one replica's batch.
    """

    model_dir: str | None = None
    tf_random_seed: int | None = None
    save_summary_steps: int = 100
    save_checkpoints_steps: int | None | _UseDefault = USE_DEFAULT
    save_checkpoints_secs: float | None | _UseDefault = USE_DEFAULT
    keep_checkpoint_max: int = 5
    keep_checkpoint_every_n_hours: float = 10000
    log_step_count_steps: int = 100
    session_config: Any = None
    train_distribute: Any = None
    protocol: str | None = None
    session_creation_timeout_secs: int = 7200
    checkpoint_save_graph_def: bool = True
    experimental_max_worker_delay_secs: int | None = None
    device_fn: Any = None
    eval_distribute: Any = None
    experimental_distribute: Any = None

    def __new__(cls, *args, **settings):
        # `RunConfig(**settings)` migrates as `TrainingConfig(**settings)`: a setting it does not carry over
        # is one error naming it (the dataclass's own says only "unexpected keyword argument").
        unknown = sorted(set(settings) - {field.name for field in dataclasses.fields(cls)})
        if unknown:
            raise TypeError(
                f"RunConfig({unknown[0]}=...) is not a setting the migration carries over (it takes "
                f"{', '.join(field.name for field in dataclasses.fields(cls))}): leave it out of the RunConfig settings"
            )
        return super().__new__(cls)

    def __getattr__(self, name):
        # Only for names the class lacks: a RunConfig property read from it (`config.master`, `task_type`, ...)
        if name.startswith("__"):
            raise AttributeError(name)
        if name in _LOCAL_TASK:
            return _local_task(name)
        raise AttributeError(
            f"RunConfig.{name} is not carried over by the migration: its TrainingConfig holds "
            f"{', '.join(field.name for field in dataclasses.fields(self))} (TF_CONFIG clusters and devices are "
            "not migrated)"
        )

    def __post_init__(self):
        for name, why in _NONE_ONLY.items():
            if getattr(self, name) is not None:
                raise ValueError(f"RunConfig({name}={getattr(self, name)!r}) is not carried over by the migration: "
                                 f"{why}; pass {name}=None (RunConfig's default)")
        if self.train_distribute is not None:
            replicas = getattr(self.train_distribute, "num_replicas_in_sync", None)
            if replicas != 1:
                raise ValueError(
                    f"RunConfig(train_distribute={type(self.train_distribute).__name__}) with {replicas} replicas: a "
                    "migrated estimator built away from its RunConfig, or a model_fn kept as written, trains without a "
                    "distribution strategy, where each step would take one replica's batch; build the estimator where "
                    "the RunConfig is built (a canned estimator then trains under the strategy), or pass "
                    "train_distribute=None"
                )
            # One replica (one device): the Estimator's steps were those of a training without the strategy
            log.info("RunConfig(train_distribute=%s) has one replica: training without it (the same steps)",
                     type(self.train_distribute).__name__)
            object.__setattr__(self, "train_distribute", None)
        steps, secs = self.save_checkpoints_steps, self.save_checkpoints_secs
        if steps is USE_DEFAULT and secs is USE_DEFAULT:  # as RunConfig.__init__ resolves them
            steps, secs = None, DEFAULT_SAVE_CHECKPOINTS_SECS
        elif secs is USE_DEFAULT:
            secs = None
        elif steps is USE_DEFAULT:
            steps = None
        elif steps is not None and secs is not None:
            raise ValueError("Can not provide both save_checkpoints_secs and save_checkpoints_steps.")
        object.__setattr__(self, "save_checkpoints_steps", steps)
        object.__setattr__(self, "save_checkpoints_secs", secs)
        if self.model_dir is not None:
            object.__setattr__(self, "model_dir", os.fspath(self.model_dir))
        if self.tf_random_seed is not None:
            seeding.set_graph_seed(self.tf_random_seed)  # the graph-level seed the Estimator set

    def replace(self, **changes) -> TrainingConfig:
        """A copy with `changes`, as RunConfig.replace."""
        unknown = sorted(set(changes) - {f.name for f in dataclasses.fields(self)})
        if unknown:
            raise ValueError(f"TrainingConfig.replace: {', '.join(unknown)} is not a setting the migration carries over")
        steps, secs = "save_checkpoints_steps", "save_checkpoints_secs"
        if steps in changes and secs not in changes and changes[steps] is not None:
            changes[secs] = None  # RunConfig.replace: the cadence given replaces the other
        elif secs in changes and steps not in changes and changes[secs] is not None:
            changes[steps] = None
        return dataclasses.replace(self, **changes)

    @property
    def saves_checkpoints(self) -> bool:
        """Whether training saves checkpoints: Estimator's `save_checkpoints_secs or save_checkpoints_steps`
        (None or 0 for both switched its CheckpointSaverHook off)."""
        return bool(self.save_checkpoints_steps or self.save_checkpoints_secs)

    @property
    def cadence(self) -> tuple[str, float]:
        """("steps", N) or ("secs", N): when checkpoints are saved; what needs them (train_and_evaluate's
        evaluations, saving listeners) is one error when checkpointing is off, as Estimator raised."""
        if self.save_checkpoints_steps:
            return "steps", self.save_checkpoints_steps
        if self.save_checkpoints_secs:
            return "secs", self.save_checkpoints_secs
        raise ValueError(NO_CHECKPOINT_SAVER)


# TrainingConfig settings taken as None only, and why another value is not
_NONE_ONLY = {
    "device_fn": "it placed the ops of the Estimator's TF1 graph on devices, and a migrated model places its own",
    "eval_distribute": "the Estimator gave each replica whole eval batches (evaluate(steps=N) read N x replicas "
                       "batches, and a last batch the replicas could not share was left out)",
    "experimental_distribute": "its DistributeConfig set up a distributed training, which is not migrated",
}

NO_CHECKPOINT_SAVER = (
    "RunConfig switches checkpointing off (save_checkpoints_steps and save_checkpoints_secs None or 0), and "
    "train_and_evaluate's evaluations and saving listeners follow checkpoint saves: Estimator raised here too "
    "('There should be a CheckpointSaverHook to use saving_listeners'). Give the RunConfig a cadence "
    "(save_checkpoints_steps=N or save_checkpoints_secs=N)"
)


# A RunConfig's view of its task when TF_CONFIG describes no cluster (TF 2.15's values): the one a migrated
# estimator trains as
_LOCAL_TASK = {"is_chief": True, "num_worker_replicas": 1, "num_ps_replicas": 0, "task_type": "worker",
               "task_id": 0, "global_id_in_cluster": 0, "master": "", "evaluation_master": ""}


def _local_task(name: str):
    if json.loads(os.environ.get("TF_CONFIG") or "{}").get("cluster"):
        raise ValueError(f"RunConfig.{name}: TF_CONFIG describes a cluster, and a migrated estimator trains as one "
                         "local task (TF_CONFIG clusters are not migrated)")
    return _LOCAL_TASK[name]


class TrainSpec(NamedTuple):
    """`tf.estimator.TrainSpec`: the same fields, positions and defaults."""

    input_fn: Callable
    max_steps: int | None = None
    hooks: Sequence = ()
    saving_listeners: Sequence = ()


class EvalSpec(NamedTuple):
    """`tf.estimator.EvalSpec`: the same fields, positions and defaults."""

    input_fn: Callable
    steps: int | None = 100
    name: str | None = None
    hooks: Sequence = ()
    exporters: Any = ()
    start_delay_secs: float = 120
    throttle_secs: float = 600


def configure(model: tf_keras.Model, model_dir=None, config: TrainingConfig | None = None,
              warm_start_from=None) -> tf_keras.Model:
    """Attach an Estimator's `model_dir`, `config` and `warm_start_from` to a `compat.canned` model; returns the
    model.

    As Estimator's constructor: `model_dir` and `config.model_dir`, when both given, must agree; when neither
    is, a new temporary directory is used (and logged).
    """
    if config is None:
        config = TrainingConfig()
    elif not isinstance(config, TrainingConfig):
        raise TypeError(f"config must be a compat.estimator_training.TrainingConfig, got {type(config).__name__}")
    if model_dir is not None and config.model_dir is not None and os.fspath(model_dir) != config.model_dir:
        raise ValueError(
            f"model_dir are set both in constructor and RunConfig, but with different values. In constructor: "
            f"'{model_dir}', in RunConfig: '{config.model_dir}' "
        )
    model_dir = os.fspath(model_dir) if model_dir is not None else config.model_dir
    if model_dir is None:
        model_dir = tempfile.mkdtemp()
        log.warning("Using temporary folder as model directory: %s", model_dir)
    model.estimator_config = config.replace(model_dir=model_dir)
    if warm_start_from is not None:  # (a wrapped model_fn was given its own)
        model.warm_start_settings = warm_start.settings_of(warm_start_from)
    # The Estimator's own attributes, where a program reads them from the estimator it was handed (Keras has
    # none of these names)
    model.model_dir = model_dir
    model.config = model.estimator_config
    model.latest_checkpoint = functools.partial(latest_checkpoint, model)
    model.eval_dir = functools.partial(eval_dir, model)
    model.get_variable_names = functools.partial(get_variable_names, model)
    model.get_variable_value = functools.partial(get_variable_value, model)
    # Handed to code the rewrite did not follow (`perform_evaluation(estimator, input_fn, ...)`), the model still
    # answers Estimator's calls: train and export_saved_model (Keras has neither), evaluate and predict given an
    # input_fn (a function: Keras's own never take one)
    model.train = functools.partial(train, model)
    model.export_saved_model = model.export_savedmodel = functools.partial(export_saved_model, model)
    model.evaluate = _estimator_or_keras(functools.partial(evaluate, model), model.evaluate)
    model.predict = _estimator_or_keras(functools.partial(predict, model), model.predict)
    return model


def _estimator_or_keras(estimator_method, keras_method):
    """The method of a configured model: Estimator's when given an input_fn, else Keras's."""

    @functools.wraps(keras_method)
    def method(*args, **kwargs):
        given_input_fn = "input_fn" in kwargs or (args and callable(args[0]) and not isinstance(args[0], tf.Module))
        return (estimator_method if given_input_fn else keras_method)(*args, **kwargs)

    return method


def config_of(model, what: str = "train") -> TrainingConfig:
    """The TrainingConfig `configure` attached to `model`, or one error saying what the model is instead."""
    config = getattr(model, "estimator_config", None)
    if config is None:
        raise TypeError(
            f"{what}(): {type(model).__module__}.{type(model).__name__} is not a migrated estimator "
            "(a model made by compat.estimator_training.configure); migrate the code that builds it"
        )
    return config


def model_dir_of(model) -> str:
    """The model_dir of a migrated estimator (`estimator.model_dir`)."""
    return config_of(model, "model_dir").model_dir


def latest_checkpoint(model) -> str | None:
    """`estimator.latest_checkpoint()`: the newest checkpoint in its model_dir, None when there is none."""
    return tf.train.latest_checkpoint(model_dir_of(model))


_TF1_VARIABLE_KEY = "model/tf1_variables/"  # where a wrapped model_fn's variables are in its checkpoints
_VALUE_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"


def _tf1_checkpoint_values(model) -> dict[str, str]:
    """TF1 name -> checkpoint key of a wrapped model_fn's variables in its latest checkpoint, as Estimator's
    `get_variable_*` read them (from model_dir, not from memory)."""
    if not hasattr(model, "tf1_variables"):
        raise TypeError(
            f"get_variable_names()/get_variable_value(): {type(model).__name__} is a Keras model, whose variables "
            "have no Estimator names (read them with model.get_layer(...).weights or tf.train.load_checkpoint)"
        )
    prefix = latest_checkpoint(model)
    if prefix is None:
        raise ValueError(f"Couldn't find a checkpoint in {model_dir_of(model)}")
    return tf1_checkpoint_keys(prefix)


def tf1_checkpoint_keys(prefix: str) -> dict[str, str]:
    """TF1 name -> checkpoint key of the wrapped model_fn variables in the migrated checkpoint `prefix`."""
    keys = {}
    for key in tf.train.load_checkpoint(prefix).get_variable_to_shape_map():
        if key.startswith(_TF1_VARIABLE_KEY) and key.endswith(_VALUE_SUFFIX):
            escaped = key.removeprefix(_TF1_VARIABLE_KEY).removesuffix(_VALUE_SUFFIX)
            keys[escaped.replace(".S", "/").replace("..", ".")] = key  # tf.train.Checkpoint's escaping of names
    return keys


def get_variable_names(model) -> list[str]:
    """`estimator.get_variable_names()`: a wrapped model_fn's TF1 names in its latest checkpoint; a canned model's
    weights and global step by the Estimator's names (those get_variable_value reads), its optimizer's variables
    (the Estimator listed its slots and hyperparameters too) left out, with a warning saying so."""
    from .canned import CannedHead

    if isinstance(model, CannedHead):
        names = sorted(_canned_weights(model, "get_variable_names"))
        log.warning("get_variable_names(): the migrated canned estimator's weights and global_step by the "
                    "Estimator's names; its optimizer's slots and hyperparameters, which the Estimator listed too, "
                    "are not")
        return names
    return sorted(_tf1_checkpoint_values(model))


def get_variable_value(model, name: str):
    """`estimator.get_variable_value(name)`: that variable in the latest checkpoint. A wrapped model_fn's by its
    TF1 name; a canned model's weights and global step by the Estimator's names (its latest checkpoint restored
    into it, as evaluate does; optimizer slots: one error). A tensor's name (`global_step:0`) reads its variable,
    as Estimator's load_variable did."""
    from .canned import CannedHead

    name = name.removesuffix(":0")
    if isinstance(model, CannedHead):
        return _canned_variable_value(model, name)
    keys = _tf1_checkpoint_values(model)
    if name not in keys:
        raise ValueError(f"{name} is not a variable of the checkpoint in {model_dir_of(model)}")
    return tf.train.load_checkpoint(latest_checkpoint(model)).get_tensor(keys[name])


def _canned_weights(model, what: str) -> dict:
    """A canned model's weights and global step by the Estimator's names, restored from its latest checkpoint
    (Estimator's get_variable_* read model_dir, not memory)."""
    from .canned_checkpoint import estimator_weights

    with training_kept(model, what):
        if not _restored_latest(model, what):
            raise ValueError(f"Couldn't find a checkpoint in {model_dir_of(model)}")
        return estimator_weights(model)


def _canned_variable_value(model, name: str):
    weights = _canned_weights(model, "get_variable_value")
    if name not in weights:
        raise ValueError(f"{name} is not a weight of the migrated canned estimator (its weights: "
                         f"{', '.join(sorted(weights))}; optimizer slots are not read by name)")
    return weights[name].numpy()


def input_dataset(input_fn, mode: str, model, exact: bool = False, session_hooks: Sequence = ()) -> tf.data.Dataset:
    """Call `input_fn` as the Estimator did (with `mode`, `params`, `config` when it takes them): the
    tf.data.Dataset it returns, or the batches of the tensors it returns (an iterator's get_next(), which eager
    TF2 runs once; or an input made from placeholders, which eager TF2 cannot make) read in a graph
    (compat.graph_input), but not for an `exact` training (no checkpoint can hold a session's position); anything
    else is one error. `session_hooks` (SessionRunHooks acting on sessions only: `session_only_hooks`) run on the
    input's graph and sessions, which only an input read in a graph has: otherwise they are one error."""
    if not callable(input_fn):
        raise TypeError(f"input_fn must be callable, got {type(input_fn).__name__}")
    parameters = _parameters(input_fn)
    # Estimator gave an input_fn its own params (a wrapped model_fn's; a canned estimator had none)
    if getattr(model, "input_fn_needs_params", False) and "params" not in parameters:
        raise ValueError(f"input_fn `{_name(input_fn)}` does not include params argument, required by TPUEstimator "
                         "to pass batch size as params['batch_size']")
    params = model.params_for_input_fn(mode) if hasattr(model, "params_for_input_fn") else {}
    offered = {"mode": mode, "params": params, "config": config_of(model)}
    arguments = {key: value for key, value in offered.items() if key in parameters}
    try:
        dataset = input_fn(**arguments)
    except RuntimeError as error:  # it makes placeholders: graph-only, as its whole input is
        if not graph_input.needs_graph(error):
            raise
        dataset = None
    if dataset is None or graph_input.returns_tensors(dataset):  # an iterator's get_next(): read in a graph
        if exact:
            raise ValueError(f"exact resume: input_fn `{_name(input_fn)}` returns tensors (an iterator's get_next()), "
                             "whose position no checkpoint can hold; return the tf.data.Dataset itself")
        return graph_input.graph_input_dataset(input_fn, arguments, _name(input_fn), config_of(model).tf_random_seed,
                                               session_hooks)
    acting = [type(hook).__name__ for hook in session_hooks if _overrides(hook, "begin", "after_create_session", "end")]
    if acting:
        raise ValueError(
            f"hook {', '.join(acting)} acts on the Estimator's TF1 graph and session (begin, after_create_session, "
            f"end): a migrated estimator has them only for an input_fn read as a TF1 graph, and input_fn "
            f"`{_name(input_fn)}` returned a tf.data.Dataset; do what the hook did in the input_fn, or write a "
            "tf_keras.callbacks.Callback"
        )
    if not isinstance(dataset, tf.data.Dataset):
        raise TypeError(
            f"input_fn `{_name(input_fn)}` returned {type(dataset).__name__}; the migrated training needs a "
            "tf.data.Dataset, or the tensors of an iterator's get_next()"
        )
    return dataset


def made_from_input(model, input_fn, mode: str, dataset: tf.data.Dataset | None = None,
                    exact: bool = False) -> tf.data.Dataset | None:
    """For a model whose variables come from its input (a wrapped model_fn: `make_variables`), the input_fn's
    dataset (`dataset` if already made), after making them: a checkpoint then restores into them, an
    Estimator's too. Otherwise `dataset`."""
    if not hasattr(model, "make_variables"):
        return dataset
    if dataset is None:
        dataset = input_dataset(input_fn, mode, model, exact)
    model.make_variables(dataset.element_spec, mode)
    return dataset


def _parameters(function) -> set[str]:
    try:
        return set(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return set()


def _name(function) -> str:
    while isinstance(function, functools.partial):
        function = function.func
    return getattr(function, "__qualname__", repr(function))


def _overrides(hook, *methods: str) -> bool:
    return any(getattr(type(hook), method) is not getattr(SessionRunHook, method) for method in methods)


def session_only_hooks(model, hooks) -> tuple[list, list]:
    """(the SessionRunHooks among `hooks` that act on sessions only, the others) for a model with no TF1 graph (a
    canned or Keras-class estimator); ([], hooks) for a wrapped model_fn, whose graph runs every SessionRunHook.
    The first run on an input read as a TF1 graph (`input_dataset`): an iterator initialized with fed placeholders
    in after_create_session, as TF 1.x's IteratorInitializerHook did."""
    hooks = list(hooks or ())
    if hasattr(model, "make_variables"):
        return [], hooks
    on_sessions = [hook for hook in hooks if graph_input.acts_on_sessions_only(hook)]
    return on_sessions, [hook for hook in hooks if not any(hook is on_session for on_session in on_sessions)]


def callbacks_of(hooks, what: str, model=None) -> list[tf_keras.callbacks.Callback]:
    """The hooks as Keras callbacks; a hook that is still a SessionRunHook is one clear error, except in the
    training of a wrapped model_fn (`model`, its variables made): one callback then runs those and its spec's
    training hooks against its TF1 graph (compat.wrapped_hooks). Another model's training takes TF1's
    LoggingTensorHook (of the global step), StopAtStepHook and StepCounterHook as their callbacks."""
    hooks = list(hooks or ())
    runs_session_hooks = hasattr(model, "training_callbacks")
    if not runs_session_hooks and what == "train":  # TF1's built-in hooks with a meaning for a model with no graph
        hooks = [estimator_hooks.from_tf1(hook) or hook for hook in hooks]
    session_hooks = [hook for hook in hooks if runs_session_hooks and isinstance(hook, SessionRunHook)]
    callbacks = [hook for hook in hooks if not any(hook is session_hook for session_hook in session_hooks)]
    for hook in callbacks:
        if not isinstance(hook, tf_keras.callbacks.Callback):
            raise TypeError(
                f"{what}: hook {type(hook).__name__} is not a Keras callback; SessionRunHooks run only with a model_fn "
                "kept as written (compat.wrapped_model_fns): migrate its class with `migrate rewrite`, or write a "
                "tf_keras.callbacks.Callback"
            )
    return [*callbacks, *model.training_callbacks(session_hooks)] if runs_session_hooks else callbacks


def steps_eagerly(callbacks) -> bool:
    """Whether a callback needs the training's steps run one by one, eagerly (SessionRunHooks: see above)."""
    return any(getattr(callback, "steps_eagerly", False) for callback in callbacks)


def check_limits(steps, max_steps) -> tuple[int | None, int | None]:
    """Estimator.train's checks of `steps` and `max_steps`; returns them as whole steps. A float (`steps / periods`,
    as the Machine Learning Crash Course wrote it) trains as Estimator's did: until the step reaches it."""
    if steps is not None and max_steps is not None:
        raise ValueError("Can not provide both steps and max_steps.")
    if steps is not None and steps <= 0:
        raise ValueError(f"Must specify steps > 0, given: {steps}")
    if max_steps is not None and max_steps <= 0:
        raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
    return tuple(None if limit is None else math.ceil(limit) for limit in (steps, max_steps))


def saving_listeners_of(model, saving_listeners) -> SavingListeners:
    """`train(saving_listeners=...)` around model_dir's saves, given the session of a wrapped model_fn's graph
    (compat.wrapped_hooks.HookSession) where the model has one."""
    session_of = getattr(model, "listener_session", None)
    return SavingListeners(saving_listeners, session_of() if saving_listeners and session_of else None)


def manager_for(checkpoint: tf.train.Checkpoint, config: TrainingConfig, model=None,
                **kwargs) -> tf.train.CheckpointManager:
    """The CheckpointManager in model_dir with the RunConfig's retention (keep_checkpoint_max 0 or None: all), or
    that of the Saver a wrapped model_fn's training Scaffold gave (`model.saver_retention`: Estimator saved with it)."""
    retention = getattr(model, "saver_retention", None) or {
        "max_to_keep": config.keep_checkpoint_max, "keep_checkpoint_every_n_hours": config.keep_checkpoint_every_n_hours}
    return tf.train.CheckpointManager(
        checkpoint,
        config.model_dir,
        max_to_keep=retention["max_to_keep"] or None,  # CheckpointManager refuses 0
        keep_checkpoint_every_n_hours=retention["keep_checkpoint_every_n_hours"],
        **kwargs,
    )


def train(model, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None, *, exact=False):
    """`estimator.train(input_fn, hooks, steps, max_steps)` with `fit` and BackupAndRestore; returns the model.

    Resumes from the latest checkpoint in model_dir, backs up at the RunConfig's cadence (in
    model_dir/backup, so a crash mid-call resumes at the last backup), writes the loss to TensorBoard every
    `save_summary_steps`, and saves the final state (weights, optimizer slots, step) in model_dir.
    `max_steps` is a total across restarts: reached already, nothing is trained. With `exact` (`migrate
    rewrite --exact`) the backups are compat.exact's: a crash mid-call resumes at the same batch, with the same
    random numbers, and ends with the weights of an uninterrupted call.
    """
    steps, max_steps = check_limits(steps, max_steps)
    config = config_of(model)
    dataset = None
    input_hooks, hooks = session_only_hooks(model, hooks)
    if exact and config.tf_random_seed is None:
        # the input's shuffles draw from a seed kept in model_dir, so the epochs after a resume are the same
        with seeding.input_seeded(config.model_dir):
            dataset = input_dataset(input_fn, TRAIN, model, exact, input_hooks)
    dataset = made_from_input(model, input_fn, TRAIN, dataset, exact)
    callbacks = callbacks_of(hooks, "train", model)
    checkpoint = tf.train.Checkpoint(model=model, optimizer=model.optimizer)
    manager = manager_for(checkpoint, config, model)
    if resume.restore_latest(checkpoint, manager) is None:
        check_not_trained_unsaved(model, "train")
        warm_start_afresh(model)
    done = int(model.optimizer.iterations)
    if max_steps is not None and done >= max_steps:
        log.info("Skipping training since max_steps has already saved.")
        return model
    until_stopped = steps is None and max_steps is None
    fault_tolerance = _checkpointing(model, config, manager, saving_listeners, exact)
    eagerly = model.run_eagerly
    if steps_eagerly(callbacks):
        model.run_eagerly, model.train_function = True, None
    if dataset is None:
        dataset = input_dataset(input_fn, TRAIN, model, exact, input_hooks)
    if until_stopped and not exact:  # (exact resume needs a length: its own error says so)
        dataset = estimator_hooks.until_stopped(dataset)
    fit_callbacks = [
        estimator_hooks.RaiseOnNanLoss(),  # Estimator's NanTensorHook, checked before a save as it was
        *fault_tolerance,  # before the user's hooks: Estimator saved before they ran
        *([tf_keras.callbacks.TensorBoard(config.model_dir, update_freq=config.save_summary_steps)]
          if config.save_summary_steps else []),  # (0 or None: Estimator wrote no summaries)
        *callbacks,
    ]
    chunked = not exact and _chunked(model, fit_callbacks, until_stopped)  # (exact resume backs up every step)
    try:
        with trains(model):
            model.fit(
                dataset,
                epochs=1,
                steps_per_epoch=steps if max_steps is None
                else max_steps - (call_start(manager, done, max_steps=max_steps) if fault_tolerance else done),
                callbacks=chunked_calls.sized_calls(fit_callbacks) if chunked else fit_callbacks,
            )
    finally:
        if model.run_eagerly != eagerly:
            model.run_eagerly, model.train_function = eagerly, None
        if chunked:
            chunked_calls.one_step_per_call(model)
    if not fault_tolerance:
        trained_without_checkpoints(model)
    return model


def _chunked(model, callbacks: list, until_stopped: bool) -> bool:
    """Whether fit's calls run the steps up to the next one a callback needs (compat.chunked_calls), so that
    Python runs once per chunk: not where a callback must see every step (the program's own, exact resume's
    step-by-step backups, a cadence on the clock), where the input's end stops the training (fit must know a
    call's steps), nor under a distribution strategy."""
    return not until_stopped and getattr(model, "_distribution_strategy", None) is None \
        and chunked_calls.chunkable(callbacks)


def _checkpointing(model, config: TrainingConfig, manager, saving_listeners, exact: bool) -> list:
    """The callbacks that save a training as Estimator's CheckpointSaverHook did: backups in model_dir/backup
    (a crash resumes at the last one; `exact`: at the same batch) and model_dir's checkpoints at Estimator's steps
    (compat.kept_checkpoints). None when the RunConfig switches checkpointing off: Estimator saved nothing."""
    if not config.saves_checkpoints:
        if saving_listeners:
            raise ValueError(NO_CHECKPOINT_SAVER)
        log.warning("RunConfig switches checkpointing off: this training saves no checkpoint, as Estimator's did")
        return []
    kind, every = config.cadence
    backup_dir = os.path.join(config.model_dir, "backup")
    if exact:
        check_exact(model)
        backup = ExactBackupAndRestore(backup_dir, save_freq=every if kind == "steps" else False,
                                       save_secs=every if kind == "secs" else None)
    elif kind == "steps":
        backup = step_backup.BackupAndRestore(backup_dir, save_steps=every)
    else:
        backup = TimedBackupAndRestore(backup_dir, save_secs=every)
    listeners = saving_listeners_of(model, saving_listeners)
    return [backup, KeptCheckpoints(manager, **{f"save_{kind}": every}, listeners=listeners)]


# Models trained with checkpointing off (RunConfig save_checkpoints_* None or 0): Estimator kept none of that
# training, so its next call found no checkpoint and started from a fresh initialization
_TRAINED_UNSAVED: weakref.WeakSet = weakref.WeakSet()


def trained_without_checkpoints(model) -> None:
    """Record a training whose RunConfig switched checkpointing off: nothing of it is in model_dir."""
    _TRAINED_UNSAVED.add(model)


def check_not_trained_unsaved(model, what: str) -> None:
    """At a call that found no checkpoint in model_dir: one error for a model trained with checkpointing off,
    where Estimator would have run `what` from a fresh initialization, not the weights trained in memory."""
    if model in _TRAINED_UNSAVED:
        raise ValueError(
            f"{what} after a training with checkpointing off (RunConfig save_checkpoints_steps and "
            "save_checkpoints_secs None or 0): Estimator saved nothing of that training, so here it started from a "
            f"fresh initialization, and the migrated model holds the trained weights. Give the RunConfig a cadence "
            "(save_checkpoints_steps=N) so the training is kept, or build a new estimator for a fresh start"
        )


def warm_start_afresh(model) -> None:
    """At a train call that found no checkpoint in model_dir: a canned model given `warm_start_from` takes its
    selected weights from there, as Estimator warm-started (a wrapped model_fn's variables were, when made)."""
    from .canned import CannedHead

    settings = getattr(model, "warm_start_settings", None)
    if settings is not None and isinstance(model, CannedHead):
        warm_start.warm_start_canned(model, settings)


def check_exact(model) -> None:
    """Refuse, with one error, a model whose randomness no checkpoint holds (exact resume could not be)."""
    random_ops = getattr(model, "stateful_random_ops", None)  # a wrapped model_fn's TF1 graph
    if random_ops:
        raise ValueError(
            f"exact resume: the model_fn draws random numbers with TF1 ops ({', '.join(random_ops)}), whose state "
            "no checkpoint holds; train without --exact (it resumes as the Estimator did)"
        )
    random_generators(model)  # tf_keras layers on the global RNG: refused there


def periodic_evaluation(model, train_spec: TrainSpec, eval_spec: EvalSpec) -> estimator_evaluation.PeriodicEvaluation:
    """The EvalSpec's evaluations as a callback of the training: after checkpoint saves (at most every
    throttle_secs) and at the end, metrics to model_dir/eval, exporters under model_dir/export."""
    if not isinstance(train_spec, TrainSpec) or not isinstance(eval_spec, EvalSpec):
        raise TypeError("train_and_evaluate needs a compat.estimator_training.TrainSpec and EvalSpec")
    input_hooks, eval_hooks = session_only_hooks(model, eval_spec.hooks)
    check_evaluation_hooks(model, eval_hooks, "EvalSpec")
    config = config_of(model, "train_and_evaluate")
    kind, every = config.cadence
    exporters = eval_spec.exporters
    if exporters is None:
        exporters = ()
    elif not isinstance(exporters, list | tuple):  # EvalSpec took one exporter as well as a list
        exporters = (exporters,)
    return estimator_evaluation.PeriodicEvaluation(
        lambda: input_dataset(eval_spec.input_fn, EVAL, model, session_hooks=input_hooks),
        steps=eval_spec.steps,
        throttle_secs=eval_spec.throttle_secs,
        summary_dir=eval_dir(model, eval_spec.name),
        every_steps=every if kind == "steps" else None,
        every_secs=every if kind == "secs" else None,
        exporters=exporters,
        export_dir_base=os.path.join(config.model_dir, "export"),
        max_steps=train_spec.max_steps,
        hooks=eval_hooks,
        checkpoint_dir=config.model_dir,
    )


def train_and_evaluate(model, train_spec: TrainSpec, eval_spec: EvalSpec, *, exact=False):
    """`tf.estimator.train_and_evaluate` (local mode) with `fit`: returns (metrics, export results) of the
    last evaluation, or (None, None) when max_steps was already reached. `exact`: as in `train`."""
    evaluation = periodic_evaluation(model, train_spec, eval_spec)
    hooks = [evaluation, *train_spec.hooks]
    train(model, train_spec.input_fn, hooks=hooks, max_steps=train_spec.max_steps,
          saving_listeners=train_spec.saving_listeners, exact=exact)
    return evaluation.result


@contextlib.contextmanager
def training_kept(model, what: str):
    """Estimator's evaluate, export and get_variable_value read a checkpoint into a graph of their own, so a hook
    could call them while its estimator trained (an evaluation every N steps) and the training went on untouched.
    The migrated ones restore the checkpoint into the model itself: called during a train call, they run eagerly
    (a wrapped model_fn's hooks run with its TF1 graph the default) and the training's weights, optimizer state
    and step are put back afterwards (predict, whose generator outlives the call, around each batch it predicts)."""
    if not getattr(model, "trains_now", False):
        yield
        return
    with context.eager_mode():
        state = _training_state(model)
        values = [variable.numpy() for variable in state]
        try:
            yield
        finally:
            for variable, value in zip(state, values, strict=True):
                variable.assign(value)


def _training_state(model) -> list:
    """The variables a restore of (model, optimizer) may change: the model's, its optimizers' (built first, so
    that none is made by a deferred restore afterwards)."""
    variables = list(model.variables)
    for optimizer in (getattr(model, "optimizer", None), getattr(model, "linear_optimizer", None)):
        if isinstance(optimizer, tf_keras.optimizers.Optimizer):
            optimizer.build(model.trainable_variables if optimizer is model.optimizer
                            else getattr(model, "linear_variables", model.trainable_variables))
        if optimizer is not None:
            held = optimizer.variables
            variables += list(held() if callable(held) else held)
    unique = {id(variable): variable for variable in variables}
    return list(unique.values())


@contextlib.contextmanager
def trains(model):
    """Marks `model` as in a train call (see `training_kept`)."""
    before = getattr(model, "trains_now", False)
    model.trains_now = True
    try:
        yield
    finally:
        model.trains_now = before


def _restored_latest(model, what: str) -> str | None:
    """The checkpoint of model_dir now restored into the model (weights, optimizer, step); None when it held none."""
    checkpoint = tf.train.Checkpoint(model=model, optimizer=model.optimizer)
    manager = manager_for(checkpoint, config_of(model, what))
    latest = resume.latest_restorable(manager)
    status = resume.restore_latest(checkpoint, manager)
    if status is None:
        return None
    _expect_partial(status)
    return latest


def _expect_partial(status) -> None:
    """Inference builds no optimizer slots (Estimator's EVAL and PREDICT graphs had none): the checkpoint's
    are not restored, without TensorFlow's warning for each (a carried-over Estimator checkpoint gives a step)."""
    if hasattr(status, "expect_partial"):
        status.expect_partial()


_ESTIMATOR_CHECKPOINT_NAME = re.compile(r"model\.ckpt-(\d+)")


def _checkpoint_given(path: str, what: str) -> str:
    """The checkpoint_path given to evaluate/predict/export: as it is when a checkpoint is there; an Estimator's name
    for a step (`<dir>/model.ckpt-N`), which the migrated training saved as `<dir>/ckpt-N`, -> that checkpoint.
    Neither there: one error saying which steps the directory holds (a program computing the Estimator's names
    met a raw NotFoundError)."""
    if tf.io.gfile.exists(path + ".index"):
        return path
    directory, name = os.path.split(path)
    estimator_name = _ESTIMATOR_CHECKPOINT_NAME.fullmatch(name)
    migrated = os.path.join(directory, f"ckpt-{estimator_name.group(1)}") if estimator_name else None
    if migrated is not None and tf.io.gfile.exists(migrated + ".index"):
        return migrated
    held = sorted(int(index[len("ckpt-"):-len(".index")]) for index in tf.io.gfile.listdir(directory or ".")
                  if re.fullmatch(r"ckpt-\d+\.index", index)) if tf.io.gfile.isdir(directory or ".") else []
    raise ValueError(
        f"{what}(checkpoint_path={path!r}): no checkpoint there"
        + (f" (nor at {migrated!r}, the migrated training's name for step {estimator_name.group(1)})" if migrated else "")
        + f"; {directory or '.'} holds the migrated checkpoints of steps {held} (a training keeps Estimator's: one "
        "when each train call starts, one each save_checkpoints_steps or _secs, one at its end, keep_checkpoint_max "
        "of them)"
    )


def _restore_for_inference(model, checkpoint_path, what: str, required: bool = False) -> str | None:
    """As Estimator's evaluate/predict/export: the given checkpoint, else the latest in model_dir, else
    the model as it is (Estimator initialised a fresh one, with a warning), unless one is `required` (an
    export's). The checkpoint restored, if any."""
    config = config_of(model, what)
    if checkpoint_path is not None:
        checkpoint_path = _checkpoint_given(os.fspath(checkpoint_path), what)
        _expect_partial(resume.restore(tf.train.Checkpoint(model=model, optimizer=model.optimizer), checkpoint_path))
        return checkpoint_path
    restored = _restored_latest(model, what)
    if restored:
        return restored
    check_not_trained_unsaved(model, what)
    if required:
        if getattr(model, "warm_start_settings", None) is not None:
            raise ValueError(f"Couldn't find trained model at {config.model_dir}: exporting the warm start's "
                             "checkpoint (Estimator's fallback) is not migrated; train first")
        raise ValueError(f"Couldn't find trained model at {config.model_dir}.")
    log.warning("Could not find trained model in model_dir: %s, running initialization to %s.",
                config.model_dir, what)
    return None


def evaluate(model, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None) -> dict[str, float]:
    """`estimator.evaluate(...)`: the canned head's metrics (same keys) on the latest checkpoint, written to
    model_dir/eval (eval_<name> with a name), with `global_step`."""
    input_hooks, hooks = session_only_hooks(model, hooks)
    check_evaluation_hooks(model, hooks, "evaluate")
    with training_kept(model, "evaluate"):
        dataset = made_from_input(model, input_fn, EVAL)
        restored = _restore_for_inference(model, checkpoint_path, "evaluate")
        if dataset is None:
            dataset = input_dataset(input_fn, EVAL, model, session_hooks=input_hooks)
        metrics = estimator_evaluation.evaluate_model(model, dataset, steps, eval_dir(model, name), hooks)
        estimator_evaluation.write_checkpoint_path(eval_dir(model, name), restored, metrics["global_step"])
        return metrics


class InMemoryEvaluator(tf_keras.callbacks.Callback):
    """`tf.estimator.experimental.InMemoryEvaluatorHook(estimator, input_fn, steps, hooks, name, every_n_iter)`:
    evaluations of the model as it is in memory while it trains (no checkpoint read), written to model_dir/eval
    (eval_<name>) as `evaluate` writes them, where the early-stopping hooks read them. As the hook: one when the
    training starts (after its restore), one every `every_n_iter` steps of this training, one when it ends.
    `estimator` must be the model it is given to the training of (the hook evaluated that estimator's graph with
    the training's variables): another is one error."""

    def __init__(self, estimator, input_fn, steps=None, hooks=None, name=None, every_n_iter=100):
        super().__init__()
        if every_n_iter is None or every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        check_evaluation_hooks(estimator, hooks, "InMemoryEvaluatorHook")
        self.estimator, self.input_fn, self.steps, self.hooks = estimator, input_fn, steps, list(hooks or ())
        self.name, self.every_n_iter = name, every_n_iter

    def on_train_begin(self, logs=None):
        if self.model is not self.estimator:
            raise ValueError("InMemoryEvaluatorHook is given to the training of another estimator than the one it "
                             "evaluates: give it to that estimator's train()")
        self._start, self._iterations = int(self.model.optimizer.iterations), 0
        self._evaluate()

    def steps_due(self, step: int) -> int:
        """compat.chunked_calls: the step of the next evaluation."""
        return max(step + 1, self._start + self._evaluated_at + self.every_n_iter)

    def on_train_batch_end(self, batch, logs=None):
        self._iterations = int(self.model.optimizer.iterations) - self._start
        if self._iterations >= self._evaluated_at + self.every_n_iter:
            self._evaluate()

    def on_train_end(self, logs=None):
        self._evaluate()  # (also right after the last periodic one, as the hook's end())

    def _evaluate(self) -> None:
        self._evaluated_at = self._iterations
        dataset = input_dataset(self.input_fn, EVAL, self.model)
        estimator_evaluation.evaluate_model(self.model, dataset, self.steps, eval_dir(self.model, self.name),
                                            self.hooks)


def eval_dir(model, name: str | None = None) -> str:
    """`estimator.eval_dir(name)`: where an evaluation's metrics go, model_dir/eval or model_dir/eval_<name>."""
    return os.path.join(model_dir_of(model), "eval" if name is None else f"eval_{name}")


def check_evaluation_hooks(model, hooks, what: str) -> None:
    """Evaluation hooks run only as the SessionRunHooks of a model_fn kept as written (its EVAL graph runs them)."""
    if hooks and not (hasattr(model, "estimator_evaluate") and all(isinstance(hook, SessionRunHook) for hook in hooks)):
        raise ValueError(f"{what}(hooks=...) is not migrated but for the SessionRunHooks of a model_fn kept as "
                         "written: compute what the hook did from the returned metrics")


def predict(model, input_fn, predict_keys=None, hooks=None, checkpoint_path=None, yield_single_examples=True):
    """`estimator.predict(...)`: the canned head's prediction dicts from the latest checkpoint."""
    if hooks:
        raise ValueError("predict(hooks=...) is not migrated")
    if getattr(model, "trains_now", False):
        return _predicting_while_training(model, input_fn, predict_keys, checkpoint_path, yield_single_examples)
    dataset = made_from_input(model, input_fn, PREDICT)
    _restore_for_inference(model, checkpoint_path, "predict")
    if dataset is None:
        dataset = input_dataset(input_fn, PREDICT, model)
    return _predictions(model, dataset, predict_keys, yield_single_examples)


def _predicting_while_training(model, input_fn, predict_keys, checkpoint_path, yield_single_examples):
    """predict() from a hook while its estimator trains: Estimator's generator read the latest checkpoint (or the
    one given) once, in a graph of its own, and the training went on untouched. Here each batch is predicted with
    that checkpoint restored into the model, and the training's state put back (`training_kept`), however late
    the generator is read."""
    path = _checkpoint_given(os.fspath(checkpoint_path), "predict") if checkpoint_path is not None \
        else latest_checkpoint(model)
    if path is None:
        raise ValueError(f"predict() while its estimator trains: no checkpoint in {model_dir_of(model)} yet")
    with training_kept(model, "predict"):
        dataset = made_from_input(model, input_fn, PREDICT)
        if dataset is None:
            dataset = input_dataset(input_fn, PREDICT, model)
        batches = _predictions(model, dataset, predict_keys, yield_single_examples=False)

    def pinned():
        while True:
            with training_kept(model, "predict"):
                _restore_weights(model, path)
                batch = next(batches, None)
            if batch is None:
                return
            yield from estimator_prediction.as_estimator_yields([batch], None, yield_single_examples)

    return pinned()


def _restore_weights(model, path: str) -> None:
    """The checkpoint at `path` into the model, for a prediction: optimizer slots it may lack (a step-0 checkpoint,
    saved before the first update made them) are not required, as Estimator's PREDICT graph had none."""
    if resume.estimator_checkpoint(path):
        resume.carry_over(model, path)
    else:
        _expect_partial(tf.train.Checkpoint(model=model, optimizer=model.optimizer).restore(path))


def _predictions(model, dataset, predict_keys, yield_single_examples: bool):
    if hasattr(model, "estimator_predict"):  # a wrapped model_fn's PREDICT spec, a model_to_estimator model's outputs
        return model.estimator_predict(dataset, predict_keys, yield_single_examples)
    return estimator_prediction.predict(model, dataset, predict_keys, yield_single_examples)


def export_saved_model(model, export_dir_base, serving_input_receiver_fn, assets_extra=None, as_text=False,
                       checkpoint_path=None, experimental_mode=PREDICT):
    """`estimator.export_saved_model(...)`: a SavedModel with the Estimator's signatures, from the latest
    checkpoint; returns its directory (bytes)."""
    if experimental_mode != PREDICT:
        raise ValueError("export_saved_model(experimental_mode=...) is not migrated: export the serving signature")
    with training_kept(model, "export_saved_model"):
        if hasattr(model, "serving_signatures"):  # a wrapped model_fn: its PREDICT variables, for the checkpoint
            model.make_variables(estimator_export.receiver_features_spec(serving_input_receiver_fn), PREDICT)
        _restore_for_inference(model, checkpoint_path, "export_saved_model", required=True)
        return estimator_export.export_saved_model(model, export_dir_base, serving_input_receiver_fn, assets_extra,
                                                   as_text)
