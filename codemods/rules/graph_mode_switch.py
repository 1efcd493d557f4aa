"""`tf.compat.v1.disable_v2_behavior()` / `disable_eager_execution()` -> removed, once an estimator or a
MonitoredTrainingSession loop migrates.

The migrated training code is TF2 code: it runs eagerly (`int(optimizer.iterations)`, `fit`, tf.function
loops) and fails under TF1 graph mode. Estimators built their own graphs whatever the mode, so a program
whose only TF1 code was its estimators needs the switch no more. A module that also has TF1 graph code of
its own (sessions, placeholders) keeps it, and its estimators stay Estimators (codemods/facts.py).
"""

import libcst as cst

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
        ):
            return updated
        ctx.record(original, self.rule_id, True, "removed: the migrated code runs eagerly (TF2 behaviour)")
        return cst.RemoveFromParent()
