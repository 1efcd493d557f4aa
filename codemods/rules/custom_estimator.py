"""Custom `Estimator(model_fn=f, params=p, model_dir, config)` -> `F(params=p)`, and `def f` -> `class F`.

The model_fn becomes a `compat.model_fns.EstimatorModel` subclass (codemods/model_fns.py: which shapes, and
why others are kept); `model_dir` and `config` move to the checkpointing code of the train calls, as for
canned estimators, so the migrated model trains with the same checkpoints, cadence and hooks.
"""

import libcst as cst

from codemods.model_fn_paths import path_methods
from codemods.model_fns import class_code, keras_optimizer_code
from codemods.optimizers import need_optimizer_module
from codemods.registry import Rule, register
from codemods.rules.tf1_names import respelled
from codemods.templates import statements


@register
class ModelFnRule(Rule):
    rule_id = "custom-model-fn"
    node_types = (cst.FunctionDef,)

    def leave(self, original, updated, ctx):
        estimator = ctx.facts.migrated_model_fn(original)
        if estimator is None:
            return updated
        shape, paths = estimator.model_fn, estimator.model_fn_paths
        optimizer, module = keras_optimizer_code(shape, ctx.resolver)
        need_optimizer_module(ctx, module)
        ctx.need_import("tf_keras")
        ctx.need_compat("model_fns")
        ctx.record(
            original,
            self.rule_id,
            True,
            f"model_fn {original.name.value} -> class {shape.class_name}(compat.model_fns.EstimatorModel): network "
            "in call, loss in compute_loss, optimizer compiled in"
            + "".join(f", its {mode} path in {mode}_step" for mode, used in (("evaluation", "evaluate"), ("prediction", "predict")) if used in paths)
            + "; an Estimator's model_dir converts with "
            "compat.model_fns.convert_estimator_checkpoint"
            + (f"; not carried over: the training summaries {', '.join(shape.summaries)} (TensorBoard only)"
               if shape.summaries else "")
            + ("; its training_hooks' NanTensorHook(loss) is the check Estimator ran before them, which the "
               "migrated training runs too" if shape.nan_check_hook else ""),
        )
        methods = path_methods(shape, paths.get("evaluate"), paths.get("predict"))
        # (the class is written from the model_fn's statements as parsed: its TF 1.x names are respelled here)
        new = [respelled(statement, ctx) for statement in
               statements(class_code(shape, optimizer, methods, distributed=estimator.train_strategy is not None))]
        new[0] = new[0].with_changes(leading_lines=[*updated.leading_lines, *new[0].leading_lines])
        return cst.FlattenSentinel(new)


@register
class CustomEstimatorRule(Rule):
    rule_id = "custom-estimator"
    node_types = (cst.Call,)

    def leave(self, original, updated, ctx):
        estimator = ctx.facts.estimator_for_call(original)
        if estimator is None or not estimator.custom or not estimator.migratable:
            return updated  # kept ones get their TODOs from the canned-estimator rule
        ctx.record(
            original,
            self.rule_id,
            True,
            f"Estimator(model_fn={estimator.model_fn.function.name.value}) -> {estimator.model_fn.class_name}"
            "(params=...): model_dir and config go to the train calls' checkpointing",
        )
        original_params = estimator.kwargs.get("params")
        kept = [
            updated_arg.with_changes(keyword=cst.Name("params"), equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
            for original_arg, updated_arg in zip(original.args, updated.args)
            if original_params is not None and original_arg.value is original_params
        ]
        if kept:
            kept[-1] = kept[-1].with_changes(comma=updated.args[-1].comma)
        return updated.with_changes(func=cst.Name(estimator.model_fn.class_name), args=kept)
