"""`estimator.evaluate(...)`, `estimator.predict(...)` and `estimator.export_saved_model(...)` ->
`compat.estimator_evaluation.evaluate` / `compat.estimator_prediction.predict` /
`compat.estimator_export.export_saved_model` on the migrated model: the same metrics dict, the same
per-example prediction dicts under the same keys, a SavedModel with the same signatures.

Only after the estimator's `train(...)` in the same or an enclosing block (`codemods.facts`): the Estimator
used the latest checkpoint in model_dir, which is then the model in memory. Evaluation metrics are also
written to `model_dir/eval`, as Estimator did.
"""

import libcst as cst

from codemods.facts import model_call_arguments
from codemods.registry import Rule, register
from codemods.templates import dataset_expression, source


class _ModelCallRule(Rule):
    """`<estimator>.<method>(...)` of an estimator unit -> the code `replacement` returns, if the unit migrates."""

    node_types = (cst.Call,)
    methods: tuple[str, ...]
    replaced_by: str  # for the report

    def leave(self, original: cst.Call, updated: cst.Call, ctx):
        estimator = ctx.facts.estimator_for_model_call(original)
        if estimator is None or original.func.attr.value not in self.methods:
            return updated
        if estimator.runtime:
            return updated  # codemods/rules/estimator_runtime.py
        if not estimator.migratable:
            ctx.todo(original, self.rule_id, estimator.kept_note)
            return updated
        message = f"{estimator.variable}.{original.func.attr.value}(...) -> {self.replaced_by}"
        ctx.record(original, self.rule_id, True, message)
        return self.rewrite(estimator, updated, ctx)

    def rewrite(self, estimator, call: cst.Call, ctx) -> cst.BaseExpression:
        """The migrated call, by default `replacement`'s code for the call's arguments."""
        kwargs, _ = model_call_arguments(call)
        return cst.parse_expression(self.replacement(estimator, kwargs, ctx))

    def replacement(self, estimator, kwargs: dict, ctx) -> str:  # pragma: no cover - interface
        raise NotImplementedError


@register
class EstimatorEvaluateRule(_ModelCallRule):
    rule_id = "estimator-evaluate"
    methods = ("evaluate",)
    replaced_by = "compat.estimator_evaluation.evaluate (the head's metrics, same keys)"

    def replacement(self, estimator, kwargs, ctx):
        ctx.need_import("os")
        module = "model_fns" if estimator.custom else "estimator_evaluation"  # model_fn's EVAL path, or the head's
        ctx.need_compat(module)
        steps = f", steps={source(kwargs['steps'])}" if "steps" in kwargs else ""
        summary_dir = f'os.path.join({source(estimator.model_dir)}, "eval")'
        dataset = dataset_expression(kwargs["input_fn"])
        return f"{module}.evaluate({estimator.variable}, {dataset}{steps}, summary_dir={summary_dir})"


@register
class EstimatorPredictRule(_ModelCallRule):
    rule_id = "estimator-predict"
    methods = ("predict",)
    replaced_by = "compat.estimator_prediction.predict (the head's predictions, same keys)"

    def replacement(self, estimator, kwargs, ctx):
        module = "model_fns" if estimator.custom else "estimator_prediction"  # model_fn's PREDICT path, or the head's
        ctx.need_compat(module)
        options = "".join(
            f", {key}={source(kwargs[key])}" for key in ("predict_keys", "yield_single_examples") if key in kwargs
        )
        return f"{module}.predict({estimator.variable}, {dataset_expression(kwargs['input_fn'])}{options})"


@register
class EstimatorExportRule(_ModelCallRule):
    """The call keeps its arguments and their layout: the model goes first, strip_default_attrs= is dropped
    (TF2 SavedModels strip default attributes anyway)."""

    rule_id = "estimator-export"
    methods = ("export_saved_model", "export_savedmodel")
    replaced_by = "compat.estimator_export.export_saved_model (the head's signatures, same names)"

    def rewrite(self, estimator, call: cst.Call, ctx) -> cst.BaseExpression:
        ctx.need_compat("estimator_export")
        arguments = [a for a in call.args if a.keyword is None or a.keyword.value != "strip_default_attrs"]
        comma = arguments[0].comma if isinstance(arguments[0].comma, cst.Comma) else cst.Comma(cst.SimpleWhitespace(" "))
        model = cst.Arg(cst.Name(estimator.variable), comma=comma)
        last = arguments[-1].with_changes(comma=call.args[-1].comma)  # a trailing comma stays
        return call.with_changes(
            func=cst.parse_expression("estimator_export.export_saved_model"), args=[model, *arguments[:-1], last]
        )
