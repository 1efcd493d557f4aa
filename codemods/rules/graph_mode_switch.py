"""`tf.compat.v1.disable_v2_behavior()` / `disable_eager_execution()` -> removed, once an estimator (either
tier: a model_fn kept as written runs in graphs of its own) or a MonitoredTrainingSession loop migrates.

The migrated training code is TF2 code: it runs eagerly (`int(optimizer.iterations)`, `fit`, tf.function
loops) and fails under TF1 graph mode. Estimators built their own graphs whatever the mode, so a program
whose only TF1 code was its estimators needs the switch no more. Of `disable_v2_behavior()` the part that the
program's own code may read, and the migrated runtime runs with, stays: `disable_v2_tensorshape()` (TF1's
TensorShape, whose dimensions are `Dimension`s: model_fns written for it read `x.shape[-1].value`). A module that
also has TF1 graph code of its own (sessions, placeholders) keeps the switch, and its estimators stay Estimators
(codemods/facts.py).
"""

import libcst as cst
import libcst.matchers as m

from codemods.registry import Rule, register


@register
class GraphModeSwitchRule(Rule):
    rule_id = "graph-mode-switch"
    node_types = (cst.SimpleStatementLine,)

    def leave(self, original, updated, ctx):
        facts = ctx.facts
        if not any(original is switch for switch in facts.graph_mode_switches):
            return updated
        if facts.graph_code or not (
            any(estimator.migratable for estimator in facts.estimators.values()) or facts.monitored_loop_statements
            or facts.runtime.migrates_estimators
        ):
            return updated
        call = original.body[0].value
        if m.matches(call, m.Call(func=m.Attribute(attr=m.Name("disable_v2_behavior")))):
            ctx.record(original, self.rule_id, True, "disable_v2_behavior() -> disable_v2_tensorshape(): the migrated "
                       "code runs eagerly (TF2 behaviour); the program's own code keeps TF1's TensorShape "
                       "(dimensions as Dimension: `shape[i].value`)")
            tensorshape = call.with_changes(func=call.func.with_changes(attr=cst.Name("disable_v2_tensorshape")))
            return updated.with_changes(body=[updated.body[0].with_changes(value=tensorshape)])
        ctx.record(original, self.rule_id, True, "removed: the migrated code runs eagerly (TF2 behaviour)")
        return cst.RemoveFromParent()
