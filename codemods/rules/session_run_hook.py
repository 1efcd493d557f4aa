"""`SessionRunHook` subclasses -> `tf_keras.callbacks.Callback` subclasses, in both targets.

begin -> on_train_begin, before_run -> on_train_batch_begin, after_run -> on_train_batch_end,
end -> on_train_end; `run_context.request_stop()` -> `self.model.stop_training = True`, which both `fit`
and the migrated loop honour after the current step, as MonitoredSession did. The hook's own state
(counters set in begin(), constructor arguments) is kept as written. Hooks that fetch tensors
(SessionRunArgs, run_values) or use the session are left with a TODO.
"""

import libcst as cst

from codemods.api import dotted_name
from codemods.hook_facts import HOOK_BASE_APIS, HOOK_METHODS
from codemods.registry import Rule, register


def _params(keras_method: str) -> cst.Parameters:
    names = ["batch", "logs"] if "batch" in keras_method else ["logs"]
    params = [cst.Param(cst.Name("self"))]
    no_space = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
    for name in names:
        if name == "logs":
            params.append(cst.Param(cst.Name(name), default=cst.Name("None"), equal=no_space))
        else:
            params.append(cst.Param(cst.Name(name)))
    return cst.Parameters(params=params)


class _RequestStop(cst.CSTTransformer):
    """`<run_context>.request_stop()` as a statement -> `self.model.stop_training = True`."""

    def __init__(self, run_context: str):
        self.run_context = run_context

    def leave_SimpleStatementLine(self, original, updated):
        body = []
        for small in updated.body:
            call = small.value if isinstance(small, cst.Expr) else None
            if (
                isinstance(call, cst.Call)
                and isinstance(call.func, cst.Attribute)
                and isinstance(call.func.value, cst.Name)
                and call.func.value.value == self.run_context
                and call.func.attr.value == "request_stop"
            ):
                small = cst.parse_statement("self.model.stop_training = True").body[0]
            body.append(small)
        return updated.with_changes(body=body)


KEPT_HOOK_RUNS = (
    "kept as a SessionRunHook: it runs as it is with a model_fn kept as written (in its train(hooks=...), "
    "evaluate(hooks=...) or EstimatorSpec hooks: compat.wrapped_hooks runs it against the model_fn's graph); with "
    "a canned or class-migrated estimator it is one error when the program runs"
)
# The session-run API a kept hook class uses, which TensorFlow 2 has under tf.compat.v1.train only
_SESSION_RUN_NAMES = ("SessionRunHook", "SessionRunArgs", "SessionRunContext", "SessionRunValues")
_SESSION_RUN_APIS = {f"{namespace}.{name}" for namespace in ("train", "estimator") for name in _SESSION_RUN_NAMES}


class _Renamed(cst.CSTTransformer):
    """Attributes spelled as one of `names` (dotted) -> `names[spelling]`."""

    def __init__(self, names: dict[str, str]):
        self.names = names

    def leave_Attribute(self, original, updated):
        spelling = dotted_name(updated)
        return cst.parse_expression(self.names[spelling]) if spelling in self.names else updated


def _with_compat_v1_names(original: cst.ClassDef, updated: cst.ClassDef, ctx) -> cst.ClassDef:
    """A hook kept as a SessionRunHook, its `tf.train.SessionRunHook` / `tf.estimator.SessionRunArgs` (gone from
    TensorFlow 2's API, the estimator ones with TensorFlow 2.16) spelled `tf.compat.v1.train.*`, the same
    classes: the module imports and the hook runs wherever a TF1 session still does."""
    found = {}
    for node in _attributes(original):
        api = ctx.resolver.api(node)
        if api is not None and not api.v1 and api.path in _SESSION_RUN_APIS and dotted_name(node):
            found[dotted_name(node)] = api.path.rsplit(".", 1)[1]
    if not found:
        return updated
    tf = ctx.need_tensorflow()
    return updated.visit(_Renamed({spelling: f"{tf}.compat.v1.train.{name}" for spelling, name in found.items()}))


def _attributes(node: cst.CSTNode) -> list[cst.Attribute]:
    found = []

    class Collect(cst.CSTVisitor):
        def visit_Attribute(self, attribute):
            found.append(attribute)

    node.visit(Collect())
    return found


@register
class SessionRunHookRule(Rule):
    rule_id = "session-run-hook"
    node_types = (cst.ClassDef,)

    def leave(self, original: cst.ClassDef, updated: cst.ClassDef, ctx):
        hook = ctx.facts.hooks.get(original.name.value)
        if hook is None or hook.node is not original:
            return updated
        if hook.problems:
            for problem in hook.problems:
                ctx.todo(original, self.rule_id, problem, statement=original)
            ctx.todo(original, self.rule_id, KEPT_HOOK_RUNS, statement=original)
            return _with_compat_v1_names(original, updated, ctx)
        blocked = ctx.facts.hook_blocked_by(hook.name)
        if blocked:
            ctx.todo(
                original,
                self.rule_id,
                f"kept as a SessionRunHook: used by {', '.join(blocked)} (not migrated)",
                statement=original,
            )
            return _with_compat_v1_names(original, updated, ctx)

        bases = []
        for original_base, base in zip(original.bases, updated.bases):
            api = ctx.resolver.api(original_base.value)
            if api is not None and api.is_one_of(*HOOK_BASE_APIS):
                base = base.with_changes(value=cst.parse_expression("tf_keras.callbacks.Callback"))
            bases.append(base)
        ctx.need_import("tf_keras")
        body = [self._method(statement) for statement in updated.body.body]
        ctx.record(original, self.rule_id, True, f"SessionRunHook {hook.name} -> tf_keras.callbacks.Callback")
        return updated.with_changes(bases=bases, body=updated.body.with_changes(body=body))

    @staticmethod
    def _method(statement):
        if not isinstance(statement, cst.FunctionDef) or statement.name.value not in HOOK_METHODS:
            return statement
        keras_method, _ = HOOK_METHODS[statement.name.value]
        hook_params = [p.name.value for p in statement.params.params][1:]
        body = statement.body
        if statement.name.value in ("before_run", "after_run"):
            body = body.visit(_RequestStop(hook_params[0]))
        return statement.with_changes(name=cst.Name(keras_method), params=_params(keras_method), body=body)
