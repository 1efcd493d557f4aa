"""Built-in hooks in a migrated `train(hooks=[...])` -> their `compat.estimator_hooks` callback, arguments by name.

`StopAtStepHook(num_steps | last_step)` -> `estimator_hooks.StopAtStep(num_steps | last_step)`;
`StepCounterHook(every_n_steps | every_n_secs, output_dir)` -> `estimator_hooks.StepCounter(...)`;
`tf.estimator.experimental.stop_if_no_decrease_hook(estimator, metric, N, ...)` (and `_no_increase_`,
`_higher_`, `_lower_`) -> `estimator_hooks.stop_if_no_decrease_hook(<eval_dir>, metric, N, ...)`, the estimator's
eval directory (model_dir/eval, where evaluations write) in place of the estimator;
`tf.estimator.experimental.make_early_stopping_hook(estimator, should_stop_fn, ...)` ->
`estimator_hooks.make_early_stopping_hook(should_stop_fn, ...)`. Inline in hooks= or through a variable. An
early-stopping hook built elsewhere (a helper given the estimator) -> `estimator_early_stopping.<the same
name>(<the same arguments>)` (compat.estimator_early_stopping: the estimator checked when the program runs), unless
its module keeps an estimator. Hooks of estimators that stay Estimators stay as they are; other built-in hooks get the
unsupported-api rule's TODO.
"""

import libcst as cst

from codemods.hook_facts import BUILTIN_HOOK_PARAMS, BUILTIN_HOOKS, METRIC_EARLY_STOPPING_HOOKS
from codemods.registry import Rule, register
from codemods.syntax import call_arguments, is_none
from codemods.templates import source


@register
class BuiltinHookRule(Rule):
    rule_id = "builtin-hook"
    node_types = (cst.Call,)

    def leave(self, original: cst.Call, updated: cst.Call, ctx):
        if ctx.facts.runtime.kind(original) == "early_stopping":  # built away from its train call
            name = ctx.resolver.call_api(original).path.rsplit(".", 1)[1]
            ctx.need_compat("estimator_early_stopping")
            ctx.record(original, self.rule_id, True, f"{name} -> compat.estimator_early_stopping.{name} (the same "
                       "parameters; its estimator checked when the program runs; a callback)")
            return updated.with_changes(func=cst.parse_expression(f"estimator_early_stopping.{name}"))
        if not ctx.facts.migrated_builtin_hook(original) and ctx.facts.runtime.kind(original) != "builtin_hook":
            return updated
        hook = ctx.resolver.call_api(original).path
        callback = BUILTIN_HOOKS[hook]
        arguments, _ = call_arguments(updated, BUILTIN_HOOK_PARAMS[callback])
        arguments.pop("estimator", None)  # an early-stopping hook: the callback stops its model
        if callback in METRIC_EARLY_STOPPING_HOOKS:  # and reads the estimator's eval directory
            named = call_arguments(original, BUILTIN_HOOK_PARAMS[callback])[0]["estimator"]
            estimator = ctx.facts.variable(ctx.facts.estimators, named)
            eval_dir = arguments.pop("eval_dir", None)
            ctx.need_import("os")
            if estimator.runtime:  # its model_dir is known when the program runs (codemods/runtime_tier.py)
                ctx.need_compat("estimator_training")
                model_dir = f"estimator_training.model_dir_of({estimator.variable})"
            else:
                model_dir = source(estimator.model_dir)
            arguments = {"eval_dir": cst.parse_expression(_eval_dir(eval_dir, model_dir)), **arguments}
        ctx.need_compat("estimator_hooks")
        ctx.record(original, self.rule_id, True, f"{hook.split('.')[-1]} -> compat.estimator_hooks.{callback} (a callback)")
        given = ", ".join(f"{key}={source(value)}" for key, value in arguments.items())
        return cst.parse_expression(f"estimator_hooks.{callback}({given})")


def _eval_dir(given: cst.BaseExpression | None, model_dir: str) -> str:
    """The early-stopping hook's eval directory: Estimator's hook read `estimator.eval_dir()` when `eval_dir` was
    None. A name or attribute is read twice to decide; another expression is passed as it is (the callback
    refuses a None)."""
    default = f'os.path.join({model_dir}, "eval")'
    if given is None or is_none(given):
        return default
    if isinstance(given, (cst.Name, cst.Attribute)):
        return f"{source(given)} if {source(given)} is not None else {default}"
    return source(given)
