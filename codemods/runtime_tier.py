"""Which Estimator constructs migrate through `compat.estimator_training`, the run-time linked tier.

Tier 1 (codemods/facts.py) links a module's RunConfig, canned estimator, train call and hooks through its
variables and writes the checkpointing code inline. Real projects split these across functions and modules:
`build_estimator(config)` returns the estimator, `task.py` trains it, the estimator variable is assigned twice
(rebuild and retry), there is no model_dir. Here each construct migrates on its own, and the settings travel
with the model when the program runs:

- a canned estimator constructor -> `estimator_training.configure(canned.<builder>(...), model_dir=, config=)`;
- `tf.keras.estimator.model_to_estimator(...)` -> `keras_estimators.model_to_estimator(...)`, the module's
  `tf.keras` made `tf_keras` (codemods/rules/keras2_names.py);
- a custom `Estimator(model_fn=...)` that tier 1 cannot turn into a Keras class (tier 2) ->
  `estimator_training.configure(wrapped_model_fns.WrappedModelFn(model_fn, params=), model_dir=, config=)`,
  the model_fn kept as written (compat/wrapped_model_fns.py runs it), its `tf.estimator.EstimatorSpec` and
  `ModeKeys` references made `wrapped_model_fns`'s;
- `RunConfig(...)` -> `estimator_training.TrainingConfig(...)`;
- `<est>.train(...)`, `.evaluate(...)`, `.predict(...)`, `.export_saved_model(...)` ->
  `estimator_training.<method>(<est>, ...)` (the loop target trains with `compat.estimator_loop`);
- `train_and_evaluate`, `TrainSpec`, `EvalSpec` -> their `compat.estimator_training` twins;
- exporters and serving receiver builders -> `compat.estimator_export`.

What the source cannot prove (which estimator reaches a train call, what an input_fn returns, that a hook
became a callback) the runtime checks, failing with one clear error. The tier applies only where the whole
project builds no estimator that stays TF1 (`ProjectFacts.keeps_estimators`): a RunConfig or train call that
could reach a kept Estimator is left for it, with its TODO.
"""

from __future__ import annotations

import ast
import contextlib
import functools
from collections import Counter
from dataclasses import dataclass, field

import libcst as cst

from codemods.api import ApiResolver, dotted_name
from codemods.canned_estimators import CANNED, DROPPED_WHEN_NONE, accepted, loss_reduction_problem
from codemods.export_apis import EXPORTERS, RECEIVERS, SERVING_INPUT_BUILDERS
from codemods.guidance import RUN_WITH_WRAPPED
from codemods.hook_facts import EARLY_STOPPING_APIS
from codemods.project.facts import WRAPPED_CLASSES, ProjectFacts, estimator_factories
from codemods.syntax import call_arguments, fast_visit, is_none, keyword_args, nodes_of_types

# Estimator methods the tier rewrites, and the keyword only an Estimator's version of the method takes (a
# Keras model has evaluate and predict too): a call with it is an Estimator's whatever its receiver.
ESTIMATOR_METHODS = {
    "train": "input_fn",
    "evaluate": "input_fn",
    "predict": "input_fn",
    "export_saved_model": "serving_input_receiver_fn",
    "export_savedmodel": "serving_input_receiver_fn",
}
# Their parameters (TF 2.15's Estimator): a call giving another keyword, or more positional arguments, is not an
# Estimator's (tf.contrib.learn's `evaluate(input_fn=..., metrics=...)`, a project's own method)
ESTIMATOR_METHOD_PARAMETERS = {
    "train": ("input_fn", "hooks", "steps", "max_steps", "saving_listeners"),
    "evaluate": ("input_fn", "steps", "hooks", "checkpoint_path", "name"),
    "predict": ("input_fn", "predict_keys", "hooks", "checkpoint_path", "yield_single_examples"),
    "export_saved_model": ("export_dir_base", "serving_input_receiver_fn", "assets_extra", "as_text",
                           "checkpoint_path", "experimental_mode"),
    "export_savedmodel": ("export_dir_base", "serving_input_receiver_fn", "assets_extra", "as_text",
                          "checkpoint_path", "strip_default_attrs"),
}


def estimator_method_call(call: cst.Call, method: str | None, keyword_needed: bool = True) -> bool:
    """Whether `<receiver>.method(...)` can be an Estimator's call by its arguments: nothing its parameters do
    not hold, and (`keyword_needed`) given the keyword only an Estimator's method takes."""
    if method not in ESTIMATOR_METHODS:
        return False
    parameters = ESTIMATOR_METHOD_PARAMETERS[method]
    keywords = {arg.keyword.value for arg in call.args if arg.keyword is not None}
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    fits = keywords <= set(parameters) and len(positional) <= len(parameters)
    return fits and (ESTIMATOR_METHODS[method] in keywords or not keyword_needed)


# RunConfig's parameters in order (TF 1.x wrote `RunConfig(model_dir, ...)`; the same order in v1 and v2)
RUNCONFIG_PARAMS = ("model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_steps", "save_checkpoints_secs",
                    "session_config", "keep_checkpoint_max", "keep_checkpoint_every_n_hours", "log_step_count_steps",
                    "train_distribute", "device_fn", "protocol", "eval_distribute", "experimental_distribute",
                    "experimental_max_worker_delay_secs", "session_creation_timeout_secs", "checkpoint_save_graph_def")
# RunConfig arguments TrainingConfig takes (the others change how or where training runs: kept, with a TODO).
CONFIG_ARGUMENTS = (
    "model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_steps", "save_checkpoints_secs",
    "keep_checkpoint_max", "keep_checkpoint_every_n_hours", "log_step_count_steps", "session_config",
    # a cluster's (a session's protocol, waits for the chief, worker delays) or the .meta graphs': nothing a
    # local training computes (TrainingConfig keeps them)
    "protocol", "session_creation_timeout_secs", "checkpoint_save_graph_def", "experimental_max_worker_delay_secs",
    "train_distribute",  # (None only: compat.estimator_training.TrainingConfig checks it)
)
# Built-in hooks that become compat.estimator_hooks callbacks wherever they are built (the early-stopping
# hooks name their estimator: only inline in a train call, codemods/rules/builtin_hooks.py).
RUNTIME_HOOKS = tuple(f"{namespace}.{hook}" for namespace in ("train", "estimator")
                      for hook in ("StopAtStepHook", "StepCounterHook", "ProfilerHook"))
# Built-in hooks that run as they are (TF1's tf.compat.v1.train classes) among the hooks of a model_fn the tier
# wraps or of its train call (compat.wrapped_hooks): they fetch tensors and read the global step, without feeds,
# run options or summaries; given to an estimator whose model is Keras, compat.estimator_training stops with one error.
# (StopAtStepHook is RUNTIME_HOOKS': a callback wherever it is built)
SESSION_HOOKS = tuple(f"{namespace}.{name}" for namespace in ("train", "estimator")
                      for name in RUN_WITH_WRAPPED if f"train.{name}" not in RUNTIME_HOOKS)
# Of those, the ones the runtime takes as their callback in the training of a model with no TF1 graph
CONVERTED_SESSION_HOOKS = ("train.LoggingTensorHook", "estimator.LoggingTensorHook")
MIGRATED_TRAININGS = tuple(f"estimator_{target}.{call}" for target in ("training", "loop")
                           for call in ("train", "train_and_evaluate"))
# -> compat.estimator_training.InMemoryEvaluator (the same parameters; checks when training starts that it is given
# to the training of the estimator it evaluates); TensorFlow 1.x's tf.contrib.estimator had the same class
IN_MEMORY_EVALUATORS = ("estimator.experimental.InMemoryEvaluatorHook", "contrib.estimator.InMemoryEvaluatorHook")
# How tf.estimator's estimator classes are named (the canned ones, head-based and experimental ones)
_ESTIMATOR_CLASS_ENDINGS = ("Estimator", "Classifier", "Regressor", "KMeans", "LinearSDCA")
# TF1 sessions that run SessionRunHooks themselves: a module making one may hand them its hooks
MONITORED_SESSIONS = ("train.MonitoredTrainingSession", "train.MonitoredSession", "train.SingularMonitoredSession")
RUNTIME_MODULES = ("estimator_training", "estimator_loop")  # what the migrated calls are made through
SPECS = {"estimator.TrainSpec": "TrainSpec", "estimator.EvalSpec": "EvalSpec"}
# tf.estimator.add_metrics (tf.contrib.estimator's, TensorFlow 1.x's, is the same function) -> compat.added_metrics
ADD_METRICS = ("estimator.add_metrics", "contrib.estimator.add_metrics")
# TensorFlow 1.x's tf.contrib.estimator.forward_features -> compat.forwarded_features (the same parameters)
FORWARD_FEATURES = ("contrib.estimator.forward_features",)
# tf.estimator's heads and TensorFlow 1.x's tf.contrib.estimator head factories -> compat.estimator_heads' (the same
# parameters): a head builds a wrapped model_fn's EstimatorSpec, or tells a head-based canned estimator its twin
ESTIMATOR_HEADS = {
    **{f"estimator.{name}": name for name in ("BinaryClassHead", "MultiClassHead", "MultiLabelHead", "RegressionHead",
                                             "PoissonRegressionHead", "LogisticRegressionHead", "MultiHead")},
    **{f"contrib.estimator.{name}": name
       for name in ("binary_classification_head", "multi_class_head", "multi_label_head", "regression_head",
                    "poisson_regression_head", "logistic_regression_head", "multi_head")},
}
CUSTOM = "estimator.Estimator"
# tf.keras.estimator.model_to_estimator -> compat.keras_estimators' (same parameters): a compiled Keras 2 model
KERAS_ESTIMATOR = ("keras.estimator.model_to_estimator", "estimator.keras.model_to_estimator",
                   "python.estimator.keras_lib.model_to_estimator", "python.estimator.keras.model_to_estimator")
# The TPU RunConfig's own arguments (compat.tpu_estimators.TPUTrainingConfig keeps them; unused on CPU)
TPU_CONFIG_ARGUMENTS = ("tpu_config", "evaluation_master", "master", "cluster")
# Where TensorFlow 1.x kept the TPU estimator API: tf.estimator.tpu, tf.contrib.tpu and their modules
_TPU_MODULES = ("estimator.tpu.", "contrib.tpu.", "contrib.tpu.python.tpu.tpu_estimator.",
                "contrib.tpu.python.tpu.tpu_config.", "python.estimator.tpu.tpu_estimator.",
                "python.estimator.tpu.tpu_config.")


def tpu_name(path: str | None) -> str | None:
    """`TPUEstimator`, `RunConfig`, `TPUConfig`... when `path` is that name of the TPU estimator API."""
    for module in _TPU_MODULES:
        if path and path.startswith(module) and "." not in path[len(module):]:
            return path[len(module):]
    return None
EXPORT_APIS = (*SERVING_INPUT_BUILDERS, *RECEIVERS, *EXPORTERS)


class RunTimeChecked(str):
    """A reason tier 1 keeps an estimator that this tier resolves: the settings travel with the model, and
    what the source cannot prove is checked when the program runs (compat.estimator_training)."""


def wrapped_problems(call: cst.Call, name: str = "Estimator") -> list[str]:
    """Why a custom `Estimator(...)` (or `TPUEstimator(...)`) call cannot become a wrapped model_fn by itself."""
    parameters = WRAPPED_CLASSES[name]
    if any(arg.star for arg in call.args):
        if name == "Estimator":  # -> wrapped_model_fns.Estimator(<the same arguments>): Estimator's parameters
            return []
        return [f"{name}(*args/**kwargs): pass {', '.join(parameters[:-1])} and {parameters[-1]} by name"]
    positional = [arg for arg in call.args if arg.keyword is None]
    if len(positional) > len(parameters):
        return [f"{name}(...) is given more positional arguments than it takes"]
    given = [*parameters[: len(positional)], *(arg.keyword.value for arg in call.args if arg.keyword)]
    problems = [f"{name}({key}=...) is not migrated yet" for key in given if key not in parameters]
    if "model_fn" not in given:
        problems.append(f"{name}(...) needs model_fn=")
    return problems


def wrapped_arguments(call: cst.Call, name: str = "Estimator") -> dict[str, cst.BaseExpression]:
    """The Estimator parameters a wrapped call gives, by name (positions mapped as the class's)."""
    positional = [arg.value for arg in call.args if arg.keyword is None]
    named = {arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None}
    return {**dict(zip(WRAPPED_CLASSES[name], positional)), **named}


def tier1_only(problem: str) -> bool:
    """A reason tier 1 keeps a custom estimator that wrapping its model_fn resolves: the model_fn's shape,
    where it is defined, and the arguments `wrapped_problems` checks again."""
    return problem.startswith(("model_fn", "the module already uses the name", "Estimator(", "*/** arguments"))


# The kinds of the estimator constructors this tier rewrites
ESTIMATOR_KINDS = ("canned", "wrapped", "wrapped_tpu", "keras_estimator")


@dataclass
class RuntimeTier:
    """The calls (by id) this tier rewrites, each with its kind; and the canned estimators it cannot take."""

    calls: dict[int, str] = field(default_factory=dict)  # id(call) -> "canned" | "config" | "train" | ...
    constructor_problems: dict[int, list[str]] = field(default_factory=dict)  # id(call) -> why not
    blocked_by: list[str] = field(default_factory=list)  # the project's kept estimators, when the tier is off
    # id of a custom constructor this tier wraps where the project keeps another estimator TF1 -> its model_fn,
    # which nothing else runs (`_own_model_fn`): the Estimator names there alone become compat's
    # (codemods/rules/wrapped_model_fn.py)
    own_model_fns: dict[int, cst.FunctionDef] = field(default_factory=dict)
    # id(call) -> why a train/evaluate/predict/export/train_and_evaluate call this tier would take is kept
    # (it may run an estimator that stays TF1); tier 1 speaks for the calls of its own estimators
    kept_calls: dict[int, str] = field(default_factory=dict)
    # every estimator constructor of the module, this tier's or not (the report's estimator view)
    estimator_calls: list[tuple[cst.Call, str]] = field(default_factory=list)  # (call, class name)
    # ids of the class names (`tf.estimator.LoggingTensorHook`) of the "session_hook" calls: the rule spelling
    # them tf.compat.v1's leaves the saying to codemods/rules/unsupported_api.py
    session_hook_names: set[int] = field(default_factory=set)
    # id of a kept estimator's constructor -> (id of its `config=` argument, the RunConfig call that name holds):
    # a RunConfig it shared with an estimator this tier takes, which gets it as a TrainingConfig; the kept one is
    # given a copy of the RunConfig (codemods/rules/shared_run_config.py)
    config_copies: dict[int, tuple[int, cst.Call]] = field(default_factory=dict)

    def kind(self, call: cst.CSTNode) -> str | None:
        return self.calls.get(id(call))

    @functools.cached_property
    def migrates_estimators(self) -> bool:
        """Whether this tier rewrites an estimator's constructor (its training then runs eagerly)."""
        return any(kind in ESTIMATOR_KINDS for kind in self.calls.values())

    @functools.cached_property
    def keras_estimators(self) -> bool:
        """Whether the module makes a model_to_estimator estimator: its `tf.keras` is Keras 2, `tf_keras`."""
        return "keras_estimator" in self.calls.values()


def canned_problems(call: cst.Call, path: str, resolver: ApiResolver) -> list[str]:
    """Why a canned estimator call cannot become its compat.canned builder by itself."""
    from codemods.optimizers import optimizer_problem

    spec = CANNED[path]
    kwargs, problems = call_arguments(call, spec.positional)
    name = path.rsplit(".", 1)[1]
    v1 = resolver.call_api(call).v1
    problems += [f"{name}({key}=...) is not migrated yet" for key in kwargs
                 if not accepted(key, spec, v1, kwargs[key]) and key not in DROPPED_WHEN_NONE]
    problems += [f"{name}: {key}= must be given" for key in spec.required if key not in kwargs]
    if "loss_reduction" in kwargs:
        problem = loss_reduction_problem(kwargs, resolver)
        problems += [problem] if problem else []
    for key in spec.optimizers:
        if key in kwargs:
            problem = optimizer_problem(kwargs[key], resolver)
            if problem:
                problems.append(problem)
    return problems


def config_problems(call: cst.Call, tpu: bool = False) -> list[str]:
    """Why a RunConfig cannot become a TrainingConfig. `RunConfig(**settings)` can (not the TPU one): the
    settings' names are checked when the program runs (TrainingConfig.__new__)."""
    settings = [arg for arg in call.args if arg.star == "**"] if not tpu else []
    plain = call.with_changes(args=[arg for arg in call.args if arg not in settings])
    kwargs, problems = keyword_args(plain) if tpu else call_arguments(plain, RUNCONFIG_PARAMS)
    accepted_ = CONFIG_ARGUMENTS + TPU_CONFIG_ARGUMENTS * tpu
    return problems + [
        f"RunConfig({key}=...) is not migrated yet" for key, value in kwargs.items()
        if key not in accepted_ and not (key in NONE_ONLY_CONFIG_ARGUMENTS and _may_be_none(value))
    ]


# RunConfig arguments TrainingConfig takes as None only (Estimator's default; anything else is one error when the
# program runs): device placement of TF1 graph ops, and distributed evaluation
NONE_ONLY_CONFIG_ARGUMENTS = ("device_fn", "eval_distribute", "experimental_distribute")


def _may_be_none(value: cst.BaseExpression) -> bool:
    """None, or a value the source cannot tell from None (a flag, a variable, a choice): not a call or a lambda."""
    return is_none(value) or isinstance(value, (cst.Name, cst.Attribute, cst.IfExp, cst.Subscript))


class _Calls(cst.CSTVisitor):
    """Every call of the module, with the function it is in."""

    def __init__(self):
        self.calls: list[cst.Call] = []
        self.function_of: dict[int, cst.FunctionDef | None] = {}  # id(call) -> innermost def (None: module)
        self.assigned_to: dict[int, str] = {}  # id(call) -> the name `name = <call>` assigns it to
        self.assignments: Counter[tuple[int, str]] = Counter()  # (id of the function, name) -> assignments
        self.assigned_calls: dict[tuple[int, str], cst.Call] = {}  # (id of the function, name) -> a call it holds
        # (id of a function, name) -> the name's occurrences in it, its nested functions' included
        self.occurrences: Counter[tuple[int, str]] = Counter()
        self.module_occurrences: Counter[str] = Counter()  # name -> its occurrences anywhere in the module
        self.parameters: set[tuple[int, str]] = set()  # (id of a function, the name of one of its parameters)
        # a name -> the (call, argument) of each `config=<name>` of a call
        self.config_arguments: dict[str, list[tuple[cst.Call, cst.Arg]]] = {}
        self._functions: list[cst.FunctionDef] = []
        self._not_variables: set[int] = set()  # ids of Name nodes that name no variable: attributes, keywords

    def visit_Assign(self, node: cst.Assign) -> None:
        function = id(self._functions[-1] if self._functions else None)
        for target in node.targets:
            for name in _target_names(target.target):
                self.assignments[(function, name)] += 1
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) and isinstance(node.value, cst.Call):
            self.assigned_to[id(node.value)] = node.targets[0].target.value
            self.assigned_calls[(function, node.targets[0].target.value)] = node.value

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self._not_variables:
            self.module_occurrences[node.value] += 1
            for function in self._functions:
                self.occurrences[(id(function), node.value)] += 1

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._not_variables.add(id(node.attr))  # (`x.config` names no variable `config`)

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._not_variables.add(id(node.keyword))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append(node)
        parameters = node.params
        for parameter in [*parameters.posonly_params, *parameters.params, *parameters.kwonly_params,
                          *(p for p in (parameters.star_arg, parameters.star_kwarg) if isinstance(p, cst.Param))]:
            self.parameters.add((id(node), parameter.name.value))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._functions.pop()

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)
        self.function_of[id(node)] = self._functions[-1] if self._functions else None
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "config" and isinstance(arg.value, cst.Name):
                self.config_arguments.setdefault(arg.value.value, []).append((node, arg))

    def estimator_names(self, resolver: ApiResolver) -> set[tuple[int, str]]:
        """(id of the function, name) of each variable a call proves an Estimator: its method called with the
        keyword only an Estimator's takes (`est.evaluate(input_fn=...)`), or given to train_and_evaluate. In
        that function, the same variable's `est.evaluate(eval_input_fn, ...)` is an Estimator's too."""
        names = set()
        for call in self.calls:
            if estimator_method_call(call, _named_receiver(call)):
                names.add((id(self.function_of[id(call)]), call.func.value.value))
            elif call.args and isinstance(call.args[0].value, cst.Name) and call.args[0].keyword is None:
                api = resolver.call_api(call)
                if api is not None and api.path == "estimator.train_and_evaluate":
                    names.add((id(self.function_of[id(call)]), call.args[0].value.value))
        return names

    def built_estimators(self, resolver: ApiResolver) -> set[tuple[int, str]]:
        """(id of the function, name) of each variable assigned a `tf.estimator` estimator class's call (one the
        tier may not take: `baseline = tf.estimator.BaselineClassifier(...)`)."""
        names = set()
        for call in self.calls:
            api = resolver.call_api(call) if id(call) in self.assigned_to else None
            if api is not None and api.path.startswith("estimator.") and api.path.endswith(_ESTIMATOR_CLASS_ENDINGS):
                names.add((id(self.function_of[id(call)]), self.assigned_to[id(call)]))
        return names



def analyze(
    module: cst.Module, resolver: ApiResolver, facts, project: ProjectFacts, source: str | None = None
) -> RuntimeTier:
    """Decide, for every call of the module, whether this tier rewrites it (after tier 1's facts are known:
    what tier 1 migrates, or keeps as part of a kept estimator, is not this tier's). `source`: the module's
    text, if the caller has it."""
    tier = RuntimeTier()
    visitor = _Calls()
    fast_visit(module, visitor)
    # An unknown receiver's `.train(input_fn=...)` is taken for an Estimator's only in a module naming
    # tensorflow; without the source, module.code regenerates it: once, and only when such a call is found.
    mentions_tensorflow = functools.cache(lambda: "tensorflow" in (module.code if source is None else source))
    # A project keeping an estimator TF1 (a BoostedTreesClassifier beside a LinearClassifier, a subclass elsewhere):
    # the tier still takes a canned estimator built without a config (none of its settings can reach the kept one)
    # and the calls told apart as that estimator's own; the rest stays for the kept estimator, with its TODOs.
    project_blocked = bool(project.keeps_estimators)
    kept_variables = visitor.built_estimators(resolver) if project_blocked else set()
    if project_blocked:
        tier.blocked_by = list(project.keeps_estimators)
    tier1_nodes = _unit_nodes([e for e in facts.estimators.values() if e.migratable])
    proven = visitor.estimator_names(resolver)
    built: set[tuple[int, str]] = set()  # (function, name) assigned an estimator constructor this tier takes
    constructors: dict[int, cst.Call] = {}  # the estimator constructors it takes, by id
    # id of such a constructor -> id of its RunConfig, where the project keeps another estimator (`_local_to`)
    own_configs: dict[int, int] = {}
    # id of such a constructor -> the copies its RunConfig, shared with kept estimators, leaves them (`_shared`)
    copies: dict[int, dict[int, tuple[int, cst.Call]]] = {}
    kept_classes = {where.split(" in ", 1)[0] for where in project.keeps_estimators}  # (a project's subclasses)
    for call in visitor.calls:
        api = resolver.call_api(call)
        if api is None and kept_classes and isinstance(call.func, cst.Name | cst.Attribute) \
                and _called_name(call) in kept_classes:
            tier.estimator_calls.append((call, _called_name(call)))
        tpu = api is not None and tpu_name(api.path) == "TPUEstimator"
        if api is not None and (tpu or api.path in KERAS_ESTIMATOR or (
                api.path.startswith("estimator.") and api.path.endswith(_ESTIMATOR_CLASS_ENDINGS))):
            tier.estimator_calls.append((call, api.path.rsplit(".", 1)[-1]))
        if api is not None and api.path in KERAS_ESTIMATOR:  # the same parameters: nothing to check here
            if project_blocked:
                _keep(call, "model_to_estimator", tier, mentions_tensorflow)
                continue
            tier.calls[id(call)] = "keras_estimator"
            if id(call) in visitor.assigned_to:
                built.add((id(visitor.function_of[id(call)]), visitor.assigned_to[id(call)]))
            continue
        if api is None or (api.path not in (*CANNED, CUSTOM) and not tpu) or id(call) in tier1_nodes:
            continue
        unit = facts.estimator_for_call(call)
        wrapped = api.path == CUSTOM or tpu
        own_model_fn = _own_model_fn(call, facts, project, resolver) if wrapped and not tpu and project_blocked else None
        if wrapped and project_blocked and own_model_fn is None:
            continue  # its TODOs say why (codemods/rules/custom_estimator.py)
        problems = wrapped_problems(call, "TPUEstimator" if tpu else "Estimator") if wrapped \
            else canned_problems(call, api.path, resolver)
        if project_blocked:
            shared = _shared(call, api.path, visitor, resolver, kept_classes)
            problems += _beside_kept_problems(call, api.path, visitor, project, resolver, shared is not None)
        if unit is not None:  # tier 1's reasons that this tier does not resolve keep the unit as it is
            problems += [p for p in unit.problems if not isinstance(p, RunTimeChecked) and p not in problems
                         and not (wrapped and tier1_only(p))]
        if problems:
            tier.constructor_problems[id(call)] = problems
            continue
        tier.calls[id(call)] = "wrapped_tpu" if tpu else "wrapped" if wrapped else "canned"
        constructors[id(call)] = call
        if own_model_fn is not None:
            tier.own_model_fns[id(call)] = own_model_fn
        if unit is not None:
            unit.runtime = True
        if (unit is None or project_blocked) and id(call) in visitor.assigned_to:
            # `estimator = TPUEstimator(...)`: its methods in that function
            built.add((id(visitor.function_of[id(call)]), visitor.assigned_to[id(call)]))
        if project_blocked:  # its own RunConfig, which reaches nothing else (`_local_to`), is this tier's too
            config = _constructor_arguments(call, api.path).get("config")
            if config is not None and _local_to(call, config, visitor, resolver):
                own_configs[id(call)] = id(visitor.assigned_calls[(id(visitor.function_of[id(call)]), config.value)])
            elif shared is not None:
                own_configs[id(call)] = id(shared[0])
                copies[id(call)] = {id(kept): (id(arg), shared[0]) for kept, arg in shared[1]}
    if project_blocked:  # a factory of such a project may return the kept estimator: its calls stay for it
        kept_variables |= _factory_built(module, visitor, project, source)
    else:
        built |= _factory_built(module, visitor, project, source)
    kept = _release_sharers(facts, tier)
    if kept:  # a kept estimator in this module: other calls are not told apart from its own
        tier.blocked_by += [f"estimator `{e.variable}` of this module" for e in kept]
        # A model_fn kept as written keeps this module's EstimatorSpec and ModeKeys for the kept estimator
        # (codemods/rules/wrapped_model_fn.py is off): no wrapped model_fn of it would run
        for key in [key for key, kind in tier.calls.items()
                    if kind in ("wrapped", "wrapped_tpu") and key not in tier.own_model_fns]:
            del tier.calls[key]
            tier.constructor_problems[key] = [
                f"this module keeps {', '.join(tier.blocked_by)} TF1, and so tf.estimator's EstimatorSpec and "
                "ModeKeys, which a model_fn kept as written returns and compares: migrate that one, then run "
                "migrate again"]
        # An estimator of this tier without a unit of its own shares its variable's name with a unit of another
        # function (`estimator` in train() and in evaluate()): tier 1's rules give that unit its calls and config
        kept_names = {e.variable: e for e in kept}
        for key in [key for key, kind in tier.calls.items() if kind == "canned"]:
            name = visitor.assigned_to.get(key)
            if name in kept_names and facts.estimator_for_call(constructors[key]) is None:
                del tier.calls[key]
                tier.constructor_problems[key] = [
                    f"`{name}` also names an estimator of another function that stays TF1, whose RunConfig and calls "
                    "the rewrite does not tell apart from this one's: rename one, or migrate that one, then run "
                    "migrate again"]
        for unit in facts.estimators.values():
            if unit.runtime and id(unit.call) in tier.constructor_problems:
                unit.runtime = False
        for key in tier.constructor_problems:  # (the calls of an estimator released here stay with it)
            if key in constructors and key in visitor.assigned_to:
                built.discard((id(visitor.function_of[key]), visitor.assigned_to[key]))
        kept = [e for e in facts.estimators.values() if not e.migratable and not e.runtime]
    kept_configs = {id(e.config.call) for e in kept if e.config is not None}
    for constructor in copies.keys() & tier.calls.keys():  # (a reader this tier takes too reads the TrainingConfig)
        tier.config_copies.update({reader: copy for reader, copy in copies[constructor].items() if reader not in tier.calls})
    own_configs = {config for constructor, config in own_configs.items() if constructor in tier.calls}
    kept_configs -= own_configs
    runtime_configs = {id(e.config.call) for e in facts.estimators.values() if e.runtime and e.config is not None}
    tier1_nodes -= runtime_configs  # a RunConfig tier 1 also reads stays, as a TrainingConfig, for this tier
    runtime_units = [e for e in facts.estimators.values() if e.runtime]
    for call in visitor.calls:
        if id(call) in tier1_nodes or id(call) in tier.calls or id(call) in kept_configs:
            continue
        kind = _kind(call, resolver, facts)
        method = _named_receiver(call)
        receiver = (id(visitor.function_of[id(call)]), call.func.value.value) if method else None
        # the call's estimator is one this tier builds, whatever else the module keeps
        told_apart = receiver in built and visitor.assignments[receiver] == 1
        if kind is None and method in ESTIMATOR_METHODS and facts.estimator_read_by(call.func.value) is None and (
                receiver in proven or (told_apart and estimator_method_call(call, method, keyword_needed=False))):
            kind = method  # (an estimator of this module: tier 1 or _kind decided already)
        if kind is None and receiver in kept_variables and estimator_method_call(call, method, keyword_needed=False):
            kind = method  # `baseline.train(train_input_fn)`: a method of an estimator this tier does not take
        if kind is None:
            continue
        if kind in ESTIMATOR_METHODS and not mentions_tensorflow():
            continue
        if tier.blocked_by and not told_apart and id(call) not in own_configs \
                and (project_blocked or not _belongs_to(call, runtime_units)):
            if not _belongs_to(call, facts.estimators.values()):
                _keep(call, kind, tier, mentions_tensorflow)
            continue
        if kind in ("config", "tpu_config") and config_problems(call, tpu=kind == "tpu_config"):
            problems = config_problems(call, tpu=kind == "tpu_config")
            tier.kept_calls[id(call)] = f"kept (TensorFlow >= 2.16 has no RunConfig): {'; '.join(problems)}"
            continue
        tier.calls[id(call)] = kind
    if {"builtin_hook", "session_hook"} & set(tier.calls.values()):
        trains = any(kind in ("train", "train_and_evaluate") for kind in tier.calls.values())
        sessions = bool(facts.sessions or facts.saver_sessions) or any(
            api is not None and api.path in MONITORED_SESSIONS for api in map(resolver.call_api, visitor.calls))
        # A module that trains nothing may build its built-in hooks for a TF1 session elsewhere, but not those built
        # in a function returning a spec: a model_fn's, which the wrapped model runs (callbacks among them too)
        spec_builders = _spec_builders(visitor, resolver) if project.wraps_model_fns and not project.keeps_estimators \
            else set()

        # (a second rewrite finds the training migrated already, and decides as the first did)
        migrated_trains = any(dotted_name(call.func) in MIGRATED_TRAININGS for call in visitor.calls)
        converted = {id(call) for call in visitor.calls
                     if (api := resolver.call_api(call)) is not None and api.path in CONVERTED_SESSION_HOOKS} \
            if trains or migrated_trains else set()

        def dropped(key: int, kind: str) -> bool:
            if kind == "builtin_hook":
                return sessions or not (trains or id(visitor.function_of[key]) in spec_builders)
            # no model_fn's graph runs session hooks, nor does the runtime take them for a Keras model (TF1's
            # LoggingTensorHook of a training: compat.estimator_hooks.from_tf1), or a TF1 session may
            return kind == "session_hook" and (sessions or not (project.wraps_model_fns or key in converted))

        tier.calls = {key: kind for key, kind in tier.calls.items() if not dropped(key, kind)}
        tier.session_hook_names = {id(call.func) for call in visitor.calls if tier.kind(call) == "session_hook"}
    if "model_fn_saver" in tier.calls.values():
        # A Saver made in a model_fn the wrapped model runs: it reads (a Scaffold init_fn's restore) and writes TF1
        # checkpoints of the model's variables by their TF1 names, as it did ("wrapped_saver": in a model_fn migrated
        # already, said by the first rewrite). Elsewhere it is unsupported_api's.
        wrapped = project.wraps_model_fns and not project.keeps_estimators
        builders = _spec_builders(visitor, resolver) if wrapped else set()
        migrated = _spec_builders(visitor, resolver, migrated=True) if wrapped else set()
        for key in [key for key, kind in tier.calls.items() if kind == "model_fn_saver"]:
            function = id(visitor.function_of[key])
            if function not in builders:
                if function in migrated:
                    tier.calls[key] = "wrapped_saver"
                else:
                    del tier.calls[key]
    return tier


def _called_name(call: cst.Call) -> str:
    """The last name of what `call` calls: `PinnedEstimator` in `models.PinnedEstimator(...)`."""
    return call.func.attr.value if isinstance(call.func, cst.Attribute) else getattr(call.func, "value", "")


_KEPT_KINDS = ("train_and_evaluate", "model_to_estimator", *ESTIMATOR_METHODS)


def _local_to(call: cst.Call, value: cst.BaseExpression, visitor: _Calls, resolver: ApiResolver) -> bool:
    """Whether `value`, an argument of the estimator constructor `call`, is a variable of the function making it,
    assigned once a RunConfig or head built there and read by this call alone: nothing else can reach it."""
    function = visitor.function_of[id(call)]
    if not isinstance(value, cst.Name) or function is None:
        return False
    key = (id(function), value.value)
    built = visitor.assigned_calls.get(key)
    api = resolver.call_api(built) if built is not None else None
    return (api is not None and (api.path.endswith(".RunConfig") or ".head." in api.path or "_head" in api.path)
            and visitor.occurrences[key] == 2 and visitor.assignments[key] == 1)


def _shared(call: cst.Call, path: str, visitor: _Calls, resolver: ApiResolver, kept_classes: set[str]
            ) -> tuple[cst.Call, list[tuple[cst.Call, cst.Arg]]] | None:
    """A RunConfig the canned estimator `call` shares with estimators that stay TF1 (`config=CONFIG` given to
    both), and the kept constructors' `config=` arguments; None unless it can be theirs as a copy and the canned
    one's as a TrainingConfig: `CONFIG = tf.estimator.RunConfig(...)` is assigned once, in the canned one's
    function or at module level, every other use of the name is a `config=` of an estimator constructor, and the
    RunConfig's arguments are literals and names each kept constructor sees as the RunConfig did."""
    config = _constructor_arguments(call, path).get("config")
    if not isinstance(config, cst.Name):
        return None
    name, function = config.value, visitor.function_of[id(call)]
    scope = id(function) if (id(function), name) in visitor.assigned_calls else id(None)
    runconfig = visitor.assigned_calls.get((scope, name))
    api = resolver.call_api(runconfig) if runconfig is not None else None
    readers = visitor.config_arguments.get(name, [])
    if api is None or api.path != "estimator.RunConfig" or config_problems(runconfig) \
            or visitor.assignments[(scope, name)] != 1 \
            or sum(count for (_, other), count in visitor.assignments.items() if other == name) != 1 \
            or visitor.module_occurrences[name] != 1 + len(readers):
        return None
    kept = []
    for reader, arg in readers:
        if reader is call:
            continue
        reader_api = resolver.call_api(reader)
        if not (_called_name(reader) in kept_classes or reader_api is not None and reader_api.path.startswith(
                "estimator.") and reader_api.path.endswith(_ESTIMATOR_CLASS_ENDINGS)):
            return None  # (another canned one: the tier takes each alone)
        if not _copyable(runconfig, visitor, scope, id(visitor.function_of[id(reader)])):
            return None
        kept.append((reader, arg))
    return (runconfig, kept) if kept else None


_EVALUATED = (cst.Name, cst.Call, cst.Lambda, cst.NamedExpr, cst.ListComp, cst.SetComp, cst.DictComp,
              cst.GeneratorExp, cst.Await, cst.Yield)


def _copyable(runconfig: cst.Call, visitor: _Calls, scope: int, reader: int) -> bool:
    """Whether the RunConfig's arguments, evaluated again in the function `reader`, give the same values: literals,
    and names assigned at most once in the RunConfig's scope that `reader` does not bind itself."""
    for arg in runconfig.args:
        for node in nodes_of_types(arg.value, _EVALUATED):
            if not isinstance(node, cst.Name):
                return False
            if node.value not in ("None", "True", "False") and (
                    visitor.assignments[(scope, node.value)] > 1 or reader != scope and (
                        visitor.assignments[(reader, node.value)] or (reader, node.value) in visitor.parameters)):
                return False
    return True


def _own_model_fn(call: cst.Call, facts, project: ProjectFacts, resolver: ApiResolver) -> cst.FunctionDef | None:
    """The model_fn of the custom `Estimator(...)` call `call`, when nothing else can run it: a function defined
    once, at the module's top level, named only there and in this call, imported by no other module of the project,
    spelling its Estimator names itself (`tf.estimator.EstimatorSpec`, not a bare imported name, nor through a
    function of the module that others may call)."""
    model_fn = wrapped_arguments(call).get("model_fn")
    if not isinstance(model_fn, cst.Name) or project.exported_names is None or model_fn.value in project.exported_names:
        return None
    defs = facts.functions.get(model_fn.value, [])
    if len(defs) != 1 or id(defs[0]) not in facts.top_level_functions or facts.name_uses[model_fn.value] != 2:
        return None
    function = defs[0]
    for name in nodes_of_types(function, (cst.Name,)):
        api = resolver.api(name)
        if api is not None and api.path.startswith("estimator."):
            return None  # a bare name imported from tf.estimator: its import stays for the rest of the module
    for called in nodes_of_types(function, (cst.Call,)):
        helpers = facts.functions.get(called.func.value, []) if isinstance(called.func, cst.Name) else []
        if any(helper is not function and _names_estimator_apis(helper, resolver) for helper in helpers):
            return None
    return function


def _names_estimator_apis(node: cst.CSTNode, resolver: ApiResolver) -> bool:
    return any((api := resolver.api(attribute)) is not None and api.path.startswith("estimator.")
               for attribute in nodes_of_types(node, (cst.Attribute,)))


def _constructor_arguments(call: cst.Call, path: str) -> dict[str, cst.BaseExpression]:
    """A canned or custom estimator constructor's arguments, by name."""
    return call_arguments(call, CANNED[path].positional)[0] if path in CANNED else wrapped_arguments(call)


def _beside_kept_problems(call: cst.Call, path: str, visitor: _Calls, project: ProjectFacts, resolver: ApiResolver,
                          shared_config: bool) -> list[str]:
    """Why a canned estimator's call (or a custom one's, its model_fn its own: `_own_model_fn`) cannot migrate in a
    project keeping another estimator TF1: what it shares with the rest of the program (a config, a head) may reach
    the kept one, and its calls are told apart from the kept one's only through a variable assigned once. (A config
    `shared_config` with kept estimators is theirs too, each given a copy: `_shared`.)"""
    kwargs = _constructor_arguments(call, path)
    kept = f"an estimator that stays TF1 in this project ({'; '.join(project.keeps_estimators)})"
    given = {key for key in ("config", "head") if key in kwargs and not is_none(kwargs[key])
             and not _local_to(call, kwargs[key], visitor, resolver) and not (key == "config" and shared_config)}
    problems = [f"its config= may configure {kept} too: migrate or remove that one, then run migrate again"] * (
        "config" in given)
    problems += [f"its head= stays TF1 beside {kept}: migrate or remove that one, then run migrate again"] * (
        "head" in given)
    receiver = (id(visitor.function_of[id(call)]), visitor.assigned_to[id(call)]) if id(call) in visitor.assigned_to \
        else None
    if receiver is None or visitor.assignments[receiver] != 1:
        problems.append(f"it is not assigned once to a variable, which alone tells its calls apart from those of {kept}")
    return problems


def _spec_builders(visitor: _Calls, resolver: ApiResolver, migrated: bool = False) -> set[int]:
    """The functions of the module that build an EstimatorSpec (or a TPUEstimatorSpec): model_fns, by id; with
    `migrated`, also those building one migrated already (`wrapped_model_fns.EstimatorSpec(...)`)."""
    return {
        id(visitor.function_of[id(call)]) for call in visitor.calls
        if visitor.function_of[id(call)] is not None and ((migrated and _migrated_spec(call)) or (
            (api := resolver.call_api(call)) is not None
            and (api.path == "estimator.EstimatorSpec" or tpu_name(api.path) == "TPUEstimatorSpec")))
    }


def _migrated_spec(call: cst.Call) -> bool:
    func = call.func
    return isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and (
        (func.value.value, func.attr.value) in (("wrapped_model_fns", "EstimatorSpec"),
                                                ("tpu_estimators", "TPUEstimatorSpec")))


def _keep(call: cst.Call, kind: str | None, tier: RuntimeTier, mentions_tensorflow) -> None:
    """Note why a training or model call that may run one of the kept estimators stays as it is."""
    if kind not in _KEPT_KINDS or (kind in ESTIMATOR_METHODS and not mentions_tensorflow()):
        return
    if kind == "model_to_estimator":
        tier.kept_calls[id(call)] = (
            "kept: model_to_estimator migrates (compat.keras_estimators) with the project's estimators, which stay "
            "TF1 while one of them does (see the TODOs at its constructor)"
        )
        return
    name = "train_and_evaluate" if kind == "train_and_evaluate" else f"`.{kind}(...)`"
    # No names or counts of the kept estimators: they change when the rewritten tree is rewritten again.
    tier.kept_calls[id(call)] = (
        f"kept: {name} may run an estimator that stays TF1 in this project (see the TODOs at its constructor); "
        "it is migrated with that estimator"
    )


def _release_sharers(facts, tier: RuntimeTier) -> list:
    """Units of this tier sharing a RunConfig, input_fn, hook class or export with a kept estimator stay
    kept too (the shared definition must stay TF1 for it). Returns the kept estimators."""
    while True:
        kept = [e for e in facts.estimators.values() if not e.migratable and not e.runtime]
        released = False
        for unit in [e for e in facts.estimators.values() if e.runtime]:
            for other in kept:
                shared = (
                    "its RunConfig" if unit.config is not None and other.config is not None
                    and unit.config.call is other.config.call
                    else "its input_fn" if any(c is d for c in unit.input_fn_calls for d in other.input_fn_calls)
                    else "a hook class" if unit.hook_classes & other.hook_classes
                    else "a serving input receiver or exporter"
                    if any(c is d for c in unit.export_api_calls for d in other.export_api_calls)
                    else None
                )
                if shared:
                    unit.runtime, released = False, True
                    unit.problems.append(f"shares {shared} with `{other.variable}`, which is not migrated")
                    tier.calls.pop(id(unit.call), None)
                    break
        if not released:
            return kept


def _kind(call: cst.Call, resolver: ApiResolver, facts) -> str | None:
    api = resolver.call_api(call)
    if api is not None:
        if api.path == "estimator.RunConfig":
            return "config"
        if tpu_name(api.path) == "RunConfig":
            return "tpu_config"
        if api.path == "estimator.train_and_evaluate":
            return "train_and_evaluate"
        if api.path in SPECS:
            return "spec"
        if api.path in EXPORT_APIS:
            return "export_api"
        if api.path in RUNTIME_HOOKS:
            return "builtin_hook"
        if api.path in EARLY_STOPPING_APIS and not facts.migrated_builtin_hook(call):
            return "early_stopping"
        if api.path in SESSION_HOOKS:
            return "session_hook"
        if api.path in IN_MEMORY_EVALUATORS:
            return "evaluator_hook"
        if api.path in ADD_METRICS:
            return "add_metrics"
        if api.path in FORWARD_FEATURES:
            return "forward_features"
        if api.path in ESTIMATOR_HEADS:
            return "estimator_head"
        if api.path == "train.Saver":
            return "model_fn_saver"  # kept only in a model_fn the tier wraps (analyze)
    if not isinstance(call.func, cst.Attribute) or call.func.attr.value not in ESTIMATOR_METHODS:
        return None
    method = call.func.attr.value
    receiver = call.func.value
    if isinstance(receiver, cst.Name) and receiver.value in RUNTIME_MODULES:
        return None  # already migrated: estimator_training.train(estimator, input_fn=...)
    unit = facts.estimator_read_by(receiver)
    if unit is not None:
        return method if unit.runtime else None
    return method if estimator_method_call(call, method) else None


def _target_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, cst.Tuple | cst.List):
        return [name for element in target.elements for name in _target_names(element.value)]
    return []


def _factory_built(module: cst.Module, visitor: _Calls, project: ProjectFacts, source: str | None) -> set:
    """(id of the function, name) of each variable assigned the call of a project function that returns an estimator
    it built (`model = build_model()`, `estimator = model.build_estimator(config)`: ProjectFacts.estimator_factories).
    A function of this module of that name that is not such a factory shadows them."""
    if not project.estimator_factories:
        return set()
    shadowing = {statement.name.value for statement in module.body if isinstance(statement, cst.FunctionDef)}
    shadowing &= project.estimator_factories
    if shadowing:
        with contextlib.suppress(SyntaxError, ValueError):  # (a Python 2 module: none of its own is a factory)
            shadowing -= estimator_factories(ast.parse(module.code if source is None else source))
    factories = project.estimator_factories - shadowing
    found = set()
    for call in visitor.calls:
        callee = call.func.attr if isinstance(call.func, cst.Attribute) else call.func
        if id(call) in visitor.assigned_to and isinstance(callee, cst.Name) and callee.value in factories:
            found.add((id(visitor.function_of[id(call)]), visitor.assigned_to[id(call)]))
    return found


def _named_receiver(call: cst.Call) -> str | None:
    """The method name of a `name.method(...)` call (not one already migrated: `estimator_training.train(...)`);
    None for other calls."""
    if isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name) and \
            call.func.value.value not in RUNTIME_MODULES:
        return call.func.attr.value
    return None


def _belongs_to(call: cst.Call, units) -> bool:
    """Whether `call` is a construct of one of `units` (its constructor, RunConfig, train or model call)."""
    for unit in units:
        if call is unit.call or (unit.config is not None and call is unit.config.call):
            return True
        if any(call is training.call for training in unit.trainings) or any(call is c for c in unit.model_calls):
            return True
    return False


def _unit_nodes(units) -> set[int]:
    """Ids of the calls tier 1 rewrites for `units`: constructors, RunConfigs, trainings, specs, model calls."""
    nodes = set()
    for unit in units:
        nodes.add(id(unit.call))
        if unit.config is not None:
            nodes.add(id(unit.config.call))
        for training in unit.trainings:
            nodes.update(id(c) for c in (training.call, training.train_spec, training.eval_spec) if c is not None)
        nodes.update(id(c) for c in unit.model_calls)
        nodes.update(id(c) for c in unit.export_api_calls)
    return nodes
