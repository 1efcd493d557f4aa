"""The entry point of a TensorFlow 1.x graph program kept as written -> `tf1_programs.run_as_tf1()` first.

A program written for TensorFlow 1.x whose sessions, placeholders or Saver the rewrite keeps (in no loop shape
it migrates) ran in graph mode, with TF1's variables and control flow and Keras 2 behind `tf.layers`. Under
TensorFlow 2 it stops at its first placeholder ("not compatible with eager execution") or session.
`compat.tf1_programs.run_as_tf1()` (tf.compat.v1.disable_v2_behavior(), tf.compat.v1.layers from tf_keras) gives
it that behaviour back, called first in the module's first `if __name__ == "__main__":` block. Only in a project
written for 1.x, where nothing of the module runs on the migrated runtime, which is eager (no estimator, no
migrated session loop, no run-time tier call), and where the program does not switch TF2 behaviour off itself.

Where the module's estimators migrate, the entry block starts with `tf.compat.v1.disable_v2_tensorshape()`
instead: of 1.x's behaviour, the part the program's own code reads (a Dimension's `shape[-1].value` in its
model_fns and input_fns), which the eager migrated training runs with.
"""

import libcst as cst
import libcst.matchers as m

from codemods.facts import receiver_function_calls
from codemods.imports import _imports_tensorflow, import_block_end
from codemods.registry import Rule, register
from codemods.syntax import ids_inside, nodes_of_types

_MAIN_TEST = m.Comparison(
    left=m.Name("__name__"),
    comparisons=[m.ComparisonTarget(operator=m.Equal(), comparator=m.SimpleString('"__main__"') | m.SimpleString("'__main__'"))],
)
_RUN_AS_TF1 = m.SimpleStatementLine(body=[m.Expr(value=m.Call(func=m.Attribute(attr=m.Name("run_as_tf1"))))])


@register
class Tf1BehaviorRule(Rule):
    rule_id = "tf1-behavior"
    node_types = (cst.If,)

    def leave(self, original: cst.If, updated: cst.If, ctx):
        if not m.matches(original.test, _MAIN_TEST):
            return updated
        if not (ctx.tf1_names or ctx.resolver.tf1_program or _graph_code_without_a_graph(ctx)):
            return updated
        entries = (s for s in ctx.module.body if isinstance(s, cst.If) and m.matches(s.test, _MAIN_TEST))
        if original is not next(entries, None):
            return updated  # the first entry block at module level runs first: the switch goes there once
        facts = ctx.facts
        if _runs_migrated_training(facts) and not facts.graph_mode_switches:
            return _with_tf1_tensor_shapes(original, updated, ctx)
        if not facts.graph_code or facts.graph_mode_switches or facts.estimators or facts.runtime.calls \
                or facts.migrated_sessions():
            return updated
        if any(m.matches(statement, _RUN_AS_TF1) for statement in updated.body.body):
            return updated  # (a second rewrite)
        ctx.need_compat("tf1_programs")
        ctx.record(original, self.rule_id, True,
                   "TensorFlow 1.x graph program kept as written: compat.tf1_programs.run_as_tf1() first, the "
                   "behaviour it ran with (graph mode, TF1 variables, Keras 2 tf.layers: tf.compat.v1.disable_v2_behavior)")
        call = cst.parse_statement("tf1_programs.run_as_tf1()  # TensorFlow 1.x's behaviour: graph mode, TF1 variables\n")
        return updated.with_changes(body=updated.body.with_changes(body=[call, *updated.body.body]))


@register
class Tf1ScriptBehaviorRule(Rule):
    """The same for a TF1 graph script with no entry block (a tutorial's script, a notebook's cells): its graph
    code runs at module level, so `run_as_tf1()` goes right after the import block of its TensorFlow import."""

    rule_id = "tf1-behavior"
    node_types = (cst.Module,)

    def leave(self, original: cst.Module, updated: cst.Module, ctx):
        if any(isinstance(s, cst.If) and m.matches(s.test, _MAIN_TEST) for s in original.body):
            return updated  # Tf1BehaviorRule's
        if not (ctx.tf1_names or ctx.resolver.tf1_program or _graph_code_without_a_graph(ctx)):
            return updated
        facts = ctx.facts
        if not facts.graph_code or facts.graph_mode_switches or _runs_migrated_training(facts) \
                or facts.estimators or not _graph_code_at_module_level(original, facts):
            return updated
        if any(m.matches(statement, _RUN_AS_TF1) for statement in updated.body):
            return updated  # (a second rewrite)
        at = import_block_end(updated)
        if at == 0 or not any(_imports_tensorflow(statement) for statement in updated.body[:at]):
            return updated  # (TensorFlow imported elsewhere: no place known to come before its graph code)
        ctx.need_compat("tf1_programs")
        ctx.record(original.body[at] if at < len(original.body) else original.body[-1], self.rule_id, True,
                   "TensorFlow 1.x graph script kept as written: compat.tf1_programs.run_as_tf1() after its imports, "
                   "the behaviour it ran with (graph mode, TF1 variables, Keras 2 tf.layers: "
                   "tf.compat.v1.disable_v2_behavior)")
        call = cst.parse_statement("tf1_programs.run_as_tf1()  # TensorFlow 1.x's behaviour: graph mode, TF1 variables\n")
        return updated.with_changes(body=[*updated.body[:at], call, *updated.body[at:]])


@register
class EagerModuleGraphCodeRule(Rule):
    """Graph code only graph mode runs (a placeholder, a monitored session) at module level of a module whose
    training the rewrite made eager (a notebook running an estimator, then a graph of its own): no switch can
    serve both, and TensorFlow 2 stops there; a TODO on the first says what to do."""

    rule_id = "tf1-behavior"
    node_types = (cst.Call,)

    def leave(self, original: cst.Call, updated: cst.Call, ctx):
        if id(original) != _first_eager_graph_call(ctx):
            return updated
        ctx.todo(original, self.rule_id,
                 "graph code at module level, where this module's migrated training runs eagerly: a placeholder or "
                 "monitored session has no eager meaning and TensorFlow 2 stops here; build this graph in a "
                 "`with tf.Graph().as_default():` block (its session given that graph), or move it to a program of "
                 "its own (whose rewrite switches TensorFlow 1.x's behaviour on)")
        return updated


def _first_eager_graph_call(ctx) -> int | None:
    """The id of the first module-level call only graph mode runs, in a module running migrated (eager)
    training with no switch and no graph of its own (computed once per module)."""
    if not hasattr(ctx, "first_eager_graph_call"):
        ctx.first_eager_graph_call = None
        facts = ctx.facts
        if _runs_migrated_training(facts) and not facts.graph_mode_switches \
                and not _builds_a_graph_of_its_own(ctx):
            inside = _calls_in_definitions(ctx.module)
            receivers = receiver_function_calls(facts)
            for call in _module_calls(ctx):
                api = ctx.resolver.call_api(call)
                if api is not None and api.is_one_of(*_GRAPH_MODE_ONLY) and id(call) not in inside \
                        and id(call) not in facts.serving_placeholders and id(call) not in receivers:
                    ctx.first_eager_graph_call = id(call)
                    break
    return ctx.first_eager_graph_call


def _calls_in_definitions(module: cst.Module) -> set[int]:
    return ids_inside(module, (cst.FunctionDef, cst.ClassDef, cst.Lambda), (cst.Call,))


def _module_calls(ctx) -> list[cst.Call]:
    """The module's calls in source order (one walk per module, shared by this module's rules)."""
    if not hasattr(ctx, "module_calls"):
        ctx.module_calls = nodes_of_types(ctx.module, (cst.Call,))
    return ctx.module_calls


def _builds_a_graph_of_its_own(ctx) -> bool:
    """Whether the module calls `<graph>.as_default()` or `wrap_function(...)`."""
    return any(isinstance(call.func, cst.Attribute) and call.func.attr.value in ("as_default", "wrap_function")
               for call in _module_calls(ctx))


def _graph_code_at_module_level(module: cst.Module, facts) -> bool:
    """Whether graph code runs when the module does (a call outside its functions and classes)."""
    inside = _calls_in_definitions(module)
    return any(call not in inside for call in facts._graph_code_calls)


# compat modules a kept TF1 graph program runs with; any other is the eager runtime a rewrite migrated to
_GRAPH_MODE_COMPAT = {"tf1_programs", "graph_sessions"}


# Graph code TensorFlow 2 cannot run eagerly at all (a bare `tf.compat.v1.Session(config=...)` it can: TF2 Keras
# scripts made one for `keras.backend.set_session`; a Saver given its variables saves eagerly too)
_GRAPH_MODE_ONLY = ("placeholder", "placeholder_with_default", "train.MonitoredTrainingSession",
                    "train.MonitoredSession", "train.SingularMonitoredSession", "train.Supervisor",
                    "train.start_queue_runners")


def _graph_code_without_a_graph(ctx) -> bool:
    """Whether the module keeps graph code only graph mode runs (placeholders, monitored sessions) and builds no
    graph of its own to run it in (`with tf.Graph().as_default():`, `wrap_function`): spelled with TensorFlow 2's
    names (`tf.compat.v1.placeholder`, as tf_upgrade_v2 leaves them), it ran only on TensorFlow 1.x, in graph
    mode. Not a module an earlier rewrite migrated to the eager runtime (its TODO says where the graph code stops)."""
    facts = ctx.facts
    if not facts.graph_code or _builds_a_graph_of_its_own(ctx) or _uses_eager_compat(ctx.module):
        return False
    receivers = receiver_function_calls(facts)
    for call in _module_calls(ctx):
        api = ctx.resolver.call_api(call)
        if api is not None and api.is_one_of(*_GRAPH_MODE_ONLY) and id(call) not in facts.serving_placeholders \
                and id(call) not in receivers:
            return True
    return False


def _uses_eager_compat(module: cst.Module) -> bool:
    """Whether the module imports compat modules of the migrated (eager) runtime: an earlier rewrite's output."""
    for statement in nodes_of_types(module, (cst.ImportFrom,)):
        if cst.helpers.get_full_name_for_node(statement.module) == "estimator_migrate.compat" \
                and not isinstance(statement.names, cst.ImportStar) \
                and any(alias.evaluated_name not in _GRAPH_MODE_COMPAT for alias in statement.names):
            return True
    return False


def _runs_migrated_training(facts) -> bool:
    """Whether the module runs migrated (eager) training: an estimator of either tier, a call of the run-time
    tier (a project's `task.py` training the estimator its `model.py` builds), a migrated session loop."""
    return (any(estimator.migratable for estimator in facts.estimators.values()) or bool(facts.runtime.calls)
            or bool(facts.migrated_sessions()))


_TENSOR_SHAPES = m.SimpleStatementLine(body=[m.Expr(value=m.Call(func=m.Attribute(attr=m.Name("disable_v2_tensorshape"))))])


def _with_tf1_tensor_shapes(original: cst.If, main: cst.If, ctx) -> cst.If:
    """A program written for TensorFlow 1.x whose training migrates: TF1's TensorShape first in its entry block
    (its model_fns and input_fns read `shape[-1].value`, a Dimension's, as they ran); the migrated training runs
    eagerly, with TF2's behaviour otherwise."""
    if any(m.matches(statement, _TENSOR_SHAPES) for statement in main.body.body):
        return main
    alias = ctx.need_tensorflow()
    ctx.record(original, "tf1-behavior", True, "TensorFlow 1.x program whose estimators migrate: "
               "tf.compat.v1.disable_v2_tensorshape() first, the TensorShape it ran with (dimensions as Dimension)")
    call = cst.parse_statement(f"{alias}.compat.v1.disable_v2_tensorshape()  # TensorFlow 1.x's TensorShape: "
                               "shape[i].value\n")
    return main.with_changes(body=main.body.with_changes(body=[call, *main.body.body]))

