"""Which hooks can become tf_keras callbacks: SessionRunHook subclasses of the module (their methods and what
they use) and Estimator's built-in hooks that have a compat.estimator_hooks twin."""

from __future__ import annotations

import libcst as cst

from codemods.syntax import call_arguments, fast_visit, is_none
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
    for hook, callback in (("StopAtStepHook", "StopAtStep"), ("StepCounterHook", "StepCounter"))
}
_EARLY_STOPPING_REST = ("eval_dir", "min_steps", "run_every_secs", "run_every_steps")
BUILTIN_HOOK_PARAMS = {
    "StopAtStep": ("num_steps", "last_step"),
    "StepCounter": ("every_n_steps", "every_n_secs", "output_dir", "summary_writer"),
    "stop_if_no_decrease_hook": ("estimator", "metric_name", "max_steps_without_decrease", *_EARLY_STOPPING_REST),
    "stop_if_no_increase_hook": ("estimator", "metric_name", "max_steps_without_increase", *_EARLY_STOPPING_REST),
    "stop_if_higher_hook": ("estimator", "metric_name", "threshold", *_EARLY_STOPPING_REST),
    "stop_if_lower_hook": ("estimator", "metric_name", "threshold", *_EARLY_STOPPING_REST),
    "make_early_stopping_hook": ("estimator", "should_stop_fn", "run_every_secs", "run_every_steps"),
}
# The hooks given the estimator they stop; the callbacks are not (the metric hooks read its eval directory).
EARLY_STOPPING_HOOKS = [name for name in BUILTIN_HOOK_PARAMS if name not in ("StopAtStep", "StepCounter")]
METRIC_EARLY_STOPPING_HOOKS = [name for name in EARLY_STOPPING_HOOKS if name.startswith("stop_if_")]
BUILTIN_HOOKS.update({f"estimator.experimental.{name}": name for name in EARLY_STOPPING_HOOKS})


# Attributes a Keras callback is given by fit and the migrated loop (Callback.set_model, set_params): a hook's
# own attribute of that name would be replaced by them.
CALLBACK_ATTRIBUTES = {"model": "set_model", "params": "set_params"}


def analyze_hook(node: cst.ClassDef) -> list[str]:
    """Why a SessionRunHook subclass cannot become a Keras callback (empty when it can)."""
    problems = [
        f"sets self.{name}, which a Keras callback is given by fit (Callback.{CALLBACK_ATTRIBUTES[name]}): rename the "
        "hook's attribute, then migrate again"
        for name in _assigned_self_attributes(node) if name in CALLBACK_ATTRIBUTES
    ]
    for statement in node.body.body:
        if not isinstance(statement, cst.FunctionDef):
            continue
        name = statement.name.value
        if name == "after_create_session":
            problems.append("after_create_session(session, coord) has no Keras callback equivalent")
            continue
        if name not in HOOK_METHODS:
            continue
        params = [p.name.value for p in statement.params.params][1:]
        star = isinstance(statement.params.star_arg, cst.Param | cst.ParamStar)
        if len(params) != HOOK_METHODS[name][1] or star or statement.params.kwonly_params:
            problems.append(f"{name}() has an unexpected signature")
            continue
        problems.extend(_hook_parameter_uses(statement, name, params))
    return problems


def _hook_parameter_uses(method: cst.FunctionDef, name: str, params: list[str]) -> list[str]:
    """Uses of run_context/run_values/session that a callback cannot offer."""
    run_context = params[0] if name in ("before_run", "after_run") else None
    problems = []

    class Uses(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> bool:
            func = call.func
            is_request_stop = (
                run_context
                and isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value == run_context
                and func.attr.value == "request_stop"
                and not call.args
            )
            return not is_request_stop  # run_context.request_stop() -> self.model.stop_training = True

        def visit_Name(self, node: cst.Name) -> None:
            if node.value in params:
                problems.append(
                    f"{name}() uses `{node.value}` beyond request_stop(); "
                    "graph tensors, run_values and sessions do not exist in a Keras callback"
                )

        def visit_Return(self, node: cst.Return) -> None:
            if (
                name == "before_run"
                and node.value is not None
                and not (isinstance(node.value, cst.Name) and node.value.value == "None")
            ):
                problems.append(
                    "before_run() returns SessionRunArgs; fetch from `logs` in the callback instead"
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
    writer = arguments.get("summary_writer")
    if callback == "StepCounter" and writer is not None and not is_none(writer):
        problems.append("StepCounterHook(summary_writer=...) is not migrated: give output_dir= instead")
    if callback in EARLY_STOPPING_HOOKS:
        given = arguments.get("estimator")
        if not (isinstance(given, cst.Name) and given.value == trained):
            problems.append(f"{hook}(...) is given another estimator than the one it stops ({trained})")
    return problems


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


def _assigned_self_attributes(node: cst.ClassDef) -> list[str]:
    """The `self.<name>` attributes the class's methods assign, sorted."""
    names = set()

    class Targets(cst.CSTVisitor):
        def _add(self, target):
            if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
                names.add(target.attr.value)
            elif isinstance(target, cst.Tuple | cst.List):
                for element in target.elements:
                    self._add(element.value)

        def visit_AssignTarget(self, target: cst.AssignTarget) -> None:
            self._add(target.target)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            self._add(node.target)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            self._add(node.target)

    fast_visit(node.body, Targets())
    return sorted(names)
