"""Which hooks can become tf_keras callbacks: SessionRunHook subclasses of the module (their methods and what
they use) and Estimator's built-in hooks that have a compat.estimator_hooks twin."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from codemods.model_fns import GLOBAL_STEP_APIS
from codemods.syntax import call_arguments, fast_visit, is_none, nodes_of_types
from codemods.templates import source

HOOK_BASE_APIS = ("train.SessionRunHook", "estimator.SessionRunHook")

# SessionRunHook method -> (Keras callback method, number of hook parameters after self).
HOOK_METHODS = {
    "begin": ("on_train_begin", 0),
    "before_run": ("on_train_batch_begin", 1),
    "after_run": ("on_train_batch_end", 2),
    "end": ("on_train_end", 1),
}

# Built-in hooks given to train(hooks=[...]) that become a compat.estimator_hooks callback, and their parameters.
BUILTIN_HOOKS = {
    f"{namespace}.{hook}": callback
    for namespace in ("train", "estimator")
    for hook, callback in (("StopAtStepHook", "StopAtStep"), ("StepCounterHook", "StepCounter"), ("ProfilerHook", "Profiler"),
                           ("LoggingTensorHook", "LoggingTensorHook"))
}
# A canned estimator's: the hook's tensors are named in the Estimator's graph, and the global step is the one a
# canned model has. Another estimator's is carried over only when it names the global step alone, in literals (its
# model_fn made that tensor by that name too); otherwise it runs as it is, against its model_fn's graph.
CANNED_ONLY_HOOKS = ("LoggingTensorHook",)
_EARLY_STOPPING_REST = ("eval_dir", "min_steps", "run_every_secs", "run_every_steps")
BUILTIN_HOOK_PARAMS = {
    "StopAtStep": ("num_steps", "last_step"),
    "StepCounter": ("every_n_steps", "every_n_secs", "output_dir", "summary_writer"),
    "Profiler": ("save_steps", "save_secs", "output_dir", "show_dataflow", "show_memory"),
    "LoggingTensorHook": ("tensors", "every_n_iter", "every_n_secs", "at_end", "formatter"),
    "stop_if_no_decrease_hook": ("estimator", "metric_name", "max_steps_without_decrease", *_EARLY_STOPPING_REST),
    "stop_if_no_increase_hook": ("estimator", "metric_name", "max_steps_without_increase", *_EARLY_STOPPING_REST),
    "stop_if_higher_hook": ("estimator", "metric_name", "threshold", *_EARLY_STOPPING_REST),
    "stop_if_lower_hook": ("estimator", "metric_name", "threshold", *_EARLY_STOPPING_REST),
    "make_early_stopping_hook": ("estimator", "should_stop_fn", "run_every_secs", "run_every_steps"),
}
# The hooks given the estimator they stop; the callbacks are not (the metric hooks read its eval directory).
EARLY_STOPPING_HOOKS = [name for name in BUILTIN_HOOK_PARAMS if name.startswith(("stop_if_", "make_early_stopping"))]
METRIC_EARLY_STOPPING_HOOKS = [name for name in EARLY_STOPPING_HOOKS if name.startswith("stop_if_")]
# tf.contrib.estimator's were the same functions (TensorFlow 1.15 re-exported them)
BUILTIN_HOOKS.update({f"{namespace}.{name}": name for namespace in ("estimator.experimental", "contrib.estimator")
                      for name in EARLY_STOPPING_HOOKS})
# The early-stopping hooks' API paths: where they are built away from the train call they go to, they become
# compat.estimator_early_stopping's (the same signatures, the estimator checked when the program runs: codemods/runtime_tier.py)
EARLY_STOPPING_APIS = tuple(path for path, callback in BUILTIN_HOOKS.items() if callback in EARLY_STOPPING_HOOKS)


# Attributes a Keras callback is given by fit and the migrated loop (Callback.set_model, set_params): a hook
# keeping its own attribute of that name (recommenders' `self.model = estimator`) keeps it, and its callback takes
# Keras's under the other name (its set_model / set_params overridden; the migrated code reads that name).
CALLBACK_ATTRIBUTES = {"model": "set_model", "params": "set_params"}
KERAS_ATTRIBUTES = {"model": "keras_model", "params": "keras_params"}
SESSION_RUN_ARGS_APIS = ("train.SessionRunArgs", "estimator.SessionRunArgs")
# Where a converted hook keeps what its before_run fetched, for after_run's `run_values.results`
FETCHED_ATTRIBUTE = "_session_run_results"
# TF1's summary writers, which raise when made eagerly (as a callback runs) -> compat.estimator_hooks's, writing the
# same Summary protos with TensorFlow 2's writer; FileWriter's graph arguments have no eager meaning.
FILE_WRITERS = {"summary.FileWriterCache.get": "estimator_hooks.cached_file_writer",
                "summary.FileWriter": "estimator_hooks.FileWriter"}
_FILE_WRITER_PARAMS = ("logdir", "graph", "max_queue", "flush_secs", "graph_def", "filename_suffix", "session")


@dataclass(frozen=True)
class HookAnalysis:
    """Why a SessionRunHook subclass cannot become a Keras callback (empty when it can), and the attributes
    holding the global step (`self.<name> = get_global_step()` in begin) its before_run and end fetch."""

    problems: list[str]
    step_attributes: frozenset[str] = frozenset()
    # its before_run returns SessionRunArgs (of the step, or of nothing), or its fetches name the step themselves
    # (`SessionRunArgs(tf.train.get_global_step())`)
    fetches_step: bool = False
    own_attributes: frozenset[str] = frozenset()  # the CALLBACK_ATTRIBUTES it keeps for itself
    file_writers: frozenset[int] = frozenset()  # ids of its FILE_WRITERS calls
    # (hook method, parameter, "run_context" | "run_values") handed on whole to a method of the class (compare_gan's
    # EveryNSteps passes them to its subclasses' every_n_steps_after_run): the callback makes them
    # compat.estimator_hooks's SessionRunContext / SessionRunValues
    handed_on: frozenset[tuple[str, str, str]] = frozenset()


def subclasses_of(node: cst.ClassDef, module: cst.Module | None) -> list[cst.ClassDef]:
    """The module's classes deriving from `node` (by its name), directly or through one another."""
    if module is None:
        return []
    found, names = [], {node.name.value}
    classes = [c for c in nodes_of_types(module, (cst.ClassDef,)) if c is not node]
    changed = True
    while changed:
        changed = False
        for cls in classes:
            if cls not in found and any(isinstance(b.value, cst.Name) and b.value.value in names for b in cls.bases):
                found.append(cls)
                names.add(cls.name.value)
                changed = True
    return found


def _subclass_problems(subclasses: list[cst.ClassDef]) -> list[str]:
    """Why the hook's subclasses keep it a hook: they define hook methods of their own (the callback's would not
    call them) or set the attributes its callback uses."""
    problems = []
    for cls in subclasses:
        defined = {s.name.value for s in cls.body.body if isinstance(s, cst.FunctionDef)}
        hook_methods = sorted(defined & {*HOOK_METHODS, "after_create_session"})
        if hook_methods:
            problems.append(f"its subclass {cls.name.value} defines {', '.join(hook_methods)}")
        used_by_callback = {*CALLBACK_ATTRIBUTES, *KERAS_ATTRIBUTES.values(), FETCHED_ATTRIBUTE}
        assigned = set(_assigned_self_attributes(cls)) & used_by_callback
        if assigned:
            problems.append(f"its subclass {cls.name.value} sets self.{', self.'.join(sorted(assigned))}")
    return problems


def analyze_hook(node: cst.ClassDef, resolver, module: cst.Module | None = None) -> HookAnalysis:
    """Whether a SessionRunHook subclass can become a Keras callback (see HookAnalysis); `module`: where its
    subclasses are."""
    subclasses = subclasses_of(node, module)
    assigned = _assigned_self_attributes(node)
    own = frozenset(name for name in assigned if name in CALLBACK_ATTRIBUTES)
    problems = [
        f"sets self.{name} and self.{KERAS_ATTRIBUTES[name]}: its callback would keep Keras's "
        f"Callback.{CALLBACK_ATTRIBUTES[name]} argument in the second; rename it, then migrate again"
        for name in sorted(own) if KERAS_ATTRIBUTES[name] in assigned
    ]
    if FETCHED_ATTRIBUTE in assigned:
        problems.append(f"sets self.{FETCHED_ATTRIBUTE}, the attribute its callback would keep its fetches in")
    writers = [call for call in nodes_of_types(node, (cst.Call,))
               if (api := resolver.call_api(call)) is not None and api.path in FILE_WRITERS]
    problems += _file_writer_problems(writers)
    problems += _subclass_problems(subclasses)
    steps = _global_step_attributes(node, assigned, resolver)
    reader = _StepFetches(steps, resolver)
    reader.methods = _methods_by_name([node, *subclasses])
    for statement in node.body.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == "before_run":
            reader.locals = fetch_locals(statement)
            reader.before_run_fetches = reader.returns_steps(statement)
    for statement in node.body.body:
        if not isinstance(statement, cst.FunctionDef):
            continue
        name = statement.name.value
        if name == "after_create_session":
            problems.extend(_after_create_session_problems(statement, node))
            continue
        if name not in HOOK_METHODS:
            continue
        params = [p.name.value for p in statement.params.params][1:]
        star = isinstance(statement.params.star_arg, cst.Param | cst.ParamStar)
        if len(params) != HOOK_METHODS[name][1] or star or statement.params.kwonly_params:
            problems.append(f"{name}() has an unexpected signature")
            continue
        problems.extend(_hook_parameter_uses(statement, name, params, reader))
    if problems:  # kept as a hook already: how it uses the global step does not matter
        return HookAnalysis(problems)
    problems = reader.other_step_uses(node)
    if problems:
        return HookAnalysis(problems)
    return HookAnalysis(problems, frozenset(steps), reader.step_calls_fetched or reader.before_run_fetches, own,
                        frozenset(map(id, writers)), frozenset(reader.handed_on))


def _methods_by_name(classes: list[cst.ClassDef]) -> dict[str, list[cst.FunctionDef]]:
    methods: dict[str, list[cst.FunctionDef]] = {}
    for cls in classes:
        for statement in cls.body.body:
            if isinstance(statement, cst.FunctionDef):
                methods.setdefault(statement.name.value, []).append(statement)
    return methods


# What a method given run_context / run_values whole may do with them: SessionRunContext / SessionRunValues
# (compat.estimator_hooks) carry these over to a callback
HANDED_ON_USES = {"run_context": ("request_stop", "stop_requested"), "run_values": ("results",)}


def _handed_on_problem(definitions: list[cst.FunctionDef], call: cst.Call, index: int, role: str) -> str | None:
    """Why the method `call` calls cannot be given a hook's `role` parameter (its `index`th argument): every
    definition's parameter there is only used by HANDED_ON_USES, tested for None or unused."""
    for definition in definitions:
        params = definition.params.params[1:]  # (self)
        arg = call.args[index]
        if arg.keyword is not None:
            param = next((p.name.value for p in [*params, *definition.params.kwonly_params]
                          if p.name.value == arg.keyword.value), None)
        else:
            param = params[index].name.value if index < len(params) else None
        if param is None:
            return f"{definition.name.value}() takes `{role}` in a way the rewrite does not follow"
        found = nodes_of_types(definition.body, (cst.Attribute, cst.Comparison, cst.Name))
        uses = {id(n) for n in found if type(n) is cst.Name and n.value == param}
        allowed = {id(a.value) for a in found
                   if type(a) is cst.Attribute and id(a.value) in uses and a.attr.value in HANDED_ON_USES[role]}
        allowed |= {id(c.left) for c in found if type(c) is cst.Comparison and id(c.left) in uses
                    and len(c.comparisons) == 1 and is_none(c.comparisons[0].comparator)}
        others = uses - allowed
        if others:
            return (f"{definition.name.value}() uses `{param}` (the hook's {role}) beyond "
                    f"{', '.join(HANDED_ON_USES[role])}: a Keras callback has no session or graph")
    return None


def _file_writer_problems(writers: list[cst.Call]) -> list[str]:
    problems = []
    for call in writers:
        arguments, unknown = call_arguments(call, _FILE_WRITER_PARAMS)
        problems += unknown + [f"FileWriter({key}=...): a callback runs eagerly, with no graph or session to write"
                               for key in ("graph", "graph_def", "session")
                               if key in arguments and not is_none(arguments[key])]
    return problems


def _after_create_session_problems(method: cst.FunctionDef, hook: cst.ClassDef) -> list[str]:
    """Why after_create_session() cannot run at the end of the callback's on_train_begin (where MonitoredSession
    called it: after begin(), the session made and the checkpoint restored): it uses its session or coordinator,
    or it or begin() returns early (its body is appended to begin's)."""
    params = [p.name.value for p in method.params.params][1:]
    if len(params) != 2 or isinstance(method.params.star_arg, cst.Param | cst.ParamStar) or method.params.kwonly_params:
        return ["after_create_session() has an unexpected signature"]
    uses = []

    class Uses(cst.CSTVisitor):
        def visit_Del(self, node: cst.Del) -> bool:
            return not (isinstance(node.target, cst.Name) and node.target.value in params)  # dropped

        def visit_Name(self, node: cst.Name) -> None:
            if node.value in params:
                uses.append(node.value)

    method.body.visit(Uses())
    if uses:
        return [f"after_create_session() uses `{uses[0]}`: a Keras callback has no session or coordinator"]
    begin = [s for s in hook.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "begin"]
    if any(nodes_of_types(function.body, (cst.Return,)) for function in [method, *begin]):
        return ["after_create_session() or begin() returns early: after_create_session's body would run at the end of "
                "on_train_begin"]
    return []


def _global_step_attributes(node: cst.ClassDef, assigned: dict, resolver) -> set[str]:
    """`self.<name>` set to `get_global_step()` / `get_or_create_global_step()` in begin() (and otherwise only
    to None): a graph tensor in TF1, the step counter (`model.optimizer.iterations`) in a callback."""
    found = set()
    for name, values in assigned.items():
        steps = [(method, value) for method, value in values if _is_step_call(value, resolver)]
        others = [value for _, value in values if not _is_step_call(value, resolver)]
        if steps and all(method == "begin" for method, _ in steps) and all(is_none(value) for value in others):
            found.add(name)
    return found


def _is_step_call(value, resolver) -> bool:
    api = resolver.call_api(value) if isinstance(value, cst.Call) and not value.args else None
    return api is not None and api.path in GLOBAL_STEP_APIS


def _self_attribute(node) -> str | None:
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return node.attr.value
    return None


def _step_fetch(node, steps, resolver) -> bool:
    """Whether `node` fetches only the global step: `self.<step>`, `get_global_step()` itself (in TF1 the graph's
    step tensor, made already), or a dict/list/tuple of such."""
    if _self_attribute(node) is not None:
        return _self_attribute(node) in steps
    if isinstance(node, cst.Call):
        return _is_step_call(node, resolver)
    if isinstance(node, cst.Dict):
        return bool(node.elements) and all(
            isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
            and _step_fetch(e.value, steps, resolver) for e in node.elements
        )
    if isinstance(node, cst.List | cst.Tuple):  # ([] fetches nothing: run_values.results is [])
        return all(isinstance(e, cst.Element) and _step_fetch(e.value, steps, resolver) for e in node.elements)
    return False


def fetch_locals(before_run: cst.FunctionDef) -> dict[str, cst.BaseExpression]:
    """before_run's local names assigned once (`requests = {"global_step": self._step}`) and otherwise only given
    to `SessionRunArgs(<name>)` as its fetches: name -> the value assigned."""
    assigned: dict[str, list] = {}
    uses: dict[str, int] = {}
    given: dict[str, int] = {}

    class Collect(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    assigned.setdefault(target.target.value, []).append(node.value if len(node.targets) == 1 else None)

        def visit_Call(self, node: cst.Call) -> None:
            if len(node.args) == 1 and isinstance(node.args[0].value, cst.Name):
                name = node.args[0].value.value
                func = node.func.attr if isinstance(node.func, cst.Attribute) else node.func
                given[name] = given.get(name, 0) + (isinstance(func, cst.Name) and func.value == "SessionRunArgs")

        def visit_Name(self, node: cst.Name) -> None:
            uses[node.value] = uses.get(node.value, 0) + 1

    fast_visit(before_run.body, Collect())
    return {name: values[0] for name, values in assigned.items()
            if len(values) == 1 and values[0] is not None and given.get(name) and uses[name] == 1 + given[name]}


def session_run_args_fetches(call: cst.Call) -> cst.BaseExpression | None:
    """The fetches of `SessionRunArgs(fetches)` (positional or `fetches=`), when it is given nothing else but
    options that only make an out-of-memory error say more (`options=RunOptions(report_tensor_allocations_upon_oom=
    True)`, efficientdet's OomReportingHook: the same computation without them)."""
    args = list(call.args)
    if len(args) == 2 and args[1].keyword is not None and args[1].keyword.value == "options" \
            and _reports_oom_only(args[1].value):
        args.pop()
    if len(args) != 1 or args[0].star or (args[0].keyword and args[0].keyword.value != "fetches"):
        return None
    return args[0].value


def _reports_oom_only(options: cst.BaseExpression) -> bool:
    return isinstance(options, cst.Call) and isinstance(options.func, cst.Attribute | cst.Name) \
        and source(options.func).split(".")[-1] == "RunOptions" and len(options.args) == 1 \
        and options.args[0].keyword is not None \
        and options.args[0].keyword.value == "report_tensor_allocations_upon_oom"


class _StepFetches:
    """Where a hook's global-step attributes are fetched (a before_run's SessionRunArgs, end()'s session.run):
    the uses a callback carries over. Any other use of them is a problem (in a callback they are a variable)."""

    def __init__(self, steps: set[str], resolver):
        self.steps, self.resolver = steps, resolver
        self.fetching: set[int] = set()  # ids of the self.<step> nodes inside carried-over fetches
        self.before_run_fetches = False  # before_run returns SessionRunArgs of the global step
        self.locals: dict[str, cst.BaseExpression] = {}  # before_run's fetch_locals
        self.methods: dict[str, list[cst.FunctionDef]] = {}  # the hook's and its subclasses' methods, by name
        self.handed_on: set[tuple[str, str, str]] = set()  # HookAnalysis.handed_on
        self.step_calls_fetched = False  # some fetch calls get_global_step() itself

    def fetches(self, node) -> bool:
        """Whether `node` fetches only the global step; its attributes are then carried-over uses."""
        if not _step_fetch(node, self.steps, self.resolver):
            return False
        for found in _attributes_in(node):
            self.fetching.add(id(found))
        self.step_calls_fetched |= bool(nodes_of_types(node, (cst.Call,)))
        return True

    def session_run_args(self, value) -> bool:
        """Whether `value` is `SessionRunArgs(<global step fetches>)`."""
        api = self.resolver.call_api(value) if isinstance(value, cst.Call) else None
        fetches = session_run_args_fetches(value) if api is not None and api.path in SESSION_RUN_ARGS_APIS else None
        if isinstance(fetches, cst.Name) and fetches.value in self.locals:
            fetches = self.locals[fetches.value]
        return fetches is not None and self.fetches(fetches)

    def returns_steps(self, before_run: cst.FunctionDef) -> bool:
        """Whether before_run returns SessionRunArgs of the global step (and otherwise only None)."""
        values = [node.value for node in nodes_of_types(before_run.body, (cst.Return,))]
        fetching = [value for value in values if value is not None and not is_none(value)]
        return bool(fetching) and all(self.session_run_args(value) for value in fetching)

    def other_step_uses(self, node: cst.ClassDef) -> list[str]:
        problems, plain = set(), _plain_uses(node)
        for attribute in _attributes_in(node):
            name = _self_attribute(attribute)
            if name in self.steps and id(attribute) not in self.fetching and id(attribute) not in plain:
                problems.add(
                    f"uses the global step `self.{name}` other than by fetching it (before_run, end) or testing it "
                    "for None: a graph tensor in TF1, the step counter in a Keras callback"
                )
        return sorted(problems)


def _attributes_in(node) -> list[cst.Attribute]:
    found = []

    class Collect(cst.CSTVisitor):
        def visit_Attribute(self, attribute: cst.Attribute) -> None:
            if _self_attribute(attribute) is not None:
                found.append(attribute)

    fast_visit(node, Collect())
    return found


def _plain_uses(node: cst.ClassDef) -> set[int]:
    """ids of `self.<name>` nodes assigned to, or compared with `is None` / `is not None`."""
    found = set()

    class Collect(cst.CSTVisitor):
        def visit_AssignTarget(self, target: cst.AssignTarget) -> None:
            found.add(id(target.target))

        def visit_Comparison(self, comparison: cst.Comparison) -> None:
            if len(comparison.comparisons) == 1 and is_none(comparison.comparisons[0].comparator) and isinstance(
                comparison.comparisons[0].operator, cst.Is | cst.IsNot
            ):
                found.add(id(comparison.left))

    fast_visit(node, Collect())
    return found


def _is_run_context_session(func, run_context: str | None) -> bool:
    """`func` is `<run_context>.session.<method>` (after_run's session: the train op has run)."""
    return run_context is not None and isinstance(func, cst.Attribute) and isinstance(func.value, cst.Attribute) \
        and func.value.attr.value == "session" and isinstance(func.value.value, cst.Name) \
        and func.value.value.value == run_context


def _hook_parameter_uses(method: cst.FunctionDef, name: str, params: list[str], steps: _StepFetches) -> list[str]:
    """Uses of run_context/run_values/session that a callback cannot offer. Carried over: run_context.request_stop(),
    `del <parameter>`, and with global-step attributes, before_run's `return SessionRunArgs(<them>)`, after_run's
    `run_values.results` and `run_context.session.run(<them>)`, and end()'s `session.run(<them>)`."""
    run_context = params[0] if name in ("before_run", "after_run") else None
    roles = {params[0]: "run_context", **({params[1]: "run_values"} if name == "after_run" else {})} if run_context else {}
    problems, handed_on = [], set()

    class Uses(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> bool:
            func = call.func
            receiver = func.value.value if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) else None
            if receiver == "self" and func.attr.value in steps.methods:
                for index, arg in enumerate(call.args):
                    if isinstance(arg.value, cst.Name) and arg.value.value in roles and not arg.star:
                        problem = _handed_on_problem(steps.methods[func.attr.value], call, index, roles[arg.value.value])
                        handed_on.add(id(arg.value))  # (said by `problem` when it cannot be)
                        if problem:
                            problems.append(problem)
                        else:
                            steps.handed_on.add((name, arg.value.value, roles[arg.value.value]))
            if run_context and receiver == run_context and func.attr.value == "request_stop" and not call.args:
                return False  # -> self.model.stop_training = True
            session_run = (name == "end" and receiver == params[0] or _is_run_context_session(func, run_context)) \
                and func.attr.value == "run" and len(call.args) == 1 and not call.args[0].keyword \
                and steps.fetches(call.args[0].value)
            return not session_run  # -> estimator_hooks.fetched(...)

        def visit_Del(self, node: cst.Del) -> bool:
            return not (isinstance(node.target, cst.Name) and node.target.value in params)  # dropped

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            # -> self._session_run_results, which the callback's before_run filled
            return not (name == "after_run" and isinstance(node.value, cst.Name) and node.value.value == params[1]
                        and node.attr.value == "results" and steps.before_run_fetches)

        def visit_Name(self, node: cst.Name) -> None:
            if node.value in params and id(node) not in handed_on:
                problems.append(
                    f"{name}() uses `{node.value}` beyond request_stop(); "
                    "graph tensors, run_values and sessions do not exist in a Keras callback"
                )

        def visit_Return(self, node: cst.Return) -> None:
            if name == "before_run" and node.value is not None and not is_none(node.value) \
                    and not steps.session_run_args(node.value):
                problems.append(
                    "before_run() returns SessionRunArgs of more than the global step; fetch from `logs` in the "
                    "callback instead"
                )

    fast_visit(method.body, Uses())
    return sorted(set(problems))


def builtin_hook_problems(call: cst.Call, path: str, trained: str) -> list[str]:
    """Why a built-in hook call cannot become its compat.estimator_hooks callback (empty when it can)."""
    callback, hook = BUILTIN_HOOKS[path], path.split(".")[-1]
    arguments, problems = call_arguments(call, BUILTIN_HOOK_PARAMS[callback])
    unknown = [key for key in arguments if key not in BUILTIN_HOOK_PARAMS[callback]]
    problems += [f"{hook}({key}=...) is not migrated" for key in unknown]
    if callback == "StopAtStep" and len([k for k in arguments if not is_none(arguments[k])]) != 1:
        problems.append("StopAtStepHook needs exactly one of num_steps and last_step")
    if callback == "LoggingTensorHook":
        problems += _logged_tensor_problems(arguments.get("tensors"))
    if callback == "Profiler" and len([k for k in ("save_steps", "save_secs") if k in arguments and not is_none(arguments[k])]) != 1:
        problems.append("ProfilerHook needs exactly one of save_steps and save_secs")
    writer = arguments.get("summary_writer")
    if callback == "StepCounter" and writer is not None and not is_none(writer):
        problems.append("StepCounterHook(summary_writer=...) is not migrated: give output_dir= instead")
    if callback in EARLY_STOPPING_HOOKS:
        given = arguments.get("estimator")
        if not (isinstance(given, cst.Name) and given.value == trained):
            problems.append(f"{hook}(...) is given another estimator than the one it stops ({trained})")
    return problems


# compat.estimator_hooks.GLOBAL_STEP_NAMES (the rewrite does not import the runtime, which imports TensorFlow)
GLOBAL_STEP_NAMES = ("global_step", "global_step:0", "global_step/read:0", "global_step/Read/ReadVariableOp:0")


def logs_only_the_step(call: cst.Call) -> bool:
    """Whether a LoggingTensorHook call's tensors are written out as names of the global step only."""
    arguments, problems = call_arguments(call, BUILTIN_HOOK_PARAMS["LoggingTensorHook"])
    names = _logged_names(arguments.get("tensors"))
    return not problems and bool(names) and all(
        isinstance(name, cst.SimpleString) and name.evaluated_value in GLOBAL_STEP_NAMES for name in names
    )


def _logged_names(tensors: cst.BaseExpression | None) -> list[cst.BaseExpression] | None:
    """The tensors a LoggingTensorHook is given, as written in a dict's values or a list; None otherwise."""
    if isinstance(tensors, cst.Dict):
        return [element.value for element in tensors.elements if isinstance(element, cst.DictElement)]
    if isinstance(tensors, cst.List | cst.Tuple):
        return [element.value for element in tensors.elements]
    return None


def _logged_tensor_problems(tensors: cst.BaseExpression | None) -> list[str]:
    """Why a LoggingTensorHook's tensors, written as literals, are not the global step a migrated canned model has
    (names written otherwise are checked when the program runs: compat.estimator_hooks.LoggingTensorHook)."""
    names = _logged_names(tensors)
    if names is None:
        return []
    other = [name.evaluated_value for name in names if isinstance(name, cst.SimpleString)
             and name.evaluated_value not in GLOBAL_STEP_NAMES]
    return [f"LoggingTensorHook logs {', '.join(map(repr, other))}, tensors of the Estimator's graph, which a migrated "
            "canned model does not have (only the global step carries over): log from a tf_keras callback's "
            "on_train_batch_end(batch, logs)"] if other else []


# A CheckpointSaverHook in hooks= replaced the Estimator's own saver (estimator.py, _train_with_estimator_spec):
# saving to model_dir, it only changes the cadence, which the migrated training then takes from it.
SAVER_HOOKS = ("train.CheckpointSaverHook", "estimator.CheckpointSaverHook")
SAVER_HOOK_PARAMS = (
    "checkpoint_dir", "save_secs", "save_steps", "saver", "checkpoint_basename", "scaffold", "listeners",
    "save_graph_def",
)


def saver_hook_cadence(call: cst.Call, model_dir: cst.BaseExpression | None) -> tuple[str, cst.BaseExpression] | list[str]:
    """("steps" | "secs", value) a CheckpointSaverHook saves at, or why it cannot become the migrated cadence."""
    arguments, problems = call_arguments(call, SAVER_HOOK_PARAMS)
    problems += [
        f"CheckpointSaverHook({key}=...) is not migrated (a saver of its own)"
        for key in ("saver", "checkpoint_basename", "scaffold", "listeners")
        if key in arguments and not is_none(arguments[key])
    ]
    directory = arguments.get("checkpoint_dir")
    if directory is None or model_dir is None or source(directory) != source(model_dir):
        problems.append(
            "CheckpointSaverHook saves elsewhere than the estimator's model_dir (the same expression): give that "
            "directory a tf.train.CheckpointManager of its own"
        )
    cadences = [(kind, arguments[f"save_{kind}"]) for kind in ("steps", "secs")
                if f"save_{kind}" in arguments and not is_none(arguments[f"save_{kind}"])]
    if len(cadences) != 1:
        problems.append("CheckpointSaverHook needs exactly one of save_secs and save_steps")
    return problems or cadences[0]


def _assigned_self_attributes(node: cst.ClassDef) -> dict[str, list[tuple[str, cst.BaseExpression | None]]]:
    """The `self.<name>` attributes the class's methods assign: name -> [(method, value assigned)]; the value is
    None for augmented, annotated-only and unpacking assignments."""
    names: dict[str, list] = {}

    class Targets(cst.CSTVisitor):
        def __init__(self, method: str):
            self.method = method

        def _add(self, target, value):
            if _self_attribute(target) is not None:
                names.setdefault(_self_attribute(target), []).append((self.method, value))
            elif isinstance(target, cst.Tuple | cst.List):
                for element in target.elements:
                    self._add(element.value, None)

        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                self._add(target.target, node.value)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            self._add(node.target, None)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            self._add(node.target, node.value)

    for statement in node.body.body:
        if isinstance(statement, cst.FunctionDef):
            fast_visit(statement.body, Targets(statement.name.value))
    return names
