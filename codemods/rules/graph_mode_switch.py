"""`tf.compat.v1.disable_v2_behavior()` / `disable_eager_execution()` -> removed, once an estimator (either
tier: a model_fn kept as written runs in graphs of its own) or a MonitoredTrainingSession loop migrates.

The migrated training code is TF2 code: it runs eagerly (`int(optimizer.iterations)`, `fit`, tf.function
loops) and fails under TF1 graph mode. Estimators built their own graphs whatever the mode, so a program
whose only TF1 code was its estimators needs the switch no more. Of `disable_v2_behavior()` the part that the
program's own code may read, and the migrated runtime runs with, stays: `disable_v2_tensorshape()` (TF1's
TensorShape, whose dimensions are `Dimension`s: model_fns written for it read `x.shape[-1].value`). A module that
also has TF1 graph code of its own (sessions, placeholders) keeps the switch, and its tier-1 estimators stay
Estimators (codemods/facts.py); where the run-time tier migrated its estimators, the switch goes as above, with a
TODO saying where that graph code still runs (simclr's TF-Hub `module_fn`, run by hub in a graph of its own, does).
"""

import libcst as cst
import libcst.matchers as m

from codemods.registry import Rule, register

GRAPH_CODE_RUNS_EAGERLY = (
    "TF2 behaviour is back on for the estimators the run-time tier migrated (their training runs eagerly); the "
    "module's own TF1 graph code (sessions, placeholders) runs as before only where a graph is built for it (a "
    "function an API runs in a graph of its own, `with tf.Graph().as_default():`): at top level it stops at its first "
    "placeholder or session"
)


@register
class GraphModeSwitchRule(Rule):
    rule_id = "graph-mode-switch"
    node_types = (cst.SimpleStatementLine,)

    def leave(self, original, updated, ctx):
        facts = ctx.facts
        if not any(original is switch for switch in facts.graph_mode_switches):
            return updated
        if facts.graph_code and not facts.runtime.migrates_estimators or not (
            any(estimator.migratable for estimator in facts.estimators.values()) or facts.monitored_loop_statements
            or facts.runtime.migrates_estimators
        ):
            return updated
        if facts.graph_code:
            ctx.todo(original, self.rule_id, GRAPH_CODE_RUNS_EAGERLY)
        call = original.body[0].value
        if m.matches(call, m.Call(func=m.Attribute(attr=m.Name("disable_v2_behavior")))):
            ctx.record(original, self.rule_id, True, "disable_v2_behavior() -> disable_v2_tensorshape(): the migrated "
                       "code runs eagerly (TF2 behaviour); the program's own code keeps TF1's TensorShape "
                       "(dimensions as Dimension: `shape[i].value`)")
            tensorshape = call.with_changes(func=call.func.with_changes(attr=cst.Name("disable_v2_tensorshape")))
            # (a comment on the line spoke of the switch)
            return updated.with_changes(body=[updated.body[0].with_changes(value=tensorshape)],
                                        trailing_whitespace=cst.TrailingWhitespace())
        ctx.record(original, self.rule_id, True, "removed: the migrated code runs eagerly (TF2 behaviour)")
        return cst.RemoveFromParent()
