"""`MonitoredTrainingSession` loops in the common shape -> a Keras model and a checkpointed TF2 loop.

The shape (TF1's guides and most projects), statements of one function:

    global_step = tf.train.get_or_create_global_step()
    features, labels = tf.data.make_one_shot_iterator(dataset).get_next()   # or dataset.make_one_shot_iterator()
    <the network from features, the loss from labels>                       # as in a model_fn
    train_op = tf.train.AdamOptimizer(...).minimize(loss, global_step=global_step)
    hooks = [tf.train.StopAtStepHook(last_step=N), tf.train.NanTensorHook(loss)]
    with tf.train.MonitoredTrainingSession(checkpoint_dir=D, save_checkpoint_steps=K, hooks=hooks) as sess:
        while not sess.should_stop():
            sess.run(train_op)

The network, loss and optimizer are read as a model_fn's are (codemods/model_fns.training_parts) and become
a `compat.model_fns.EstimatorModel` class; the session becomes the loop codemods/rules/monitored_session.py
writes, which keeps what the session did: restore the latest checkpoint in checkpoint_dir, save when it
starts, every K steps or S seconds (600 s when neither is given) and when it ends, StopAtStepHook checked
after each step, NanTensorHook after the step's save (the session ran its saver before the program's hooks),
the input ending ends training. Anything else is kept with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from codemods.api import ApiResolver
from codemods.graph_training import (
    BatchRenamer,
    WrappedGraph,
    applied_gradients_loss,
    bound_by_with,
    bound_names,
    calls_in,
    class_problems,
    graph_statements,
    is_global_step,
    is_method,
    is_underscore,
    minimized_loss,
    one_shot_input,
    session_function,
    wrapped_problems,
)
from codemods.model_fns import ModelFnReader, ModelFnShape, class_name, names_in, training_parts
from codemods.syntax import call_arguments, is_none, name_counts, single_assignment
from codemods.templates import source

SESSION_API = "train.MonitoredTrainingSession"
SESSION_PARAMS = (
    "master", "is_chief", "checkpoint_dir", "scaffold", "hooks", "chief_only_hooks", "save_checkpoint_secs",
    "save_summaries_steps", "save_summaries_secs", "config", "stop_grace_period_secs", "log_step_count_steps",
    "max_wait_secs", "save_checkpoint_steps", "summary_dir", "save_graph_def",
)
# What only shaped the session itself, TensorBoard files (graph, global_step/sec) or logs: not carried over.
DROPPED_PARAMS = (
    "config", "stop_grace_period_secs", "max_wait_secs", "summary_dir", "save_summaries_steps",
    "save_summaries_secs", "log_step_count_steps", "save_graph_def",
)
DEFAULT_SAVE_SECS = "600"  # MonitoredTrainingSession's, when neither cadence is given
MAX_TO_KEEP = "5"  # its Scaffold's Saver keeps tf.train.Saver's default
STOP_HOOK, NAN_HOOK, LOGGING_HOOK = "train.StopAtStepHook", "train.NanTensorHook", "train.LoggingTensorHook"
LOGGING_HOOK_PARAMS = ("tensors", "every_n_iter", "every_n_secs", "at_end", "formatter")
# Local names the migrated loop binds in the function (codemods/rules/monitored_session.py).
LOOP_NAMES = (
    "model", "dataset", "step", "checkpoint", "manager", "last_step", "train_step", "train_steps", "saved_step",
    "saved_time", "features", "labels", "step_loss", "previous_loss", "iterator", "done", "chunk", "batch",
    "callbacks",
)


@dataclass
class MonitoredLoop:
    """A MonitoredTrainingSession loop the rewrite replaces, and what the replacement is written from."""

    session: cst.With  # `with MonitoredTrainingSession(...) as sess:`: the loop takes its place
    call: cst.Call
    shape: ModelFnShape | None  # the graph as a class (tier 1); None when `wrapped` keeps it as written
    dataset: cst.BaseExpression
    checkpoint_dir: cst.BaseExpression
    cadence: tuple[str, cst.BaseExpression]  # ("steps", K) or ("secs", S)
    stop: tuple[str, cst.BaseExpression] | None  # StopAtStepHook's ("last_step" | "num_steps", N)
    nan_check: str | None  # "before" / "after" the program's own hooks (list order), None without NanTensorHook
    removed: set[int] = field(default_factory=set)  # ids of the other statements it replaces
    dropped: list[str] = field(default_factory=list)  # session arguments not carried over
    calls: set[int] = field(default_factory=set)  # ids of every call in what it replaces (hooks included)
    graph: cst.With | None = None  # the `with tf.Graph().as_default():` around it, unwrapped
    # `Hook(...)` calls of the program's own SessionRunHook classes (become Keras callbacks: checked by facts)
    custom_hooks: list[cst.Call] = field(default_factory=list)
    # the callbacks the loop drives, in the hooks' order: those classes' calls, compat twins of built-in hooks
    callbacks: list[str] = field(default_factory=list)
    fetched: list[str] = field(default_factory=list)  # names `sess.run([train_op, loss])` assigned the loss to
    loop_body: list[cst.BaseStatement] = field(default_factory=list)  # the loop's statements after sess.run
    wrapped: WrappedGraph | None = None
    what = "MonitoredTrainingSession"

    @property
    def model_name(self) -> str:
        """The name the migrated model's code takes: its class's, or the nested model_fn's."""
        return self.wrapped.name if self.wrapped is not None else self.shape.class_name


def session_call(statement: cst.CSTNode, resolver: ApiResolver) -> cst.Call | None:
    """The MonitoredTrainingSession call of `with MonitoredTrainingSession(...) as sess:`."""
    if not isinstance(statement, cst.With):
        return None
    for item in statement.items:
        if isinstance(item.item, cst.Call):
            api = resolver.call_api(item.item)
            if api is not None and api.path == SESSION_API:
                return item.item
    return None


def analyze_session(
    session: cst.With, call: cst.Call, functions: list[cst.FunctionDef], module: cst.Module, resolver: ApiResolver
) -> MonitoredLoop | list[str]:
    """The loop replacing `with MonitoredTrainingSession(...)` (`call`) inside `functions` (the enclosing defs,
    outermost first), or why it is kept. (codemods/facts.py finds the sessions in its own walk of the module.)"""
    where = session_function(session, functions, module, resolver)
    if isinstance(where, list):
        return where
    return analyze_loop(where[0], session, call, resolver, where[1])


def analyze_loop(
    function: cst.FunctionDef, session: cst.With, call: cst.Call, resolver: ApiResolver, graph: cst.With | None = None
) -> MonitoredLoop | list[str]:
    """The loop `session` runs in `function` (in its `with tf.Graph().as_default():` block `graph`, which the
    migrated code does not need), or why it is not in the common shape."""
    analysis = ModelFnReader(resolver)
    problems = analysis.problems
    body = list((graph or function).body.body)
    # The function's statements, the graph block's in its place.
    statements = [t for s in function.body.body for t in (body if s is graph else [s])]
    at = body.index(session)
    session_body = _session_body(session)
    if session_body is None:
        return [
            "the session's body is not `while not sess.should_stop(): sess.run(train_op)` (or `_, loss_value = "
            "sess.run([train_op, loss])` and statements using the value; `while True:` without hooks)"
        ]
    train_op, fetches, loop_body, forever = session_body
    arguments, argument_problems = call_arguments(call, SESSION_PARAMS)
    problems += argument_problems + _argument_problems(arguments)
    hooks_given = arguments.get("hooks")
    if forever and hooks_given is not None and not is_none(hooks_given) and not (
            isinstance(hooks_given, cst.List) and not hooks_given.elements):
        # (without hooks of the program's, nothing requests a stop: the input ending ends both loops)
        problems.append("`while True:` with hooks= (a hook's stop request made the next sess.run raise): write "
                        "`while not sess.should_stop():`")
    checkpoint_dir = arguments.get("checkpoint_dir")
    cadence = _cadence(arguments, problems)

    iterator_at, features_name, labels_name, dataset, iterator_statements = one_shot_input(body[:at], resolver, problems)
    if iterator_at is None:
        return problems + [
            "the input is not `features, labels = tf.data.make_one_shot_iterator(dataset).get_next()` (or "
            "`dataset.make_one_shot_iterator().get_next()`) before the session"
        ]
    hooks_value, hooks_statement = _hooks(arguments.get("hooks"), body[:at])
    steps = [s for s in body[:iterator_at] if is_global_step(s, resolver)]
    region = graph_statements(
        [s for s in body[iterator_at + 1 : at] if s is not hooks_statement], {features_name, labels_name}, resolver
    )
    renames = {features_name: "features", labels_name: "labels"}
    clashing = ({"features", "labels"} - set(renames)) & set().union(*(names_in(s) for s in region))
    if clashing:
        problems.append(f"the training code uses {', '.join(sorted(clashing))} besides the input's batch")
    renamed = [s.visit(BatchRenamer(renames)) for s in region]
    loss = minimized_loss(renamed, train_op)
    applied = applied_gradients_loss(renamed, train_op) if loss is None else None
    if loss is None and applied is None:
        return problems + [
            f"`{train_op}` is not assigned `optimizer.minimize(loss, global_step=...)` (or `apply_gradients(..., "
            "global_step=...)` of one `compute_gradients(loss)`) before the session"
        ]
    bound = set().union(*(bound_names(s) for s in [*steps, *region])) | {features_name, labels_name}
    loop_problems = len(problems)
    parts = training_parts(
        steps + renamed, cst.Name(loss), cst.Name(train_op), analysis, bound | set(renames.values()),
        where=f"{function.name.value}()",
    ) if loss is not None else None
    graph_problems = problems[loop_problems:]  # why the graph is not a class: tier 2 keeps it as written
    del problems[loop_problems:]
    loss = loss or applied
    stop, nan_check, custom_hooks, callbacks = _hook_elements(hooks_value, loss, problems, resolver)

    removed = [*steps, *iterator_statements, *region] + ([hooks_statement] if hooks_statement is not None else [])
    removed_ids = {id(s) for s in removed}
    for _, fetched in fetches:
        if fetched != loss:
            problems.append(f"sess.run fetches {fetched} besides train_op (the minimized loss is carried over)")
    # The program's statements that stay: the function's, and its own in the loop (after sess.run).
    kept = [s for s in statements if id(s) not in removed_ids and s is not session] + loop_body
    bound |= set().union(*(bound_names(s) for s in removed)) | bound_by_with(session)
    emitted = [dataset, cadence[1], *([checkpoint_dir] if checkpoint_dir is not None else [])]
    emitted += [stop[1]] if stop else []
    problems += _name_problems(kept, emitted, bound, dataset, [target for target, _ in fetches], stop)
    if parts is not None:
        graph_problems += class_problems(parts, function, statements, session, bound)
    if problems:
        return list(dict.fromkeys(problems + graph_problems))
    shape, wrapped = None, None
    if parts is None or graph_problems:
        wrapped = WrappedGraph(f"{function.name.value}_graph", function.name.value, steps + renamed, loss, train_op)
        problems = wrapped_problems(wrapped, kept, function)
        if problems:
            return list(dict.fromkeys(graph_problems + problems))
    else:
        shape = ModelFnShape(
            function, class_name(f"{function.name.value}_model"), parts.forward, parts.output, parts.loss_statements,
            loss, parts.optimizer, (), body, parts.training_only,
        )
    dropped = [n for n in DROPPED_PARAMS if n in arguments]
    calls = {id(node) for statement in [*removed, session] for node in calls_in(statement)}
    calls -= {id(node) for statement in loop_body for node in calls_in(statement)}  # the program's, kept
    return MonitoredLoop(
        session, call, shape, dataset, checkpoint_dir, cadence, stop, nan_check, removed_ids, dropped, calls, graph,
        custom_hooks, callbacks, [target for target, _ in fetches], loop_body, wrapped,
    )


def _argument_problems(arguments: dict[str, cst.BaseExpression]) -> list[str]:
    """Why the session's arguments (other than the cadence) cannot be carried over."""
    problems = []
    checkpoint_dir = arguments.get("checkpoint_dir")
    if checkpoint_dir is None or is_none(checkpoint_dir):
        problems.append("the session has no checkpoint_dir (it neither restored nor saved)")
    if "master" in arguments and not _is_empty_string(arguments["master"]):
        problems.append("master= names a remote TF1 server (no TF2 counterpart; use a tf.distribute strategy)")
    chief = arguments.get("is_chief")
    if chief is not None and not (isinstance(chief, cst.Name) and chief.value == "True"):
        problems.append("is_chief= may be False (workers of a TF1 cluster: use tf.distribute's MultiWorkerMirroredStrategy)")
    for name in ("scaffold", "chief_only_hooks"):
        if name in arguments and not is_none(arguments[name]):
            problems.append(f"{name}= is not migrated")
    return problems


def _name_problems(kept, emitted, bound: set[str], dataset, fetch_targets: list[str], stop=None) -> list[str]:
    """Names the replaced statements made that code which stays reads, and names the loop would rebind (not
    `dataset` or `last_step` when the loop binds them to themselves: `StopAtStepHook(last_step=last_step)`)."""
    problems = []
    kept_reads = set().union(*(names_in(s) for s in kept), *(names_in(e) for e in emitted))
    used = sorted(kept_reads & bound)
    if used:
        problems.append(f"{', '.join(used)}, made for the session, {'is' if len(used) == 1 else 'are'} used elsewhere")
    loop_names = set(LOOP_NAMES) - ({"dataset"} if isinstance(dataset, cst.Name) else set())  # used as it is
    if stop is not None and stop[0] == "last_step" and isinstance(stop[1], cst.Name) and stop[1].value == "last_step":
        loop_names.discard("last_step")
    clash = sorted(loop_names & (set().union(*(name_counts(s) for s in kept)) | kept_reads | set(fetch_targets)))
    if clash:
        problems.append(f"the function already uses {', '.join(clash)}, which the migrated loop binds")
    return problems


def _session_body(session: cst.With):
    """(train_op, [(target, fetched name)], the statements after sess.run, whether the loop is `while True:`)
    of `with ... as sess: while not sess.should_stop(): [targets =] sess.run(train_op | [train_op, ...]); ...`
    (or `while True:`), or None."""
    if len(session.items) != 1 or session.items[0].asname is None:
        return None
    sess = session.items[0].asname.name
    if not isinstance(sess, cst.Name) or len(session.body.body) != 1:
        return None
    loop = session.body.body[0]
    if not isinstance(loop, cst.While) or loop.orelse is not None:
        return None
    test = loop.test
    forever = isinstance(test, cst.Name) and test.value == "True"
    if not forever and not (
        isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
        and isinstance(test.expression, cst.Call) and not test.expression.args
        and is_method(test.expression.func, sess.value, "should_stop")
    ):
        return None
    run_statement, *rest = loop.body.body
    if not isinstance(run_statement, cst.SimpleStatementLine) or len(run_statement.body) != 1:
        return None
    small = run_statement.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        run, target = small.value, small.targets[0].target
    elif isinstance(small, cst.Expr):
        run, target = small.value, None
    else:
        return None
    if not (
        isinstance(run, cst.Call) and is_method(run.func, sess.value, "run") and len(run.args) == 1
        and run.args[0].keyword is None
    ):
        return None
    fetches = run.args[0].value
    if isinstance(fetches, cst.Name):
        if target is not None and not is_underscore(target):
            return None
        return fetches.value, [], rest, forever
    if not isinstance(fetches, cst.List | cst.Tuple) or not isinstance(target, cst.List | cst.Tuple):
        return None
    names = [element.value for element in fetches.elements]
    targets = [element.value for element in target.elements]
    if len(names) != len(targets) or not all(isinstance(n, cst.Name) for n in names + targets):
        return None
    pairs = [(t.value, n.value) for t, n in zip(targets, names)]
    train_ops = [(t, n) for t, n in pairs if t == "_"]
    if len(train_ops) != 1:
        return None  # train_op is the one fetch assigned to `_`
    return train_ops[0][1], [(t, n) for t, n in pairs if t != "_"], rest, forever


def _is_empty_string(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.SimpleString) and node.evaluated_value == ""


def _cadence(arguments: dict, problems: list[str]) -> tuple[str, cst.BaseExpression]:
    steps, secs = arguments.get("save_checkpoint_steps"), arguments.get("save_checkpoint_secs")
    switched_off = lambda value: value is None or is_none(value) or (  # noqa: E731 (as the session read them)
        isinstance(value, cst.Integer) and value.evaluated_value <= 0
    )
    steps = None if switched_off(steps) else steps
    secs = None if switched_off(secs) else secs
    if steps is not None and secs is not None:
        problems.append("both save_checkpoint_steps and save_checkpoint_secs are given")
    if steps is not None:
        return "steps", steps
    if secs is None and ("save_checkpoint_steps" in arguments or "save_checkpoint_secs" in arguments):
        problems.append("checkpoints are switched off (save_checkpoint_steps/secs None or 0): the session only restored")
    return "secs", secs if secs is not None else cst.Integer(DEFAULT_SAVE_SECS)


def _hooks(hooks: cst.BaseExpression | None, statements) -> tuple[cst.BaseExpression | None, cst.CSTNode | None]:
    """The hooks list (followed through a variable assigned a list literal) and the statement assigning it."""
    if isinstance(hooks, cst.Name):
        for statement in statements:
            assignment = single_assignment(statement)
            if assignment is not None and assignment[0] == hooks.value and isinstance(assignment[1], cst.List):
                return assignment[1], statement
    return hooks, None


def _hook_elements(hooks, loss: str, problems: list[str], resolver: ApiResolver):
    """(StopAtStepHook's ("last_step" | "num_steps", N) or None, where NanTensorHook(loss) runs: "before" or
    "after" the callbacks or None, the calls making the program's own hooks, the callbacks' code in order)."""
    if hooks is None or is_none(hooks):
        return None, None, [], []
    if not isinstance(hooks, cst.List | cst.Tuple):
        problems.append("hooks= is not a list of hooks written in the function")
        return None, None, [], []
    stop, nan_check, custom, callbacks = None, None, [], []
    for element in hooks.elements:
        hook = element.value
        api = resolver.call_api(hook) if isinstance(hook, cst.Call) else None
        if api is not None and api.path == STOP_HOOK and stop is None:
            arguments, hook_problems = call_arguments(hook, ("num_steps", "last_step"))
            given = [(key, value) for key, value in arguments.items() if not is_none(value)]
            if hook_problems or len(given) != 1:
                problems.append("StopAtStepHook is not given exactly one of num_steps, last_step")
            else:
                stop = given[0]
            continue
        if api is not None and api.path == NAN_HOOK:
            arguments, hook_problems = call_arguments(hook, ("loss_tensor", "fail_on_nan_loss"))
            tensor = arguments.get("loss_tensor")
            fail = arguments.get("fail_on_nan_loss")
            if hook_problems or not (isinstance(tensor, cst.Name) and tensor.value == loss):
                problems.append("NanTensorHook watches a tensor other than the minimized loss")
            elif fail is not None and not (isinstance(fail, cst.Name) and fail.value == "True"):
                problems.append("NanTensorHook(fail_on_nan_loss=False) is not migrated (it stopped without raising)")
            nan_check = "after" if callbacks else "before"
            continue
        if api is not None and api.path == LOGGING_HOOK:
            callback = _loss_logging(hook, loss, problems)
        elif isinstance(hook, cst.Call) and isinstance(hook.func, cst.Name) and api is None:
            custom.append(hook)  # a class of the module, if facts finds it: checked there
            callback = source(hook)
        else:
            problems.append(
                f"hook `{_short(hook)}` is not migrated in a session (StopAtStepHook, NanTensorHook(loss), "
                "LoggingTensorHook({tag: loss}, every_n_iter) and the module's own SessionRunHooks are)"
            )
            continue
        if nan_check == "after":
            problems.append("NanTensorHook sits between two hooks the loop calls (it checks before or after them)")
        if callback is not None:
            callbacks.append(callback)
    return stop, nan_check, custom, callbacks


def _loss_logging(hook: cst.Call, loss: str, problems: list[str]) -> str | None:
    """compat.estimator_hooks.LogLoss for `LoggingTensorHook({"tag": loss}, every_n_iter=N)`."""
    arguments, hook_problems = call_arguments(hook, LOGGING_HOOK_PARAMS)
    tensors, every = arguments.get("tensors"), arguments.get("every_n_iter")
    entries = tensors.elements if isinstance(tensors, cst.Dict) else []
    logs_the_loss = (
        len(entries) == 1 and isinstance(entries[0], cst.DictElement)
        and isinstance(entries[0].key, cst.SimpleString)
        and isinstance(entries[0].value, cst.Name) and entries[0].value.value == loss
    )
    others = [name for name in ("every_n_secs", "at_end", "formatter") if name in arguments and not (
        is_none(arguments[name]) or (isinstance(arguments[name], cst.Name) and arguments[name].value == "False"))]
    if hook_problems or not logs_the_loss or every is None or is_none(every) or others:
        problems.append(
            "LoggingTensorHook is migrated for {'tag': <the minimized loss>} every_n_iter only (other tensors are "
            "graph tensors fetched by name; log them from a callback's on_train_batch_end)"
        )
        return None
    tag, period = source(entries[0].key), source(every)
    return f"estimator_hooks.LogLoss({tag}, every_n_iter={period})"


def _short(node: cst.CSTNode) -> str:
    text = source(node)
    return text if len(text) <= 60 else text[:57] + "..."
