"""`SessionRunHook` subclasses -> `tf_keras.callbacks.Callback` subclasses, in both targets.

begin -> on_train_begin, before_run -> on_train_batch_begin, after_run -> on_train_batch_end,
end -> on_train_end; `run_context.request_stop()` -> `self.model.stop_training = True`, which both `fit`
and the migrated loop honour after the current step, as MonitoredSession did. The hook's own state
(counters set in begin(), constructor arguments) is kept as written.

A hook fetching the global step (`self.step = get_global_step()` in begin, `return SessionRunArgs(self.step)`
or a dict/list of such, `run_values.results` in after_run, `session.run(self.step)` in end) keeps doing so:
the attribute holds `self.model.optimizer.iterations` (the step counter both targets train with), before_run
keeps its value in `self._session_run_results` (`compat.estimator_hooks.fetched`), and after_run reads it there.
The value is the one the program's TensorFlow gave: in a program written for TensorFlow 1.x (codemods/tf_era.py)
the step after the step (a ref variable's fetch returned its buffer, which the step's increment had updated:
1, 2, 3, ... in every run, measured with TF 2.15 in TF1 behaviour), otherwise the step before it (a resource
variable's read raced the increment: measured in TF 2.15, 0, 1, 2, ... in most runs, 0, 2, 2, 3, ... in some);
end() saw the step after the last. Hooks fetching other tensors or using the session otherwise are left with a
TODO.

A hook keeping its own `self.model` / `self.params` keeps them: its callback's set_model / set_params keep Keras's
as `self.keras_model` / `self.keras_params`, which the code above then reads. A hook handing run_context /
run_values on to a method of its own (and of its module's subclasses, converted with it) gets
compat.estimator_hooks's SessionRunContext / SessionRunValues made first in that callback method. TF1's summary
FileWriter / FileWriterCache in such a hook become compat.estimator_hooks's (CallbackFileWritersRule).
"""

import libcst as cst

from codemods.hook_facts import (
    CALLBACK_ATTRIBUTES,
    FETCHED_ATTRIBUTE,
    FILE_WRITERS,
    HOOK_BASE_APIS,
    HOOK_METHODS,
    KERAS_ATTRIBUTES,
    session_run_args_fetches,
)
from codemods.registry import Rule, register
from codemods.syntax import is_none
from codemods.templates import source


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
    """`<run_context>.request_stop()` as a statement -> `self.model.stop_training = True` (`keras_model`: where the
    callback keeps Keras's model)."""

    def __init__(self, run_context: str, keras_model: str):
        self.run_context, self.keras_model = run_context, keras_model

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
                small = cst.parse_statement(f"{self.keras_model}.stop_training = True").body[0]
            body.append(small)
        return updated.with_changes(body=body)


KEPT_HOOK_RUNS = (
    "kept as a SessionRunHook: it runs as it is with a model_fn kept as written (in its train(hooks=...), "
    "evaluate(hooks=...) or EstimatorSpec hooks: compat.wrapped_hooks runs it against the model_fn's graph) and in "
    "a MonitoredSession of TF1 graph code kept as written; with a canned or class-migrated estimator it is one "
    "error when the program runs"
)
KEPT_SESSION_HOOK_RUNS = (
    "kept as a SessionRunHook: it runs as it is with a model_fn kept as written (compat.wrapped_hooks) and in a "
    "MonitoredSession of TF1 graph code kept as written; with a canned or class-migrated estimator, having no "
    "before_run or after_run, it runs on the input's graph and session when the input_fn is read as a TF1 graph "
    "(placeholders, an iterator's get_next(): compat.graph_input), and is one error when the program runs otherwise"
)


def _acts_on_sessions_only(hook: cst.ClassDef, ctx) -> bool:
    """The class derives from SessionRunHook alone and defines neither before_run nor after_run."""
    bases = [ctx.resolver.api(base.value) for base in hook.bases]
    defined = {statement.name.value for statement in hook.body.body if isinstance(statement, cst.FunctionDef)}
    return len(bases) == 1 and bases[0] is not None and bases[0].is_one_of(*HOOK_BASE_APIS) \
        and not defined & {"before_run", "after_run"}


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
            kept = KEPT_SESSION_HOOK_RUNS if _acts_on_sessions_only(original, ctx) else KEPT_HOOK_RUNS
            ctx.todo(original, self.rule_id, kept, statement=original)
            return updated  # its tf.train / tf.estimator names: rules/session_run_names.py
        blocked = ctx.facts.hook_blocked_by(hook.name)
        if blocked:
            ctx.todo(
                original,
                self.rule_id,
                f"kept as a SessionRunHook: used by {', '.join(blocked)} (not migrated)",
                statement=original,
            )
            return updated  # its tf.train / tf.estimator names: rules/session_run_names.py

        bases = []
        for original_base, base in zip(original.bases, updated.bases):
            api = ctx.resolver.api(original_base.value)
            if api is not None and api.is_one_of(*HOOK_BASE_APIS):
                base = base.with_changes(value=cst.parse_expression("tf_keras.callbacks.Callback"))
            bases.append(base)
        ctx.need_import("tf_keras")
        fetches_step = bool(hook.step_attributes) or hook.fetches_step
        if fetches_step or hook.handed_on:
            ctx.need_compat("estimator_hooks")
        keras_model = f"self.{KERAS_ATTRIBUTES['model']}" if "model" in hook.own_attributes else "self.model"
        fetched = f"self.{FETCHED_ATTRIBUTE}" if fetches_step and any(
            isinstance(s, cst.FunctionDef) and s.name.value == "before_run" for s in original.body.body) else "None"
        body = [self._method(statement, hook.step_attributes, fetches_step, ctx.resolver.tf1_program, keras_model)
                for statement in _after_create_session_in_begin(updated.body.body)]
        body = [_with_handed_on(statement, hook.handed_on, keras_model, fetched) for statement in body]
        body += [_keeping_keras_attribute(name) for name in sorted(hook.own_attributes)]
        returned = (" (a function of the module returns it: give it to a migrated estimator's train(hooks=...); TF1 "
                    "graph code's MonitoredSession takes SessionRunHooks only)") if hook.name in ctx.facts.hooks_returned else ""
        ctx.record(original, self.rule_id, True, f"SessionRunHook {hook.name} -> tf_keras.callbacks.Callback{returned}")
        return updated.with_changes(bases=bases, body=updated.body.with_changes(body=body))

    @staticmethod
    def _method(statement, steps: frozenset[str], fetches_step: bool, tf1_program: bool, keras_model: str):
        if not isinstance(statement, cst.FunctionDef) or statement.name.value not in HOOK_METHODS:
            return statement
        keras_method, _ = HOOK_METHODS[statement.name.value]
        hook_params = [p.name.value for p in statement.params.params][1:]
        body = statement.body.visit(_WithoutParameterDeletes(hook_params))
        if statement.name.value in ("before_run", "after_run"):
            body = body.visit(_RequestStop(hook_params[0], keras_model))
        if fetches_step:
            body = body.visit(_GlobalStepFetches(statement.name.value, hook_params, steps, tf1_program, keras_model))
            if statement.name.value == "before_run":
                body = _fetches_kept_on_every_path(body)
        return statement.with_changes(name=cst.Name(keras_method), params=_params(keras_method), body=body)


def _with_handed_on(statement, handed_on: frozenset[tuple[str, str, str]], keras_model: str, fetched: str):
    """A callback method whose hook method handed its run_context / run_values on to a method of the class
    (hook_facts.HANDED_ON_USES): they are made first, as compat.estimator_hooks's SessionRunContext and
    SessionRunValues."""
    if not isinstance(statement, cst.FunctionDef):
        return statement
    hook_method = next((hook for hook, (keras, _) in HOOK_METHODS.items() if keras == statement.name.value), None)
    made = []
    for method, param, role in sorted(handed_on):
        if method != hook_method:
            continue
        value = f"estimator_hooks.SessionRunContext({keras_model})" if role == "run_context" \
            else f"estimator_hooks.SessionRunValues({fetched})"
        made.append(cst.parse_statement(f"{param} = {value}"))
    if not made:
        return statement
    body = list(statement.body.body)
    start = 1 if body and _is_docstring(body[0]) else 0
    return statement.with_changes(body=statement.body.with_changes(body=[*body[:start], *made, *body[start:]]))


def _keeping_keras_attribute(name: str) -> cst.FunctionDef:
    """`set_model` / `set_params` of a callback whose hook keeps `self.model` / `self.params` for itself: Keras's
    argument goes to the other attribute (hook_facts.KERAS_ATTRIBUTES)."""
    setter, argument = CALLBACK_ATTRIBUTES[name], name
    return cst.parse_statement(
        f"def {setter}(self, {argument}):\n"
        f"    # self.{name} is the hook's own; fit gives Keras's {argument} here\n"
        f"    self.{KERAS_ATTRIBUTES[name]} = {argument}\n"
    ).with_changes(leading_lines=[cst.EmptyLine(indent=False)])


def _after_create_session_in_begin(statements) -> list:
    """The class body with after_create_session's statements (hook_facts checked they use neither the session nor
    the coordinator) at the end of begin, where MonitoredSession called it next (the session made, the checkpoint
    restored: as on_train_begin runs); without a begin, after_create_session is the begin."""
    statements = list(statements)
    after = next((s for s in statements if isinstance(s, cst.FunctionDef) and s.name.value == "after_create_session"),
                 None)
    if after is None:
        return statements
    params = [p.name.value for p in after.params.params][1:]
    moved = after.body.visit(_WithoutParameterDeletes(params))
    only_self = after.params.with_changes(params=after.params.params[:1])
    begin = next((s for s in statements if isinstance(s, cst.FunctionDef) and s.name.value == "begin"), None)
    if begin is None:
        return [after.with_changes(name=cst.Name("begin"), params=only_self, body=moved) if s is after else s
                for s in statements]
    body = [s for s in moved.body if not _is_docstring(s)] if isinstance(moved, cst.IndentedBlock) else []
    if body:
        comment = cst.EmptyLine(comment=cst.Comment("# after_create_session: MonitoredSession called it next"))
        body[0] = body[0].with_changes(leading_lines=[comment, *body[0].leading_lines])
    merged = begin.with_changes(body=begin.body.with_changes(body=[*begin.body.body, *body]))
    return [merged if s is begin else s for s in statements if s is not after]


def _is_docstring(statement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
        and isinstance(statement.body[0], cst.Expr) and isinstance(statement.body[0].value, cst.SimpleString | cst.ConcatenatedString)


class _WithoutParameterDeletes(cst.CSTTransformer):
    """`del run_context` (a hook's way of marking it unused) goes with the parameter."""

    def __init__(self, params: list[str]):
        self.params = params

    def leave_SimpleStatementLine(self, original, updated):
        kept = [small for small in updated.body
                if not (isinstance(small, cst.Del) and isinstance(small.target, cst.Name) and small.target.value in self.params)]
        if len(kept) == len(updated.body):
            return updated
        return updated.with_changes(body=kept) if kept else cst.RemoveFromParent()


class _GlobalStepFetches(cst.CSTTransformer):
    """The global step a hook fetched (hook_facts checked every use): its attribute set to the step counter,
    before_run's SessionRunArgs kept in `self._session_run_results`, run_values.results read from there,
    after_run's `run_context.session.run` and end()'s `session.run` evaluated as compat.estimator_hooks.fetched.
    `tf1_program`: before_run's fetches are read as TensorFlow 1.x gave them, after the step."""

    def __init__(self, method: str, params: list[str], steps: frozenset[str], tf1_program: bool, keras_model: str):
        self.method, self.params, self.steps, self.tf1_program = method, params, steps, tf1_program
        self.step_counter = f"{keras_model}.optimizer.iterations"

    def leave_Assign(self, original, updated):
        target = updated.targets[0].target if len(updated.targets) == 1 else None
        if (self.method == "begin" and isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                and target.value.value == "self" and target.attr.value in self.steps and not is_none(updated.value)):
            return updated.with_changes(value=cst.parse_expression(self.step_counter))
        return updated

    def leave_SimpleStatementLine(self, original, updated):
        if self.method != "before_run" or len(updated.body) != 1 or not isinstance(updated.body[0], cst.Return):
            return updated
        value = updated.body[0].value
        if value is None or is_none(value):
            return updated
        fetched = _fetched(session_run_args_fetches(value), after_the_step=self.tf1_program)
        stored = updated.with_changes(body=[cst.Assign([cst.AssignTarget(cst.parse_expression(
            f"self.{FETCHED_ATTRIBUTE}"))], fetched)])
        return cst.FlattenSentinel([stored, updated.with_changes(body=[cst.Return()], leading_lines=[])])

    def leave_Attribute(self, original, updated):
        if (self.method == "after_run" and isinstance(updated.value, cst.Name) and updated.value.value == self.params[1]
                and updated.attr.value == "results"):
            return cst.parse_expression(f"self.{FETCHED_ATTRIBUTE}")
        return updated

    def leave_Call(self, original, updated):
        func = updated.func
        if (self.method == "end" and isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                and func.value.value == self.params[0] and func.attr.value == "run"):
            return _fetched(updated.args[0].value)
        if self.method == "after_run" and isinstance(func, cst.Attribute) and func.attr.value == "run" \
                and isinstance(func.value, cst.Attribute) and func.value.attr.value == "session" \
                and isinstance(func.value.value, cst.Name) and func.value.value.value == self.params[0]:
            return _fetched(updated.args[0].value)  # (read after the step: the step counter's new value)
        if self.method in ("before_run", "after_run", "end") and not updated.args and isinstance(func, cst.Attribute) \
                and func.attr.value in _STEP_READERS:
            return cst.parse_expression(self.step_counter)  # a fetch of the step (hook_facts)
        return updated


_STEP_READERS = ("get_global_step", "get_or_create_global_step")


def _fetched(fetches: cst.BaseExpression, after_the_step: bool = False) -> cst.Call:
    arguments = [cst.Arg(fetches)]
    if after_the_step:
        arguments.append(cst.Arg(cst.Name("True"), keyword=cst.Name("after_the_step"),
                                 equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))))
    return cst.Call(cst.parse_expression("estimator_hooks.fetched"), arguments)


def _fetches_kept_on_every_path(body: cst.IndentedBlock) -> cst.IndentedBlock:
    """before_run's body once its SessionRunArgs are kept: a last bare `return` dropped; unless the kept fetches are
    then its last statement and it returns nowhere else, `self._session_run_results = None` first (a path that
    returned None or fell off the end fetched nothing: run_values.results was None)."""
    statements = list(body.body)
    if len(statements) >= 2 and _is_line(statements[-1], cst.Return) and _is_line(statements[-2], cst.Assign):
        statements.pop()
    returns = []

    class Returns(cst.CSTVisitor):
        def visit_Return(self, node):
            returns.append(node)

        def visit_FunctionDef(self, node):
            return False

    body.with_changes(body=statements).visit(Returns())
    stored_last = bool(statements) and _is_line(statements[-1], cst.Assign) and \
        source(statements[-1].body[0].targets[0].target) == f"self.{FETCHED_ATTRIBUTE}"
    if returns or not stored_last:
        statements.insert(0, cst.parse_statement(f"self.{FETCHED_ATTRIBUTE} = None"))
    return body.with_changes(body=statements)


def _is_line(statement, kind) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and \
        isinstance(statement.body[0], kind)


@register
class CallbackFileWritersRule(Rule):
    """TF1's `summary.FileWriterCache.get(logdir)` / `summary.FileWriter(logdir)` in a hook becoming a callback ->
    compat.estimator_hooks's writers: TF1's raise when made eagerly, as a callback runs; these write the same
    Summary protos (add_summary, flush, close) with TensorFlow 2's summary writer."""

    rule_id = "session-run-hook"
    node_types = (cst.Call,)

    def leave(self, original: cst.Call, updated: cst.Call, ctx):
        if not any(id(original) in hook.file_writers and not hook.problems and not ctx.facts.hook_blocked_by(hook.name)
                   for hook in ctx.facts.hooks.values()):
            return updated
        api = ctx.resolver.call_api(original)
        ctx.need_compat("estimator_hooks")
        return updated.with_changes(func=cst.parse_expression(FILE_WRITERS[api.path]))
