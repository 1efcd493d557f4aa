"""`estimator.evaluate(...)` and `estimator.predict(...)` -> `compat.estimator_evaluation.evaluate` / `compat.estimator_prediction.predict`
on the migrated model: the same metrics dict, the same per-example prediction dicts, under the same keys.

Only after the estimator's `train(...)` in the same or an enclosing block (`codemods.facts`): the Estimator
used the latest checkpoint in model_dir, which is then the model in memory. Evaluation metrics are also
written to `model_dir/eval`, as Estimator did.
"""

import libcst as cst

from codemods.registry import Rule, register
from codemods.syntax import keyword_args
from codemods.templates import dataset_expression, source


class _ModelCallRule(Rule):
    """`<estimator>.<method>(...)` of an estimator unit -> the code `replacement` returns, if the unit migrates."""

    node_types = (cst.Call,)
    method: str
    replaced_by: str  # for the report

    def leave(self, original: cst.Call, updated: cst.Call, ctx):
        estimator = ctx.facts.estimator_for_model_call(original)
        if estimator is None or original.func.attr.value != self.method:
            return updated
        if not estimator.migratable:
            ctx.todo(original, self.rule_id, estimator.kept_note)
            return updated
        kwargs, _ = keyword_args(updated)
        message = f"{estimator.variable}.{self.method}(...) -> {self.replaced_by}"
        ctx.record(original, self.rule_id, True, message)
        dataset = dataset_expression(kwargs["input_fn"])
        return cst.parse_expression(self.replacement(estimator, dataset, kwargs, ctx))

    def replacement(self, estimator, dataset: str, kwargs: dict, ctx) -> str:  # pragma: no cover - interface
        raise NotImplementedError


@register
class EstimatorEvaluateRule(_ModelCallRule):
    rule_id = "estimator-evaluate"
    method = "evaluate"
    replaced_by = "compat.estimator_evaluation.evaluate (the head's metrics, same keys)"

    def replacement(self, estimator, dataset, kwargs, ctx):
        ctx.need_import("os")
        module = "model_fns" if estimator.custom else "estimator_evaluation"  # model_fn's EVAL path, or the head's
        ctx.need_import("compat", module)
        steps = f", steps={source(kwargs['steps'])}" if "steps" in kwargs else ""
        summary_dir = f'os.path.join({source(estimator.model_dir)}, "eval")'
        return f"{module}.evaluate({estimator.variable}, {dataset}{steps}, summary_dir={summary_dir})"


@register
class EstimatorPredictRule(_ModelCallRule):
    rule_id = "estimator-predict"
    method = "predict"
    replaced_by = "compat.estimator_prediction.predict (the head's predictions, same keys)"

    def replacement(self, estimator, dataset, kwargs, ctx):
        module = "model_fns" if estimator.custom else "estimator_prediction"  # model_fn's PREDICT path, or the head's
        ctx.need_import("compat", module)
        options = "".join(
            f", {key}={source(kwargs[key])}" for key in ("predict_keys", "yield_single_examples") if key in kwargs
        )
        return f"{module}.predict({estimator.variable}, {dataset}{options})"
