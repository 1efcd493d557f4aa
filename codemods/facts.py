"""The pre-pass: which estimators a module builds, with which RunConfig, trained how, with which hooks.

The constructs of one Estimator program are linked through variables: a `RunConfig` is passed to an
estimator, which is trained with an input_fn and hooks. They are migrated together or not at all: an
estimator whose config, hooks or training call cannot be carried over faithfully is left as it was, with a
`TODO(migrate)` naming the reason, so the rewrite never produces half an Estimator program that runs
differently. Everything here reads the original tree; the rules consult it while they transform.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass, field

import libcst as cst

from codemods.api import Api, ApiResolver
from codemods.bindings import NameScopes, ScopeTracking
from codemods.canned_estimators import (
    CANNED,
    DROPPED_WHEN_NONE,
    MOVED_TO_CHECKPOINTING,
    accepted,
    head_api,
    loss_reduction_problem,
)
from codemods.export_apis import (
    EXPORTERS,
    OTHER_EXPORTER,
    SERVING_INPUT_BUILDERS,
    exporter_calls,
    exporter_elements,
    receiver_calls,
    serving_feature_placeholders,
)
from codemods.hook_facts import (
    BUILTIN_HOOK_PARAMS,
    BUILTIN_HOOKS,
    CANNED_ONLY_HOOKS,
    EARLY_STOPPING_HOOKS,
    HOOK_BASE_APIS,
    HOOK_METHODS,
    SAVER_HOOKS,
    analyze_hook,
    builtin_hook_problems,
    logs_only_the_step,
    saver_hook_cadence,
)
from codemods.input_fns import callable_input_fn_problems, iterator_input_fns, returned_values
from codemods.model_fn_paths import Path, evaluation_path, prediction_path
from codemods.model_fns import ESTIMATOR_PARAMS, ModelFnShape, analyze_model_fn
from codemods.monitored_sessions import MonitoredLoop, analyze_session, session_call
from codemods.project.facts import ProjectFacts, module_facts
from codemods.runtime_tier import RUNCONFIG_PARAMS, RunTimeChecked, RuntimeTier, tpu_name
from codemods.runtime_tier import analyze as analyze_runtime_tier
from codemods.saver_loops import SaverLoop, analyze_saver_session, tf_session_call
from codemods.syntax import (
    call_arguments,
    fast_visit,
    is_none,
    keyword_args,
    method_call,
    name_counts,
    nodes_of_types,
    single_assignment,
)
from codemods.templates import source

# A variable: (id of the scope binding it, name), codemods.bindings.NameScopes's key
Key = tuple[int, str]

RUNCONFIG_APIS = ("estimator.RunConfig",)
# Input functions over in-memory data, rewritten into tf.data pipelines (codemods/rules/numpy_input_fn.py).
NUMPY_INPUT_FN_APIS = ("estimator.inputs.numpy_input_fn", "estimator.inputs.pandas_input_fn")
TRAIN_AND_EVALUATE_APIS = ("estimator.train_and_evaluate",)
SPEC_APIS = ("estimator.TrainSpec", "estimator.EvalSpec")
# Parameters in order, for calls whose arguments are commonly given by position.
TRAIN_AND_EVALUATE_PARAMS = ("estimator", "train_spec", "eval_spec")
TRAIN_SPEC_PARAMS = ("input_fn", "max_steps", "hooks", "saving_listeners")
EVAL_SPEC_PARAMS = ("input_fn", "steps", "name", "hooks", "exporters", "start_delay_secs", "throttle_secs")
CANNED_ESTIMATORS = tuple(CANNED)
CUSTOM_ESTIMATOR = "estimator.Estimator"
GRAPH_MODE_SWITCHES = ("disable_v2_behavior", "disable_eager_execution")
GRAPH_CODE = ("Session", "InteractiveSession", "placeholder", "train.MonitoredTrainingSession", "train.MonitoredSession",
              "train.SingularMonitoredSession", "train.Saver", "train.Supervisor", "train.start_queue_runners",
              # tf.contrib.slim's loops (a Supervisor, a session): tf_slim's the same code, in graph mode only
              "contrib.slim.learning.train", "contrib.slim.evaluation.evaluation_loop",
              "contrib.slim.evaluation.evaluate_once")
# What the rewrite made of GRAPH_CODE kept as written (codemods/rules/unsupported_api.py): still graph code
KEPT_GRAPH_CODE = ("graph_sessions.monitored_training_session", "graph_sessions.CheckpointSaverHook")
CUSTOM_ESTIMATOR_KEYWORDS = ("model_fn", "params", *MOVED_TO_CHECKPOINTING)

# RunConfig arguments the rewrite carries over; any other is a reason to leave the estimator alone.
RUNCONFIG_SUPPORTED = (
    "model_dir",
    "tf_random_seed",
    "save_summary_steps",
    "save_checkpoints_steps",
    "save_checkpoints_secs",
    "keep_checkpoint_max",
    "keep_checkpoint_every_n_hours",
    "log_step_count_steps",
    "session_config",
    "train_distribute",
    "protocol",
    "session_creation_timeout_secs",
    "checkpoint_save_graph_def",
    "experimental_max_worker_delay_secs",
)
# RunConfig arguments carried over when they are None (their default), as the code they would change is not there
RUNCONFIG_NONE_ONLY = ("device_fn", "eval_distribute", "experimental_distribute")
# Why a RunConfig argument is not carried over, where the reason is not obvious.
_NOT_SUPPORTED_WHY = {
    "eval_distribute": " (the Estimator gave each replica whole eval batches: evaluate(steps=N) read N x replicas "
    "batches, and a last batch the replicas could not share was left out; evaluate the migrated model by hand)",
}
# Carried over by being dropped, with a note in the report (codemods.rules.runconfig.DROPPED).
# Estimator defaults (tensorflow_estimator/python/estimator/run_config.py). save_checkpoints_secs=600
# applies only when neither cadence is given (`checkpoint_cadence`).
RUNCONFIG_DEFAULTS = {"save_summary_steps": 100, "keep_checkpoint_max": 5}
DEFAULT_SAVE_CHECKPOINTS_SECS = 600

# Estimator methods that use the trained model: (their parameters in order, those the migration carries over).
MODEL_METHODS = {
    "evaluate": (("input_fn", "steps", "hooks", "checkpoint_path", "name"), ("input_fn", "steps")),
    "predict": (
        ("input_fn", "predict_keys", "hooks", "checkpoint_path", "yield_single_examples"),
        ("input_fn", "predict_keys", "yield_single_examples"),
    ),
    "export_saved_model": (
        ("export_dir_base", "serving_input_receiver_fn", "assets_extra", "as_text", "checkpoint_path",
         "experimental_mode"),
        ("export_dir_base", "serving_input_receiver_fn", "assets_extra", "as_text"),
    ),
    # EstimatorV1's older name; strip_default_attrs changes no served value (TF2 SavedModels strip them anyway)
    "export_savedmodel": (
        ("export_dir_base", "serving_input_receiver_fn", "assets_extra", "as_text", "checkpoint_path",
         "strip_default_attrs"),
        ("export_dir_base", "serving_input_receiver_fn", "assets_extra", "as_text", "strip_default_attrs"),
    ),
}
EXPORT_METHODS = ("export_saved_model", "export_savedmodel")

@dataclass
class Training:
    """A statement that trains an estimator: `est.train(...)`, or `train_and_evaluate(est, train_spec,
    eval_spec)` (with the TrainSpec/EvalSpec calls it was given, inline or through a variable)."""

    statement: cst.SimpleStatementLine
    call: cst.Call
    train_spec: cst.Call | None = None
    eval_spec: cst.Call | None = None
    spec_variables: tuple[Key, ...] = ()  # the keys of the TrainSpec/EvalSpec variables it was given

    def train_arguments(self, call: cst.Call | None = None) -> dict[str, cst.BaseExpression]:
        """input_fn/hooks/steps/max_steps, from `call` (an updated version of the train call or TrainSpec)."""
        if self.train_spec is None:
            return keyword_args(call or self.call)[0]
        return call_arguments(call or self.train_spec, TRAIN_SPEC_PARAMS)[0]


@dataclass
class RunConfigFacts:
    call: cst.Call
    kwargs: dict[str, cst.BaseExpression]
    problems: list[str]
    variable: str | None = None  # the name it is assigned to, None when written inline
    key: Key | None = None  # that variable's key


@dataclass
class HookFacts:
    name: str
    node: cst.ClassDef
    problems: list[str]
    step_attributes: frozenset[str] = frozenset()  # hook_facts.HookAnalysis
    fetches_step: bool = False  # hook_facts.HookAnalysis
    own_attributes: frozenset[str] = frozenset()  # hook_facts.HookAnalysis
    file_writers: frozenset[int] = frozenset()  # hook_facts.HookAnalysis
    handed_on: frozenset[tuple[str, str, str]] = frozenset()  # hook_facts.HookAnalysis


@dataclass
class EstimatorFacts:
    variable: str
    call: cst.Call
    api: Api
    kwargs: dict[str, cst.BaseExpression]
    config: RunConfigFacts | None
    trainings: list[Training] = field(default_factory=list)
    hook_classes: set[str] = field(default_factory=set)  # SessionRunHook classes its train calls use
    hook_references: set[int] = field(default_factory=set)  # ids of those class names in its hooks lists
    hook_instance_references: set[int] = field(default_factory=set)  # ids of hook instance variables there
    input_fn_calls: list[cst.Call] = field(default_factory=list)  # numpy_input_fn calls its train calls use
    builtin_hook_calls: list[cst.Call] = field(default_factory=list)  # StopAtStepHook(...) in its hooks=
    saver_hook_calls: list[cst.Call] = field(default_factory=list)  # CheckpointSaverHook(...) in its hooks=
    saver_hook: tuple[str, cst.BaseExpression] | None = None  # their cadence, which replaced the RunConfig's
    # `<estimator>.evaluate(...)`/`.predict(...)`/`.export_saved_model(...)` calls: they use the trained model
    model_calls: list[cst.Call] = field(default_factory=list)
    # the calls compat.estimator_export replaces in its exports' receivers and exporters (codemods.export_apis)
    export_api_calls: list[cst.Call] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    model_fn: ModelFnShape | None = None  # a custom Estimator's model_fn, in the shape codemods/model_fns.py migrates
    model_fn_paths: dict[str, Path] = field(default_factory=dict)  # "evaluate"/"predict" -> its path, when called
    runtime: bool = False  # not tier 1, but migrated by the run-time linked tier (codemods/runtime_tier.py)
    key: Key | None = None  # the key of `variable`: where it is bound

    @property
    def migratable(self) -> bool:
        return not self.problems

    @property
    def callbacks_every_step(self) -> bool:
        """Whether a training of this estimator has hooks (or an evaluation schedule) that run after every step."""
        return any(t.eval_spec is not None or not is_none(t.train_arguments().get("hooks", cst.Name("None")))
                   for t in self.trainings)

    @property
    def trains_until_input_ends(self) -> bool:
        """Whether a training of this estimator has neither steps nor max_steps (it runs until the input ends)."""
        return any(
            t.train_spec is None and all(is_none(t.train_arguments().get(key, cst.Name("None")))
                                         for key in ("steps", "max_steps"))
            for t in self.trainings
        )

    @property
    def custom(self) -> bool:
        return self.api.path == CUSTOM_ESTIMATOR

    @property
    def two_optimizers(self) -> bool:
        return not self.custom and CANNED[self.api.path].two_optimizers

    @property
    def train_strategy(self) -> cst.BaseExpression | None:
        """RunConfig(train_distribute=...)'s strategy expression, None when training is not distributed."""
        strategy = self.config.kwargs.get("train_distribute") if self.config else None
        return None if strategy is None or is_none(strategy) else strategy

    @property
    def kept_note(self) -> str:
        """The TODO on each use of an estimator that is not migrated."""
        return f"kept: estimator `{self.variable}` is not migrated (see the TODOs at its constructor)"

    @property
    def model_dir(self) -> cst.BaseExpression | None:
        if "model_dir" in self.kwargs:
            return self.kwargs["model_dir"]
        return self.config.kwargs.get("model_dir") if self.config else None

    def checkpoint_cadence(self) -> tuple[str, cst.BaseExpression] | str:
        """("steps" | "secs", value) as the Estimator saves checkpoints, or why it cannot be told.

        As RunConfig.__init__: neither argument given (or no RunConfig) means every 600 s; given ones
        that are None switch that cadence off; both set is an error. A CheckpointSaverHook in hooks=
        replaced the Estimator's saver, and so the RunConfig's cadence.
        """
        if self.saver_hook is not None:
            return self.saver_hook
        given = {
            kind: self.config.kwargs[f"save_checkpoints_{kind}"]
            for kind in ("steps", "secs")
            if self.config is not None and f"save_checkpoints_{kind}" in self.config.kwargs
        }
        if not given:
            return "secs", cst.Integer(str(DEFAULT_SAVE_CHECKPOINTS_SECS))
        cadences = [(kind, value) for kind, value in given.items() if not is_none(value)]
        if len(cadences) == 2:
            return "RunConfig sets both save_checkpoints_steps and save_checkpoints_secs (Estimator refuses that)"
        if not cadences or _switched_off(cadences[0][1]):
            # compat.estimator_training trains it saving nothing, as Estimator (`if secs or steps:` no saver hook)
            return RunTimeChecked("checkpointing switched off (save_checkpoints_* None or 0)")
        return cadences[0]

    def summary_problem(self) -> RunTimeChecked | None:
        """save_summary_steps=0 or None: Estimator wrote no summaries, which compat.estimator_training follows
        (tier 1's code writes the loss every save_summary_steps steps)."""
        value = self.config.kwargs.get("save_summary_steps") if self.config is not None else None
        if value is not None and (is_none(value) or _switched_off(value)):
            return RunTimeChecked("summaries switched off (save_summary_steps None or 0)")
        return None

    def run_config_value(self, name: str) -> cst.BaseExpression | None:
        if self.config and name in self.config.kwargs:
            return self.config.kwargs[name]
        if name in RUNCONFIG_DEFAULTS:
            return cst.Integer(str(RUNCONFIG_DEFAULTS[name]))
        return None


@dataclass
class ProgramFacts:
    # Variables are keyed by binding (Key: scope and name), so that two functions each binding `estimator` hold
    # two estimators; `key_of` gives a name's key where the module reads it.
    run_configs: dict[Key, RunConfigFacts] = field(default_factory=dict)
    estimators: dict[Key, EstimatorFacts] = field(default_factory=dict)
    hooks: dict[str, HookFacts] = field(default_factory=dict)
    input_fns: dict[Key, cst.Call] = field(default_factory=dict)  # variable -> numpy_input_fn call
    serving_inputs: dict[str, cst.Call] = field(default_factory=dict)  # name -> receiver builder call
    # placeholders describing a raw receiver builder's features (by id) -> that builder call (export_apis)
    serving_placeholders: dict[int, cst.Call] = field(default_factory=dict)
    # the module's functions given as an export's serving_input_receiver_fn (run in a graph of their own)
    receiver_functions: list[cst.FunctionDef] = field(default_factory=list)
    exporter_calls: list[cst.BaseExpression] = field(default_factory=list)  # what EvalSpecs' exporters= give
    # name -> the exporter call or list literal assigned to it (EvalSpec(exporters=name), if assigned and
    # used once)
    exporter_variables: dict[str, cst.BaseExpression] = field(default_factory=dict)
    specs: dict[Key, cst.Call] = field(default_factory=dict)  # variable -> TrainSpec/EvalSpec call
    # SessionRunHook classes also named where no estimator's hooks list is followed (they stay hooks)
    hooks_used_elsewhere: set[str] = field(default_factory=set)
    # SessionRunHook classes a function of the module builds and returns (`return HookClass(...)`: a library's hook
    # factory, recommenders' evaluation_log_hook). Its callers are not followed, but in TensorFlow >= 2.16 only a
    # migrated estimator's train runs such a hook: a callback there (one error in TF1 graph code's MonitoredSession).
    hooks_returned: set[str] = field(default_factory=set)
    # SessionRunHook classes built into an EstimatorSpec's training_hooks (a list there, or a list variable the
    # model_fn appends them to, as efficientdet's): a wrapped model_fn's spec takes a callback there
    spec_training_hooks: set[str] = field(default_factory=set)
    functions: dict[str, list[cst.FunctionDef]] = field(default_factory=dict)  # every def, by name
    # ids of numpy_input_fn calls whose input_fn the program calls itself (`fn = numpy_input_fn(...)`, then
    # `features, labels = fn()`, or `numpy_input_fn(...)()`: True): they must keep returning tensors, not a
    # dataset (rules/numpy_input_fn.py)
    called_input_fns: dict[int, bool] = field(default_factory=dict)
    # id of a numpy_input_fn call -> the names it reads that its scope binds again (its function must keep
    # the values they had when the call was made, as numpy_input_fn did)
    rebound_input_names: dict[int, list[str]] = field(default_factory=dict)
    # input_fns returning a one-shot iterator's get_next(), which return their dataset instead (rules/input_fn_iterator.py)
    iterator_input_fns: dict = field(default_factory=dict)
    builtin_hook_variables: dict[Key, cst.Call] = field(default_factory=dict)  # variable -> StopAtStepHook(...) ...
    # variable -> `HookClass(...)` assigned to it once, a SessionRunHook class of the module (`hook = MyHook(...)`)
    hook_instances: dict[Key, cst.Call] = field(default_factory=dict)
    # variable -> the list literal assigned to it, for variables only given as hooks= (the migrated code uses them)
    hook_lists: dict[Key, cst.List] = field(default_factory=dict)
    module: cst.Module | None = None
    # `tf.compat.v1.disable_v2_behavior()` / `disable_eager_execution()` statements, and whether the module
    # has TF1 graph code (sessions, placeholders) that needs them
    graph_mode_switches: list[cst.SimpleStatementLine] = field(default_factory=list)
    graph_code: bool = False
    top_level_functions: set[int] = field(default_factory=set)  # ids of the module's own defs
    # MonitoredTrainingSession calls (by id) -> the loop replacing their `with`, or why they are kept
    sessions: dict[int, MonitoredLoop | list[str]] = field(default_factory=dict)
    # tf.train.Saver calls (by id) -> the tf.Session loop saving with it that the rewrite migrates, or why it is kept
    saver_sessions: dict[int, SaverLoop | list[str]] = field(default_factory=dict)
    monitored_loop_statements: set[int] = field(default_factory=set)  # ids of the statements those loops replace
    monitored_loop_calls: set[int] = field(default_factory=set)  # ids of every call in them (hooks included)
    # ids of nodes in the migrated tf.Session loops -> what replaces them (codemods.saver_loops)
    session_replacements: dict[int, cst.CSTNode | cst.RemovalSentinel] = field(default_factory=dict)
    _graph_code_calls: list[int] = field(default_factory=list)  # ids of the calls to GRAPH_CODE APIs
    runtime: RuntimeTier = field(default_factory=RuntimeTier)  # what the run-time linked tier rewrites
    _name_uses: Counter[str] | None = None
    scopes: NameScopes | None = None
    name_keys: dict[int, Key] = field(default_factory=dict)  # id of a Name read of a variable above -> its key

    def key_of(self, name: cst.Name) -> Key:
        """The key of the variable `name` (a Name node of the module as parsed) reads."""
        return self.name_keys.get(id(name)) or (id(self.module), name.value)

    def variable(self, table: dict, value: cst.BaseExpression):
        """What `table` holds for the variable `value` reads, None when it is not a Name of one."""
        return table.get(self.key_of(value)) if isinstance(value, cst.Name) else None

    def estimator_read_by(self, name: cst.BaseExpression) -> EstimatorFacts | None:
        """The estimator a Name reads: its variable's; for a function's parameter (a helper given the estimator,
        `def plot(est): est.predict(...)`), the module's estimators of that name, if they share a tier."""
        if not isinstance(name, cst.Name):
            return None
        key = self.key_of(name)
        if key in self.estimators or key not in self.scopes.parameters:
            return self.estimators.get(key)
        named = [estimator for estimator in self.estimators.values() if estimator.variable == name.value]
        return named[0] if named and len({(e.migratable, e.runtime) for e in named}) == 1 else None

    def run_config_for_call(self, call: cst.Call) -> RunConfigFacts | None:
        return next((config for config in self.run_configs.values() if config.call is call), None)

    @property
    def name_uses(self) -> Counter[str]:
        """How often each name occurs in the module (codemods.syntax.name_counts), counted when first asked."""
        if self._name_uses is None:
            self._name_uses = name_counts(self.module)
        return self._name_uses

    def migrated_sessions(self) -> list[MonitoredLoop | SaverLoop]:
        """Every session loop the rewrite migrates, of both kinds."""
        loops = [*self.sessions.values(), *self.saver_sessions.values()]
        return [loop for loop in loops if isinstance(loop, MonitoredLoop | SaverLoop)]

    def saver_loop(self, statement: cst.CSTNode) -> SaverLoop | None:
        """The loop replacing `statement`, a `with tf.Session() as sess:` saving with a Saver, migrated."""
        for loop in self.saver_sessions.values():
            if isinstance(loop, SaverLoop) and loop.session is statement:
                return loop
        return None

    def monitored_loop(self, statement: cst.CSTNode) -> MonitoredLoop | None:
        """The loop replacing `statement`, a `with MonitoredTrainingSession(...)` the rewrite migrates."""
        for loop in self.sessions.values():
            if isinstance(loop, MonitoredLoop) and loop.session is statement:
                return loop
        return None

    def migrated_model_fn(self, function: cst.FunctionDef) -> EstimatorFacts | None:
        """The custom estimator, migrated, whose model_fn `function` is."""
        for estimator in self.estimators.values():
            if estimator.migratable and estimator.model_fn is not None and estimator.model_fn.function is function:
                return estimator
        return None

    def hook_blocked_by(self, hook: str) -> list[str]:
        """Why `hook` must stay a hook: the estimators that train with it but stay Estimators, and code the
        rewrite does not follow that uses it."""
        users = [
            f"estimator {e.variable}"
            for e in self.estimators.values()
            if hook in e.hook_classes and not e.migratable and not e.runtime
        ]
        if hook in self.spec_training_hooks and self.runtime.blocked_by:
            users.append("the EstimatorSpec of a model_fn whose estimator stays TF1")
        return users + (["code the rewrite does not follow"] if hook in self.hooks_used_elsewhere else [])

    @functools.cached_property
    def replaced_hook_nodes(self) -> set[int]:
        """ids of the nodes codemods/rules/session_run_hook.py replaces whole, in the hook classes that become
        callbacks: their SessionRunHook bases and SessionRunArgs calls' names; and the class names of the built-in
        hooks codemods/rules/builtin_hooks.py replaces with their callbacks."""
        replaced = {id(call.func) for unit in self.estimators.values() if unit.migratable or unit.runtime
                    for call in unit.builtin_hook_calls}
        for hook in self.hooks.values():
            if not hook.problems and not self.hook_blocked_by(hook.name):
                replaced |= {id(base.value) for base in hook.node.bases}
                replaced |= {id(node) for node in nodes_of_types(hook.node, (cst.Attribute,))
                             if node.attr.value == "SessionRunArgs"}
        return replaced

    def input_fn_blocked(self, call: cst.Call) -> bool:
        """Whether a numpy_input_fn call feeds an estimator that stays an Estimator."""
        return any(
            any(c is call for c in e.input_fn_calls) for e in self.estimators.values() if not e.migratable and not e.runtime
        )

    def migrated_export_api(self, call: cst.Call) -> bool:
        """Whether `call` (an exporter, a receiver builder, a ServingInputReceiver in a receiver function) is
        used by the exports of a migrated estimator (and so no kept one: `_block_sharers`)."""
        return any(
            (e.migratable or e.runtime) and any(c is call for c in e.export_api_calls) for e in self.estimators.values()
        )

    def estimator_for_call(self, call: cst.Call) -> EstimatorFacts | None:
        for facts in self.estimators.values():
            if facts.call is call:
                return facts
        return None

    def migrated_saver_hook(self, call: cst.Call) -> bool:
        """Whether `call` is a CheckpointSaverHook whose cadence a migrated training took over."""
        return any(e.migratable and any(c is call for c in e.saver_hook_calls) for e in self.estimators.values())

    def migrated_builtin_hook(self, call: cst.Call) -> bool:
        """Whether `call` builds a built-in hook for a train call that is migrated."""
        return any(
            (facts.migratable or facts.runtime) and any(c is call for c in facts.builtin_hook_calls)
            for facts in self.estimators.values()
        )

    def estimator_for_model_call(self, call: cst.Call) -> EstimatorFacts | None:
        """The estimator whose evaluate/predict call `call` is."""
        for facts in self.estimators.values():
            if any(c is call for c in facts.model_calls):
                return facts
        return None

    def training(self, node: cst.CSTNode) -> tuple[EstimatorFacts, Training] | None:
        """The estimator and training whose statement (or train_and_evaluate call) `node` is."""
        for facts in self.estimators.values():
            for training in facts.trainings:
                if training.statement is node or training.call is node:
                    return facts, training
        return None

    def estimator_for_train(self, statement: cst.SimpleStatementLine) -> EstimatorFacts | None:
        found = self.training(statement)
        return found[0] if found else None

    def migrated_spec(self, statement: cst.SimpleStatementLine) -> cst.Call | None:
        """The TrainSpec/EvalSpec call `statement` assigns, when a migrated training folds it in."""
        assignment = single_assignment(statement)
        key = next((key for key, call in self.specs.items() if call is assignment[1]), None) if assignment else None
        if key is None:
            return None
        for facts in self.estimators.values():
            if facts.migratable and any(key in t.spec_variables for t in facts.trainings):
                return assignment[1]
        return None


def train_call(statement: cst.CSTNode) -> tuple[str, cst.Call] | None:
    """`estimator.train(...)` as a statement of its own: (receiver name, call)."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if not isinstance(small, cst.Expr) or not isinstance(small.value, cst.Call):
        return None
    receiver = method_call(small.value, "train")
    return (receiver, small.value) if receiver is not None else None


def is_run_config_call(value, resolver: ApiResolver) -> bool:
    """Whether `value` is a `RunConfig(...)` call (not a call returning one: `config.replace(...)`, a factory's)."""
    api = resolver.call_api(value) if isinstance(value, cst.Call) else None
    return api is not None and api.is_one_of(*RUNCONFIG_APIS)


def is_numpy_input_fn_call(value, resolver: ApiResolver) -> bool:
    api = resolver.call_api(value) if isinstance(value, cst.Call) else None
    return api is not None and api.is_one_of(*NUMPY_INPUT_FN_APIS)


def run_config_facts(call: cst.Call, variable: str | None, key: Key | None = None) -> RunConfigFacts:
    kwargs, problems = call_arguments(call, RUNCONFIG_PARAMS)
    problems += [
        f"RunConfig({key}=...) is not migrated yet{_NOT_SUPPORTED_WHY.get(key, '')}"
        for key, value in kwargs.items()
        if key not in RUNCONFIG_SUPPORTED and not (key in RUNCONFIG_NONE_ONLY and is_none(value))
    ]
    return RunConfigFacts(call, kwargs, problems, variable, key)


class _Collector(ScopeTracking):
    def __init__(self, resolver: ApiResolver, facts: ProgramFacts):
        super().__init__()
        self.resolver = resolver
        self.facts = facts
        self.assigned: Counter[Key] = Counter()
        self.lists: dict[Key, cst.List] = {}  # variable -> list literal assigned to it
        self.instances: dict[Key, cst.Call] = {}  # variable -> `SomeName(...)` assigned to it
        self.assignment_targets: set[int] = set()  # ids of those assignments' target names

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        super().visit_FunctionDef(node)
        self.facts.functions.setdefault(node.name.value, []).append(node)

    def visit_With(self, node: cst.With) -> None:
        enclosing = [scope for scope in self.scopes if isinstance(scope, cst.FunctionDef)]  # the defs around it
        call = session_call(node, self.resolver)
        if call is not None:
            self.facts.sessions[id(call)] = analyze_session(node, call, enclosing, self.facts.module, self.resolver)
        elif tf_session_call(node, self.resolver) is not None:
            found = analyze_saver_session(node, enclosing, self.facts.module, self.resolver)
            if found is not None:
                self.facts.saver_sessions[id(found[0])] = found[1]

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        super().visit_ClassDef(node)
        if any(
            (api := self.resolver.api(base.value)) and api.is_one_of(*HOOK_BASE_APIS) for base in node.bases
        ):
            analysis = analyze_hook(node, self.resolver, self.facts.module)
            self.facts.hooks[node.name.value] = HookFacts(
                node.name.value, node, analysis.problems, analysis.step_attributes, analysis.fetches_step,
                analysis.own_attributes, analysis.file_writers, analysis.handed_on,
            )

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        self._collect(node)
        return False  # nothing below a simple statement is collected: skipping its expressions saves time

    def _collect(self, node: cst.SimpleStatementLine) -> None:
        small = node.body[0] if len(node.body) == 1 else None
        switch = self.resolver.call_api(small.value) if isinstance(small, cst.Expr) else None
        if switch is not None and switch.is_one_of(*GRAPH_MODE_SWITCHES):
            self.facts.graph_mode_switches.append(node)
        assignment = single_assignment(node)
        if assignment is None:
            return
        name, value = assignment
        key = self.facts.scopes.key(name, self.scopes)
        self.assigned[key] += 1
        if isinstance(value, cst.List):
            self.lists[key] = value
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
            self.instances[key] = value  # a hook's instance if it names a SessionRunHook class (build_facts)
            self.assignment_targets.add(id(node.body[0].targets[0].target))
        api = self.resolver.call_api(value)
        if api is None:
            return
        if api.is_one_of(*RUNCONFIG_APIS):
            self.facts.run_configs[key] = run_config_facts(value, name, key)
        elif api.is_one_of(*NUMPY_INPUT_FN_APIS):
            self.facts.input_fns[key] = value
        elif api.path in SERVING_INPUT_BUILDERS:
            self.facts.serving_inputs[name] = value
        elif api.path in EXPORTERS:
            self.facts.exporter_variables[name] = value
        elif api.is_one_of(*SPEC_APIS):
            self.facts.specs[key] = value
        elif api.path in BUILTIN_HOOKS:
            self.facts.builtin_hook_variables[key] = value
        elif api.is_one_of(*CANNED_ESTIMATORS):
            kwargs, problems = call_arguments(value, CANNED[api.path].positional)
            api = head_api(api, kwargs, self.resolver)
            self.facts.estimators[key] = EstimatorFacts(name, value, api, kwargs, None, problems=problems, key=key)
        elif api.path == CUSTOM_ESTIMATOR:
            arguments, problems = call_arguments(value, ESTIMATOR_PARAMS)
            self.facts.estimators[key] = EstimatorFacts(name, value, api, arguments, None, problems=problems, key=key)


class _UseChecker(ScopeTracking):
    """Second pass: every use of an estimator, RunConfig or spec variable must be one the rules rewrite."""

    def __init__(self, facts: ProgramFacts, resolver: ApiResolver, lists: dict[Key, cst.List]):
        super().__init__()
        self.facts = facts
        self.resolver = resolver
        self.lists = lists  # list variables: used only as hooks= (and assigned once) they are hook lists
        self.hook_references: dict[str, list[cst.Name]] = {}  # SessionRunHook class -> every use of its name
        self.returned_hooks: set[int] = set()  # ids of those names in `return HookClass(...)`
        self.instance_uses: dict[Key, list[cst.Name]] = {}  # hook instance variable -> every use of its name
        self.instance_attributes: set[int] = set()  # ids of those uses reading one of its own attributes
        self.allowed: set[int] = set()  # ids of Name nodes whose use is understood
        self.misused: set[Key] = set()
        self.assigned_so_far: set[Key] = set()
        self.watched = {key[1] for table in (facts.estimators, facts.run_configs, facts.specs, lists, facts.input_fns,
                                             facts.builtin_hook_variables, facts.hook_instances) for key in table}

    def _key(self, name: str) -> Key:
        return self.facts.scopes.key(name, self.scopes)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        assignment = single_assignment(node)
        if assignment:
            target = node.body[0].targets[0].target
            self.allowed.add(id(target))
        found = train_call(node)
        if found and self._key(found[0]) in self.facts.estimators:
            self.facts.estimators[self._key(found[0])].trainings.append(Training(node, found[1]))
            self.allowed.add(id(node.body[0].value.func.value))
        self._train_and_evaluate(node)
        if assignment:
            self.assigned_so_far.add(self._key(assignment[0]))

    def _train_and_evaluate(self, node: cst.SimpleStatementLine) -> None:
        """`[result =] train_and_evaluate(estimator, train_spec, eval_spec)` of a canned estimator here."""
        call = train_and_evaluate_call(node, self.resolver)
        if call is None:
            return
        arguments, problems = call_arguments(call, TRAIN_AND_EVALUATE_PARAMS)
        estimator = arguments.get("estimator")
        if not (isinstance(estimator, cst.Name) and self._key(estimator.value) in self.facts.estimators):
            return  # not an estimator this module builds: the unsupported-api rule says what to do
        facts = self.facts.estimators[self._key(estimator.value)]
        self.allowed.add(id(estimator))
        specs, variables = {}, []
        for key in ("train_spec", "eval_spec"):
            spec = arguments.get(key)
            kind = "estimator.TrainSpec" if key == "train_spec" else "estimator.EvalSpec"
            if isinstance(spec, cst.Name) and self._key(spec.value) in self.facts.specs:
                if self._key(spec.value) not in self.assigned_so_far:
                    problems.append(f"{key} `{spec.value}` is not assigned before train_and_evaluate")
                self.allowed.add(id(spec))
                variables.append(self._key(spec.value))
                spec = self.facts.specs[self._key(spec.value)]
            api = self.resolver.call_api(spec) if isinstance(spec, cst.Call) else None
            if api is None or api.path != kind:
                problems.append(f"{key}= is not a {kind.split('.')[1]}(...) this module builds")
            else:
                specs[key] = spec
        facts.problems.extend(problems)
        if len(specs) == 2:
            facts.trainings.append(Training(node, call, specs["train_spec"], specs["eval_spec"], tuple(variables)))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.allowed.add(id(node.keyword))  # `config=` names a parameter, not the variable
            if node.keyword.value == "hooks" and isinstance(node.value, cst.Name):
                self.allowed.add(id(node.value))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.allowed.add(id(node.attr))
        if isinstance(node.value, cst.Name) and self._key(node.value.value) in self.facts.hook_instances \
                and node.attr.value not in (*HOOK_METHODS, "after_create_session"):
            self.instance_attributes.add(id(node.value))  # `hook.seen`: the callback keeps the hook's attributes

    def visit_Call(self, node: cst.Call) -> None:
        api = self.resolver.call_api(node)
        if api is not None and api.is_one_of(*GRAPH_CODE) or cst.helpers.get_full_name_for_node(node.func) in KEPT_GRAPH_CODE:
            self.facts._graph_code_calls.append(id(node))  # graph code unless a migrated session loop replaces it
        if api is not None and BUILTIN_HOOKS.get(api.path) in EARLY_STOPPING_HOOKS:
            estimator = call_arguments(node, BUILTIN_HOOK_PARAMS[BUILTIN_HOOKS[api.path]])[0].get("estimator")
            if isinstance(estimator, cst.Name):
                self.allowed.add(id(estimator))  # replaced by its eval directory when the hook is migrated
        used = model_method_call(node)
        if used is not None and self._key(used) in self.facts.estimators:
            self.facts.estimators[self._key(used)].model_calls.append(node)
            self.allowed.add(id(node.func.value))
        estimator = self.facts.estimator_for_call(node)
        if estimator is None:
            return
        config = estimator.kwargs.get("config")
        if isinstance(config, cst.Name) and self._key(config.value) in self.facts.run_configs:
            estimator.config = self.facts.run_configs[self._key(config.value)]
            self.allowed.add(id(config))
        elif is_run_config_call(config, self.resolver):
            estimator.config = run_config_facts(config, None)
        elif config is not None:  # a factory's or `.replace(...)`'s config: its settings are known when it runs
            estimator.problems.append(RunTimeChecked("config= is not a RunConfig this module builds"))

    def visit_Return(self, node: cst.Return) -> None:
        if isinstance(node.value, cst.Call) and isinstance(node.value.func, cst.Name) \
                and node.value.func.value in self.facts.hooks:
            self.returned_hooks.add(id(node.value.func))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.facts.hooks and node is not self.facts.hooks[node.value].node.name:
            self.hook_references.setdefault(node.value, []).append(node)
        if node.value not in self.watched:
            return
        key = self.facts.name_keys[id(node)] = self._key(node.value)
        if key in self.facts.hook_instances:
            self.instance_uses.setdefault(key, []).append(node)
        watched = (
            key in self.facts.estimators
            or key in self.facts.run_configs
            or key in self.facts.specs
            or key in self.lists
        )
        if watched and id(node) not in self.allowed:
            self.misused.add(key)


class _TrainedBefore(cst.CSTVisitor):
    """evaluate/predict calls after a train statement of their estimator in the same or an enclosing block.

    Only there is the migrated model in memory the model the Estimator would evaluate: its final checkpoint.
    """

    def __init__(self, facts: ProgramFacts):
        self.facts = facts
        self.used_after_training: set[int] = set()

    def _scan(self, body) -> None:
        trained: set[int] = set()  # ids of the model calls of the estimators trained so far
        for statement in body:
            if trained:
                finder = _ModelCalls(trained)
                fast_visit(statement, finder)
                self.used_after_training.update(id(call) for call in finder.calls)
            estimator = self.facts.estimator_for_train(statement)
            if estimator is not None:
                trained.update(id(call) for call in estimator.model_calls)

    def visit_Module(self, node: cst.Module) -> None:
        self._scan(node.body)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._scan(node.body)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        return False  # no block below it


class _ModelCalls(cst.CSTVisitor):
    def __init__(self, calls: set[int]):
        self.ids = calls
        self.calls: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        if id(node) in self.ids:
            self.calls.append(node)


def _spec_training_hook_names(module: cst.Module, resolver: ApiResolver, hooks: set[str]) -> list[cst.Name]:
    """The hook class names called in an EstimatorSpec's `training_hooks=[...]`, or in a function whose spec is
    given a list variable, in what that function puts in it (`v = [...]`, `v.append(...)`, `v.extend([...])`,
    `v += [...]`)."""
    if not hooks:
        return []
    found = []
    for function in nodes_of_types(module, (cst.FunctionDef,)):
        for call in nodes_of_types(function, (cst.Call,)):
            api = resolver.call_api(call)
            if api is None or (api.path != "estimator.EstimatorSpec" and tpu_name(api.path) != "TPUEstimatorSpec"):
                continue
            given = next((arg.value for arg in call.args if arg.keyword and arg.keyword.value == "training_hooks"), None)
            if isinstance(given, cst.List):
                places = [given]
            elif isinstance(given, cst.Name):
                places = _list_contents(function, given.value)
            else:
                continue
            found += [node.func for place in places for node in nodes_of_types(place, (cst.Call,))
                      if type(node.func) is cst.Name and node.func.value in hooks]
    return found


def _list_contents(function: cst.FunctionDef, variable: str) -> list[cst.CSTNode]:
    """What `function` puts in its list `variable`: the values assigned or added, the arguments appended."""
    def is_variable(node: cst.CSTNode) -> bool:
        return type(node) is cst.Name and node.value == variable

    places = []
    for node in nodes_of_types(function, (cst.Assign, cst.AugAssign)):
        if (is_variable(node.target) if type(node) is cst.AugAssign
                else len(node.targets) == 1 and is_variable(node.targets[0].target)):
            places.append(node.value)
    for call in nodes_of_types(function, (cst.Call,)):
        func = call.func
        if type(func) is cst.Attribute and is_variable(func.value) and func.attr.value in ("append", "extend"):
            places += [arg.value for arg in call.args]
    return places


def collect_facts(
    module: cst.Module,
    resolver: ApiResolver,
    exact: bool = False,
    project: ProjectFacts | None = None,
    source: str | None = None,
) -> ProgramFacts:
    """Everything the rules need to know about the module before they change it (with `--exact` or not);
    `project` says what the project's other modules keep (None: the module is its own project); `source` is
    the module's text when the caller has it (else the module's code is generated where needed)."""
    facts = ProgramFacts(
        module=module,
        top_level_functions={id(statement) for statement in module.body if isinstance(statement, cst.FunctionDef)},
        scopes=NameScopes(module, resolver.bindings),
    )
    collector = _Collector(resolver, facts)
    fast_visit(module, collector)
    facts.iterator_input_fns = iterator_input_fns(module, facts.functions, resolver)
    if source is None or "numpy_input_fn" in source or "pandas_input_fn" in source:  # (their names: resolver's)
        _numpy_input_fn_scopes(module, resolver, facts)
    facts.hook_instances = {
        name: call for name, call in collector.instances.items()
        if call.func.value in facts.hooks and collector.assigned[name] == 1
    }
    checker = _UseChecker(facts, resolver, collector.lists)
    fast_visit(module, checker)
    if source is None or "build_raw_serving_input_receiver_fn" in source:  # (a walk of the module saved)
        facts.serving_placeholders = serving_feature_placeholders(module, resolver)
    _check_sessions(facts, checker.hook_references)
    facts.exporter_variables.update({name: value for (_, name), value in collector.lists.items()})
    facts.exporter_calls = _eval_spec_exporters(facts)
    facts.hook_lists = {
        name: value
        for name, value in collector.lists.items()
        if name not in checker.misused and collector.assigned[name] == 1
    }
    trained_before = _TrainedBefore(facts)
    fast_visit(module, trained_before)
    for key, estimator in facts.estimators.items():
        name = estimator.variable
        _check_estimator(estimator, facts, resolver, collector.assigned, checker.misused)
        estimator.problems.extend(_distribution_problems(estimator, exact))
        if key in checker.misused:
            estimator.problems.append(
                RunTimeChecked(f"`{name}` is used other than by train, evaluate and predict; only these are migrated yet")
            )
        for call in estimator.model_calls:
            method = call.func.attr.value
            if id(call) not in trained_before.used_after_training:
                estimator.problems.append(RunTimeChecked(
                    f"{name}.{method}() is not preceded by {name}.train() in its block or an enclosing one "
                    "(Estimator used the checkpoint in model_dir; the migrated model is the one in memory)"
                ))
            estimator.problems.extend(_model_call_problems(call, estimator, facts, resolver))
        estimator.problems = list(dict.fromkeys(estimator.problems))  # one TODO per reason
    followed = {reference for estimator in facts.estimators.values() for reference in estimator.hook_references}
    followed |= {id(hook.func) for loop in facts.sessions.values() if isinstance(loop, MonitoredLoop) for hook in loop.custom_hooks}
    # (not in a module of TF1 graph code, whose MonitoredSession the returned hook may be given to: kept, or
    # compat.graph_sessions' once rewritten)
    if not facts.graph_code and not any(isinstance(loop, list) for loop in facts.sessions.values()):
        facts.hooks_returned = {name for name, references in checker.hook_references.items()
                                if any(id(r) in checker.returned_hooks for r in references)}
        followed |= checker.returned_hooks
    # a module class deriving from a hook: hook_facts analyses it with the hook (they convert together or not at all)
    if facts.hooks:
        followed |= {id(base.value) for cls in nodes_of_types(module, (cst.ClassDef,)) for base in cls.bases
                     if isinstance(base.value, cst.Name) and base.value.value in facts.hooks}
    # (a spec's class is named in the module's text, whatever it is imported as: `from ... import EstimatorSpec as S`)
    spec_named = source is None or "EstimatorSpec" in source
    in_specs = _spec_training_hook_names(module, resolver, set(facts.hooks)) if spec_named else []
    facts.spec_training_hooks = {name.value for name in in_specs}
    followed |= {id(name) for name in in_specs}
    facts.hooks_used_elsewhere = {
        name for name, references in checker.hook_references.items() if any(id(r) not in followed for r in references)
    }
    # An instance variable given to a followed hooks list only (its assignment aside): its class is followed there
    followed_instances = {reference for estimator in facts.estimators.values()
                          for reference in estimator.hook_instance_references}
    for key, call in facts.hook_instances.items():
        uses = [use for use in checker.instance_uses.get(key, [])
                if id(use) not in collector.assignment_targets and id(use) not in checker.instance_attributes]
        if any(id(use) not in followed_instances for use in uses):
            facts.hooks_used_elsewhere.add(call.func.value)
    _discount_receiver_graph_code(facts)
    if facts.graph_mode_switches and facts.graph_code:
        for estimator in facts.estimators.values():
            estimator.problems.append(
                "the module switches TF2 behaviour off for its TF1 graph code (sessions, placeholders), and the "
                "migrated code runs eagerly"
            )
    _block_sharers(facts)
    if project is None:  # callers with the source at hand pass it (codemods.transformer.migrate_source)
        project = module_facts(source or module.code)
    facts.runtime = analyze_runtime_tier(module, resolver, facts, project, source)
    return facts


def _discount_receiver_graph_code(facts: ProgramFacts) -> None:
    """Placeholders and parsing in a serving input receiver function run in the export's graph (Estimator's, and
    compat.estimator_export's): no graph code that needs TF2 behaviour switched off."""
    if not facts.graph_code or not facts.receiver_functions:
        return
    facts.graph_code = _has_graph_code(facts, receiver_function_calls(facts))


def receiver_function_calls(facts: ProgramFacts) -> set[int]:
    """The ids of the calls in the module's serving input receiver functions (run in an export's graph)."""
    return {id(call) for function in facts.receiver_functions for call in nodes_of_types(function, (cst.Call,))}


def _has_graph_code(facts: ProgramFacts, discounted: set[int] = frozenset()) -> bool:
    """Whether the module keeps graph code (`discounted`: ids of calls that do not count): not the calls a
    migrated session loop replaces, nor a placeholder describing a serving feature (it becomes a TensorSpec)."""
    replaced = set().union(*(loop.calls for loop in facts.migrated_sessions()))
    return any(call not in replaced and call not in facts.serving_placeholders and call not in discounted
               for call in facts._graph_code_calls)


def _check_sessions(facts: ProgramFacts, hook_references: dict[str, list[cst.Name]]) -> None:
    """A session loop migrates under a class name of its own; a MonitoredTrainingSession with hooks of its own
    that become Keras callbacks and that nothing else uses. The loops run eagerly: not where the module keeps
    other TF1 graph code that needs TF2 behaviour switched off. Records what the migrated ones replace."""
    class_names = Counter(loop.model_name for loop in facts.migrated_sessions())
    for loops in (facts.sessions, facts.saver_sessions):
        for key, loop in loops.items():
            if not isinstance(loop, MonitoredLoop | SaverLoop):
                continue
            problems = []
            if facts.name_uses[loop.model_name] or class_names[loop.model_name] > 1:
                problems.append(f"the module already uses the name {loop.model_name} the migrated model would take")
            if isinstance(loop, MonitoredLoop):
                problems += _session_hook_problems(loop, facts, hook_references)
            if problems:
                loops[key] = problems
    facts.graph_code = _has_graph_code(facts)
    if facts.graph_mode_switches and facts.graph_code:
        for loops in (facts.sessions, facts.saver_sessions):
            for key, loop in loops.items():
                if isinstance(loop, MonitoredLoop | SaverLoop):
                    loops[key] = [
                        "the module switches TF2 behaviour off for its other TF1 graph code (sessions, placeholders), "
                        "and the migrated loop runs eagerly"
                    ]
    for loop in facts.migrated_sessions():
        facts.monitored_loop_statements |= loop.removed
        facts.monitored_loop_calls |= loop.calls
        if isinstance(loop, SaverLoop):
            facts.session_replacements.update(loop.replacements)


def _session_hook_problems(loop: MonitoredLoop, facts: ProgramFacts, hook_references) -> list[str]:
    """Why the session's own hooks cannot become Keras callbacks."""
    problems, given = [], {id(hook.func) for hook in loop.custom_hooks}
    for name in dict.fromkeys(hook.func.value for hook in loop.custom_hooks):
        if name not in facts.hooks:
            problems.append(f"hook {name}(...) is not a SessionRunHook class of this module")
        elif facts.hooks[name].problems:
            problems.append(f"hook {name} cannot become a Keras callback")
        elif any(id(reference) not in given for reference in hook_references.get(name, [])):
            problems.append(f"hook {name} is also used elsewhere, so it stays a hook")
    return problems


def _block_sharers(facts: ProgramFacts) -> None:
    """An estimator sharing an input_fn or hook class with one that stays an Estimator stays one too: the
    shared definition must stay TF1 for it, and the migrated code could not use it."""
    changed = True
    while changed:
        changed = False
        kept = [e for e in facts.estimators.values() if not e.migratable]
        for estimator in facts.estimators.values():
            if not estimator.migratable:
                continue
            elsewhere = sorted(estimator.hook_classes & facts.hooks_used_elsewhere)
            if elsewhere:
                estimator.problems.append(
                    f"hook {elsewhere[0]} is also used where the rewrite cannot follow it, so it stays a hook"
                )
                changed = True
                continue
            for other in kept:
                shared_input = any(c is d for c in estimator.input_fn_calls for d in other.input_fn_calls)
                shared_serving = any(c is d for c in estimator.export_api_calls for d in other.export_api_calls)
                shared_hooks = sorted(estimator.hook_classes & other.hook_classes)
                if shared_input or shared_serving or shared_hooks:
                    what = (
                        "its numpy_input_fn" if shared_input
                        else "its serving input receiver or exporter" if shared_serving
                        else f"hook {shared_hooks[0]}"
                    )
                    estimator.problems.append(f"shares {what} with `{other.variable}`, which is not migrated")
                    changed = True
                    break


def _check_estimator(estimator, facts, resolver, assigned, misused) -> None:
    if estimator.custom:
        _check_custom_estimator(estimator, facts, resolver)
    else:
        _check_canned_estimator(estimator, resolver)
    if assigned[estimator.key] != 1:
        estimator.problems.append(RunTimeChecked(f"`{estimator.variable}` is assigned more than once"))
    config = estimator.config
    if config is not None:
        estimator.problems.extend(_spread_checked_at_run_time({}, config.problems)[1])  # (TrainingConfig(**settings))
        if config.key and (config.key in misused or assigned[config.key] != 1):
            estimator.problems.append(RunTimeChecked(f"RunConfig `{config.variable}` is used or assigned elsewhere"))
    if estimator.model_dir is None:
        estimator.problems.append(
            RunTimeChecked("no model_dir: checkpoints would go to a temporary directory; set model_dir")
        )
    if not estimator.trainings:
        estimator.problems.append(
            RunTimeChecked(f"`{estimator.variable}` is never trained with .train(...) or train_and_evaluate(...)")
        )
    for training in estimator.trainings:
        if training.train_spec is None:
            kwargs, problems = keyword_args(training.call)
            problems = [RunTimeChecked(problem) for problem in problems]  # the compat functions take positions
            problems += _train_problems(kwargs, estimator, facts, resolver)
        else:
            problems = _train_and_evaluate_problems(training, estimator, facts, resolver)
            problems += [
                f"{key[1]} is used or assigned elsewhere than in train_and_evaluate"
                for key in training.spec_variables
                if key in misused or assigned[key] != 1
            ]
        estimator.problems.extend(problems)
    if estimator.saver_hook_calls and len(estimator.saver_hook_calls) != len(estimator.trainings):
        estimator.problems.append("a CheckpointSaverHook in some of its trainings only (one cadence per estimator)")
    cadence = estimator.checkpoint_cadence()  # after the trainings: their CheckpointSaverHook's, if any
    if isinstance(cadence, str):
        estimator.problems.append(cadence)
    if estimator.summary_problem() is not None:
        estimator.problems.append(estimator.summary_problem())


def _switched_off(value: cst.BaseExpression) -> bool:
    """A literal 0: a RunConfig cadence Estimator treated as off."""
    return isinstance(value, cst.Integer) and value.evaluated_value == 0


def _distribution_problems(estimator: EstimatorFacts, exact: bool) -> list[str]:
    """Why training under RunConfig(train_distribute=...) cannot be carried over (codemods/rules/
    train_distribute.py: fit under the strategy's scope, each replica taking whole input_fn batches)."""
    if estimator.train_strategy is None:
        return []
    problems = []
    if estimator.custom and estimator.model_fn is not None and _sum_reduced(estimator.model_fn):
        problems.append(
            "train_distribute with a model_fn loss reduced by SUM is not migrated (TF1 optimizers left it unscaled "
            "and scaled every other loss by 1/replicas: the migrated compute_loss does the latter)"
        )
    for training in estimator.trainings:
        kwargs = training.train_arguments()
        if not any(key in kwargs and not is_none(kwargs[key]) for key in ("steps", "max_steps")):
            problems.append(
                "train_distribute with training until the input ends is not migrated (the migrated training "
                "counts its steps over distributed input)"
            )
    return problems


def _sum_reduced(shape: ModelFnShape) -> bool:
    """Whether the model_fn's loss statements pass a reduction of SUM (a TF1 optimizer under a distribution
    strategy then did not scale the loss by 1/replicas: optimizer.py, _scale_loss)."""
    for statement in shape.loss_statements:
        for node in nodes_of_types(statement, (cst.Arg,)):
            if node.keyword is None or node.keyword.value != "reduction":
                continue
            text = source(node.value)
            if text.endswith("SUM") or text.strip("'\"").lower() == "sum":
                return True
    return False


def _check_canned_estimator(estimator: EstimatorFacts, resolver: ApiResolver) -> None:
    from codemods.optimizers import optimizer_problem

    spec = CANNED[estimator.api.path]
    for key in estimator.kwargs:
        if key in DROPPED_WHEN_NONE and not accepted(key, spec, estimator.api.v1, estimator.kwargs[key]):
            estimator.problems.append(RunTimeChecked(f"{estimator.api.path}({key}=...) is warm-started when the "
                                                     "program runs (compat.warm_start)"))
        elif not accepted(key, spec, estimator.api.v1, estimator.kwargs[key]):
            estimator.problems.append(f"{estimator.api.path}({key}=...) is not migrated yet")
    for required in spec.required:
        if required not in estimator.kwargs:
            estimator.problems.append(f"{required}= must be given by keyword")
    if "loss_reduction" in estimator.kwargs:
        problem = loss_reduction_problem(estimator.kwargs, resolver)
        if problem:
            estimator.problems.append(problem)
    for key in spec.optimizers:
        if key in estimator.kwargs:
            problem = optimizer_problem(estimator.kwargs[key], resolver)
            if problem:
                estimator.problems.append(problem)


def _check_custom_estimator(estimator: EstimatorFacts, facts: ProgramFacts, resolver: ApiResolver) -> None:
    """A custom Estimator migrates when its model_fn is a function of this module, in the shape
    codemods/model_fns.py turns into a Keras model, used only here, and it is only trained."""
    problems = estimator.problems
    problems += [
        f"Estimator({key}=...) is not migrated yet" for key in estimator.kwargs if key not in CUSTOM_ESTIMATOR_KEYWORDS
    ]
    function = estimator.kwargs.get("model_fn")
    definitions = facts.functions.get(function.value, []) if isinstance(function, cst.Name) else []
    if len(definitions) != 1:
        problems.append("model_fn= is not a function defined once in this module")
        return
    name = function.value
    if id(definitions[0]) not in facts.top_level_functions:
        problems.append(f"model_fn `{name}` is not defined at the module's top level")
    if facts.name_uses[name] != 2:  # its def and model_fn=
        problems.append(f"model_fn `{name}` is used elsewhere too (it becomes a class)")
    shape = analyze_model_fn(definitions[0], resolver)
    if isinstance(shape, list):
        problems += [f"model_fn {name}: {problem}" for problem in shape]
        return
    if facts.name_uses[shape.class_name]:
        problems.append(f"the module already uses the name {shape.class_name} the migrated model_fn would take")
    for method in sorted({call.func.attr.value for call in estimator.model_calls}):
        exported = method in EXPORT_METHODS  # its signature: the PREDICT path's predictions
        if method == "evaluate":
            path = evaluation_path(shape, resolver)
        else:
            path = prediction_path(shape, resolver, exported)
        if isinstance(path, list):
            problems += [f"model_fn {name}, for {method}(): {problem}" for problem in path]
        else:
            estimator.model_fn_paths["predict" if exported else method] = path
    estimator.model_fn = shape


# Their parameters, in order (tensorflow_estimator's inputs/numpy_io.py; pandas_io.py adds target_column).
NUMPY_INPUT_FN_PARAMS = ("x", "y", "batch_size", "num_epochs", "shuffle", "queue_capacity", "num_threads")


def numpy_input_fn_arguments(call: cst.Call) -> tuple[dict[str, cst.BaseExpression], list[str]]:
    """A numpy_input_fn or pandas_input_fn call's arguments by name (positional ones too), and problems."""
    return call_arguments(call, (*NUMPY_INPUT_FN_PARAMS, "target_column"))


class _InputFnScope(cst.CSTVisitor):
    """One function body or the module's (nested functions and classes are scopes of their own): its
    numpy_input_fn calls, those assigned to a name, the names called with no arguments, the calls called at
    once, and how each name is bound (how often; inside a loop or comprehension)."""

    def __init__(self, resolver: ApiResolver, root: cst.CSTNode):
        self.resolver, self.root = resolver, root
        self.made: list[cst.Call] = []
        self.assigned: dict[str, list[cst.Call]] = {}
        self.called: set[str] = set()
        self.called_at_once: set[int] = set()
        self.bindings: Counter = Counter()
        self.bound_in_loops: set[str] = set()
        self.loops = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node is self.root

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def _loop(self, node) -> None:
        self.loops += 1

    def _end_loop(self, node) -> None:
        self.loops -= 1

    visit_For = visit_While = visit_CompFor = _loop
    leave_For = leave_While = leave_CompFor = _end_loop

    def _bind(self, target: cst.CSTNode) -> None:
        for name in nodes_of_types(target, (cst.Name,)):
            self.bindings[name.value] += 1
            if self.loops:
                self.bound_in_loops.add(name.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind(target.target)
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) and is_numpy_input_fn_call(node.value, self.resolver):
            self.assigned.setdefault(node.targets[0].target.value, []).append(node.value)

    def visit_Param(self, node: cst.Param) -> None:
        self._bind(node.name)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._bind(node.name)

    def visit_For_target(self, node: cst.For) -> None:
        self._bind(node.target)

    def visit_CompFor_target(self, node: cst.CompFor) -> None:
        self._bind(node.target)

    def visit_Call(self, node: cst.Call) -> None:
        if is_numpy_input_fn_call(node, self.resolver):
            self.made.append(node)
        if node.args:
            return
        if isinstance(node.func, cst.Name):
            self.called.add(node.func.value)
        elif is_numpy_input_fn_call(node.func, self.resolver):
            self.called_at_once.add(id(node.func))

    def rebound(self, name: str) -> bool:
        """Whether `name` may hold another value later in this scope (bound twice, or in a loop)."""
        return self.bindings[name] > 1 or name in self.bound_in_loops


def _names_read(expression: cst.CSTNode) -> list[str]:
    """The variable names an expression reads from its scope (not attribute names, keywords, or names its own
    comprehensions and lambdas bind), in order, once each."""
    names = []
    own = {name.value for target in nodes_of_types(expression, (cst.CompFor,))
           for name in nodes_of_types(target.target, (cst.Name,))}

    class Reads(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            names.append(node.value)

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_Arg(self, node: cst.Arg) -> bool:
            node.value.visit(self)
            return False

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

    expression.visit(Reads())
    return [name for name in dict.fromkeys(names) if name not in own]


def _numpy_input_fn_scopes(module: cst.Module, resolver: ApiResolver, facts: ProgramFacts) -> None:
    """Note the numpy_input_fn calls whose input_fn the program calls itself (-> whether at once), and the
    names each call reads that the scope binds again (`facts.called_input_fns`, `facts.rebound_input_names`)."""
    for scope in [module, *nodes_of_types(module, (cst.FunctionDef,))]:
        found = _InputFnScope(resolver, scope)
        scope.visit(found)
        for name, made in found.assigned.items():
            if name in found.called:
                facts.called_input_fns.update(dict.fromkeys(map(id, made), False))
        facts.called_input_fns.update(dict.fromkeys(found.called_at_once, True))
        for call in found.made:
            rebound = [name for arg in call.args for name in _names_read(arg.value) if found.rebound(name)]
            if rebound:
                facts.rebound_input_names[id(call)] = list(dict.fromkeys(rebound))


def numpy_input_fn_problems(call: cst.Call) -> list[str]:
    """Why a numpy_input_fn or pandas_input_fn call cannot become a tf.data pipeline (empty when it can)."""
    name = cst.helpers.get_full_name_for_node(call.func).rsplit(".", 1)[-1]
    kwargs, problems = numpy_input_fn_arguments(call)
    supported = NUMPY_INPUT_FN_PARAMS
    problems += [f"{name}({key}=...) is not migrated yet" for key in kwargs if key not in supported]
    if "x" not in kwargs:
        problems.append(f"{name} needs x=")
    shuffle = kwargs.get("shuffle")
    if shuffle is None or is_none(shuffle):  # numpy_input_fn raised a ValueError
        problems.append(f"{name}(shuffle=...) must be given, True or False")
    return problems


def _train_problems(
    kwargs: dict[str, cst.BaseExpression], estimator: EstimatorFacts, facts: ProgramFacts, resolver: ApiResolver
) -> list[str]:
    """Why `train(**kwargs)` cannot be migrated (and notes the hooks and input_fns it uses)."""
    problems = [
        f"train({key}=...) is not migrated yet"
        for key in kwargs
        if key not in ("input_fn", "hooks", "steps", "max_steps", "saving_listeners")
    ]
    if "saving_listeners" in kwargs and not is_none(kwargs["saving_listeners"]):
        # CheckpointSaverListeners around model_dir's saves: compat.estimator_training.train calls them
        problems.append(RunTimeChecked("saving_listeners= are called by the run-time tier (compat.estimator_training), "
                                       "not by an inline training"))
    limits = [key for key in ("steps", "max_steps") if key in kwargs and not is_none(kwargs[key])]
    if len(limits) == 2:
        problems.append("train() with both steps= and max_steps= (Estimator refuses that)")
    problems += _input_fn_problems(kwargs.get("input_fn"), estimator, facts, resolver)
    hooks = kwargs.get("hooks")
    listed_elsewhere = isinstance(hooks, cst.Name)
    if facts.variable(facts.hook_lists, hooks) is not None:
        hooks = facts.variable(facts.hook_lists, hooks)
    if hooks is not None:
        if not isinstance(hooks, cst.List):
            problems.append(RunTimeChecked(
                "hooks= must be a list literal, or a variable assigned one list literal and only given as hooks="
            ))
        else:
            for element in hooks.elements:
                hook = element.value
                if facts.variable(facts.builtin_hook_variables, hook) is not None:
                    hook = facts.variable(facts.builtin_hook_variables, hook)
                elif facts.variable(facts.hook_instances, hook) is not None:
                    estimator.hook_instance_references.add(id(hook))
                    hook = facts.variable(facts.hook_instances, hook)
                builtin = resolver.call_api(hook)
                if builtin is not None and builtin.path in SAVER_HOOKS:
                    problems += _saver_hook_problems(hook, element.value, listed_elsewhere, estimator)
                    continue
                if builtin is not None and builtin.path in BUILTIN_HOOKS and (
                        BUILTIN_HOOKS[builtin.path] not in CANNED_ONLY_HOOKS or estimator.api.path in CANNED
                        or logs_only_the_step(hook)):
                    estimator.builtin_hook_calls.append(hook)
                    problems += builtin_hook_problems(hook, builtin.path, estimator.variable)
                    continue
                name = (
                    hook.func.value
                    if isinstance(hook, cst.Call) and isinstance(hook.func, cst.Name)
                    else None
                )
                if name is not None:
                    estimator.hook_classes.add(name)
                    estimator.hook_references.add(id(hook.func))
                # On the run-time tier a hook that is not a Keras callback when the program runs is one error
                # there (compat.estimator_training.callbacks_of): only the call given it fails, not the program
                if name not in facts.hooks:
                    problems.append(RunTimeChecked(
                        "hooks= holds a hook that is neither a SessionRunHook class of this module nor a "
                        f"built-in hook the rewrite carries over ({', '.join(sorted(set(BUILTIN_HOOKS.values())))})"
                    ))
                elif facts.hooks[name].problems:
                    problems.append(RunTimeChecked(f"hook {name} cannot become a Keras callback"))
    return problems


def _saver_hook_problems(
    hook: cst.Call, given: cst.BaseExpression, listed_elsewhere: bool, estimator: EstimatorFacts
) -> list[str]:
    """Why a CheckpointSaverHook in hooks= cannot become the migrated training's cadence; noted when it can
    (the migrated hooks list leaves it out, so it must be written in the train call's own list)."""
    if given is not hook or listed_elsewhere:
        return ["CheckpointSaverHook is not written inline in the hooks= list of the train call or TrainSpec"]
    cadence = saver_hook_cadence(hook, estimator.model_dir)
    if isinstance(cadence, list):
        return cadence
    if estimator.saver_hook is not None and (estimator.saver_hook[0], source(estimator.saver_hook[1])) != (
        cadence[0], source(cadence[1])
    ):
        return ["CheckpointSaverHooks with different cadences (one cadence per estimator)"]
    estimator.saver_hook_calls.append(hook)
    estimator.saver_hook = cadence
    return []


def _input_fn_problems(
    input_fn: cst.BaseExpression | None, estimator: EstimatorFacts, facts: ProgramFacts, resolver: ApiResolver
) -> list[str]:
    """Why an input_fn= argument cannot give the migrated code a tf.data pipeline; its numpy_input_fn noted as
    used (numpy_input_fns are rewritten; functions returning a dataset are kept: codemods/input_fns.py)."""
    inline = resolver.call_api(input_fn) if input_fn is not None else None
    if facts.variable(facts.input_fns, input_fn) is not None:
        estimator.input_fn_calls.append(facts.variable(facts.input_fns, input_fn))
        return numpy_input_fn_problems(facts.variable(facts.input_fns, input_fn))
    if inline is not None and inline.is_one_of(*NUMPY_INPUT_FN_APIS):
        estimator.input_fn_calls.append(input_fn)
        return numpy_input_fn_problems(input_fn)
    made = _returned_numpy_input_fns(input_fn, facts, resolver)
    if made:  # `get_input_fn(data, shuffle=False)` returning numpy_input_fn(...): its call gives the pipeline
        estimator.input_fn_calls.extend(made)
        return [problem for call in made for problem in numpy_input_fn_problems(call)]
    problems = callable_input_fn_problems(input_fn, facts.functions, resolver, facts.iterator_input_fns) \
        if input_fn is not None else None
    if problems is not None:
        return problems
    return [RunTimeChecked("input_fn= is not a numpy_input_fn, or a function returning a tf.data.Dataset, of this module")]


def _returned_numpy_input_fns(input_fn, facts: ProgramFacts, resolver: ApiResolver) -> list[cst.Call]:
    """The numpy_input_fn / pandas_input_fn calls that a call of one of the module's functions returns, when
    that is all it returns; else []."""
    if not (isinstance(input_fn, cst.Call) and isinstance(input_fn.func, cst.Name)):
        return []
    defined = facts.functions.get(input_fn.func.value, [])
    if len(defined) != 1:
        return []
    returned = returned_values(defined[0], resolver)
    calls = [value for value in returned if isinstance(value, cst.Call)]
    if not calls or len(calls) != len(returned):
        return []
    return calls if all(is_numpy_input_fn_call(call, resolver) for call in calls) else []


def model_method_call(call: cst.Call) -> str | None:
    """The receiver's name, for `<name>.<method>(...)` of a method in MODEL_METHODS (evaluate, predict, export)."""
    for method in MODEL_METHODS:
        receiver = method_call(call, method)
        if receiver is not None:
            return receiver
    return None


def model_call_arguments(call: cst.Call) -> tuple[dict[str, cst.BaseExpression], list[str]]:
    """A model method call's arguments by parameter name, and problems (arguments not carried over among them)."""
    method = call.func.attr.value
    parameters, carried_over = MODEL_METHODS[method]
    arguments, problems = _spread_checked_at_run_time(*call_arguments(call, parameters))
    for key in arguments:
        if key not in carried_over:
            problem = f"{method}({key}=...) is not migrated yet"
            carried = _runtime_carries(method, key, arguments[key])
            problems.append(RunTimeChecked(problem) if carried else problem)
    return arguments, problems


def _spread_checked_at_run_time(arguments: dict, problems: list[str]) -> tuple[dict, list[str]]:
    """`call_arguments`' result, its */** problem a run-time one: the run-time tier's compat functions take
    the Estimator API's parameters by the same names, and check what they are given."""
    return arguments, [RunTimeChecked(p) if p.startswith("*/** arguments") else p for p in problems]


def _runtime_carries(method: str, key: str, value: cst.BaseExpression) -> bool:
    """Whether the run-time tier's compat function does what Estimator did with this argument (evaluate's
    `name`, any method's `checkpoint_path`, no hooks; an evaluation's SessionRunHooks for a custom model_fn,
    which runs as written, and for any estimator the hooks acting on an input's session only, checked when the
    program runs: compat.estimator_training.session_only_hooks), so it need not keep the estimator."""
    if key == "checkpoint_path" or (method == "evaluate" and key in ("name", "hooks")):
        return True
    return key == "hooks" and (is_none(value) or isinstance(value, cst.List) and not value.elements)


def _model_call_problems(
    call: cst.Call, estimator: EstimatorFacts, facts: ProgramFacts, resolver: ApiResolver
) -> list[str]:
    arguments, problems = model_call_arguments(call)
    if call.func.attr.value in EXPORT_METHODS:
        return problems + _serving_input_problems(arguments.get("serving_input_receiver_fn"), estimator, facts, resolver)
    return problems + _input_fn_problems(arguments.get("input_fn"), estimator, facts, resolver)


def _serving_input_problems(
    receiver: cst.BaseExpression | None, estimator: EstimatorFacts, facts: ProgramFacts, resolver: ApiResolver
) -> list[str]:
    """Why an export's serving_input_receiver_fn= cannot be carried over; the calls to rewrite in it noted."""
    calls, problems = receiver_calls(receiver, facts.serving_inputs, facts.functions, resolver)
    if not calls and receiver is not None:  # a receiver built elsewhere (`input_data.build_serving_input_fn(opts)`):
        # the run-time tier's export calls it and checks it returns a (compat) ServingInputReceiver
        problems = [RunTimeChecked(problem) for problem in problems]
    estimator.export_api_calls.extend(calls)
    if isinstance(receiver, cst.Name) and len(facts.functions.get(receiver.value, [])) == 1:
        facts.receiver_functions.append(facts.functions[receiver.value][0])
    if calls and isinstance(receiver, cst.Name) and facts.name_uses[receiver.value] != 1 + _receiver_uses(
        receiver.value, facts
    ):
        problems.append(RunTimeChecked(f"serving input receiver `{receiver.value}` is also used other than by exports"))
    return problems


def _receiver_uses(name: str, facts: ProgramFacts) -> int:
    """How often `name` is an argument of an estimator's export call or of an EvalSpec's exporter."""
    exports = [c for e in facts.estimators.values() for c in e.model_calls if c.func.attr.value in EXPORT_METHODS]
    return sum(
        1
        for call in exports + facts.exporter_calls
        for argument in call.args
        if isinstance(argument.value, cst.Name) and argument.value.value == name
    )


def _eval_spec_exporters(facts: ProgramFacts) -> list[cst.BaseExpression]:
    """The exporters given to the EvalSpecs of train_and_evaluate calls (their receivers' uses)."""
    found = []
    for estimator in facts.estimators.values():
        for training in estimator.trainings:
            if training.eval_spec is not None:
                exporters = call_arguments(training.eval_spec, EVAL_SPEC_PARAMS)[0].get("exporters")
                found += exporter_elements(exporters, facts.exporter_variables) if exporters is not None else []
    return found


def _exporter_problems(
    exporters: cst.BaseExpression, estimator: EstimatorFacts, facts: ProgramFacts, resolver: ApiResolver
) -> list[str]:
    """Why an EvalSpec's exporters= cannot be carried over; the calls to rewrite noted (each exporter's
    receiver as an export's)."""
    variables = {name: value for name, value in facts.exporter_variables.items() if facts.name_uses[name] == 2}
    calls, receivers, problems = exporter_calls(exporters, variables, resolver)
    problems = [RunTimeChecked(problem) if problem == OTHER_EXPORTER else problem for problem in problems]
    estimator.export_api_calls.extend(calls)
    for receiver in receivers:
        problems += _serving_input_problems(receiver, estimator, facts, resolver)
    return problems


def train_and_evaluate_call(statement: cst.CSTNode, resolver: ApiResolver) -> cst.Call | None:
    """The `train_and_evaluate(...)` call of a statement that is only that call, or assigns its result."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    value = small.value if isinstance(small, cst.Expr | cst.Assign) else None
    if isinstance(value, cst.Call):
        api = resolver.call_api(value)
        if api is not None and api.is_one_of(*TRAIN_AND_EVALUATE_APIS):
            return value
    return None


def _train_and_evaluate_problems(
    training: Training, estimator: EstimatorFacts, facts: ProgramFacts, resolver: ApiResolver
) -> list[str]:
    train, problems = _spread_checked_at_run_time(*call_arguments(training.train_spec, TRAIN_SPEC_PARAMS))
    if "saving_listeners" in train:  # (passed through to train)
        problems.append(RunTimeChecked("TrainSpec(saving_listeners=...) are called by the run-time tier "
                                       "(compat.estimator_training), not by an inline training"))
        del train["saving_listeners"]
    train.setdefault("max_steps", cst.Name("None"))  # TrainSpec's default: train until stopped
    problems += _train_problems(train, estimator, facts, resolver)
    evaluation, eval_problems = _spread_checked_at_run_time(*call_arguments(training.eval_spec, EVAL_SPEC_PARAMS))
    # the run-time tier names the evaluation's directory, and runs a custom model_fn's evaluation hooks and, for
    # any estimator, the hooks acting on an input's session only (compat.estimator_training.session_only_hooks)
    problems += eval_problems + [
        RunTimeChecked(f"EvalSpec({key}=...) is not migrated yet") for key in ("name", "hooks") if key in evaluation
    ]
    if "exporters" in evaluation:
        problems += _exporter_problems(evaluation["exporters"], estimator, facts, resolver)
    return problems + _input_fn_problems(evaluation.get("input_fn"), estimator, facts, resolver)
