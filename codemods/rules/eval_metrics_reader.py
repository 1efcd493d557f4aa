"""Estimator's `read_eval_metrics(eval_dir)` -> `estimator_hooks.read_eval_metrics(eval_dir)`.

Programs read their evaluations back this way, most often in the `should_stop_fn` of an early-stopping hook.
tensorflow_estimator does not export it (`from tensorflow_estimator.python.estimator.early_stopping import
read_eval_metrics`), and TensorFlow >= 2.16 goes without tensorflow_estimator, so once a module's
estimators migrate the call (and its import) would fail; the
compat twin returns the same steps -> {tag: value} (in step order), from the Estimator's summaries and from
the TF2 scalars compat.estimator_evaluation writes. In a module where no estimator migrates (it still runs
on TF 2.15) the call is kept, with a TODO naming the twin.
"""

import libcst as cst

from codemods.registry import Rule, register

READ_EVAL_METRICS = "python.estimator.early_stopping.read_eval_metrics"  # below tensorflow_estimator


@register
class EvalMetricsReaderRule(Rule):
    rule_id = "read-eval-metrics"
    node_types = (cst.Call,)

    def leave(self, original: cst.Call, updated: cst.Call, ctx):
        api = ctx.resolver.call_api(original)
        if api is None or api.path != READ_EVAL_METRICS:
            return updated
        if not any(estimator.migratable for estimator in ctx.facts.estimators.values()):
            ctx.todo(
                original,
                self.rule_id,
                "tensorflow_estimator is gone in TensorFlow >= 2.16: "
                "compat.estimator_hooks.read_eval_metrics(eval_dir) reads the same metrics",
            )
            return updated
        ctx.need_compat("estimator_hooks")
        ctx.record(
            original, self.rule_id, True, "read_eval_metrics -> compat.estimator_hooks.read_eval_metrics"
        )
        return updated.with_changes(func=cst.parse_expression("estimator_hooks.read_eval_metrics"))
