"""`estimator.evaluate(input_fn, steps)` -> `compat.evaluation.evaluate(model, dataset, steps, summary_dir)`.

Only after the estimator's `train(...)` in the same or an enclosing block (`codemods.facts`): the Estimator
evaluated the latest checkpoint in model_dir, which is then the model in memory. The result is the same
dict of head metrics under the same keys (`loss`, `average_loss`, `accuracy`, ..., `global_step`), and the
metrics are written to `model_dir/eval` as Estimator did.
"""

import libcst as cst

from codemods.facts import keyword_args
from codemods.registry import Rule, register
from codemods.templates import dataset_expression, source


@register
class EstimatorEvaluateRule(Rule):
    rule_id = "estimator-evaluate"
    node_types = (cst.Call,)

    def leave(self, original: cst.Call, updated: cst.Call, ctx):
        estimator = ctx.facts.estimator_for_evaluate(original)
        if estimator is None:
            return updated
        if not estimator.migratable:
            ctx.todo(original, self.rule_id, estimator.kept_note)
            return updated
        kwargs, _ = keyword_args(updated)
        steps = f", steps={source(kwargs['steps'])}" if "steps" in kwargs else ""
        summary_dir = f'os.path.join({source(estimator.model_dir)}, "eval")'
        ctx.need_import("os")
        ctx.need_import("compat", "evaluation")
        ctx.record(
            original,
            self.rule_id,
            True,
            f"{estimator.variable}.evaluate(...) -> compat.evaluation.evaluate (the head's metrics, same keys)",
        )
        return cst.parse_expression(
            f"evaluation.evaluate({estimator.variable}, {dataset_expression(kwargs['input_fn'])}{steps}, "
            f"summary_dir={summary_dir})"
        )
