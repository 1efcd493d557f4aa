"""The Estimator names a wrapped model_fn's code uses -> the compat ones (tier 2, codemods/runtime_tier.py).

A model_fn kept as written still compares `mode` with `tf.estimator.ModeKeys.TRAIN` and returns
`tf.estimator.EstimatorSpec(...)`; TensorFlow >= 2.16 has neither. Where the run-time tier is on (the
project keeps no estimator TF1), `ModeKeys` becomes `estimator_training.ModeKeys` (the same strings, also
for input_fns taking `mode`) and `EstimatorSpec` becomes `wrapped_model_fns.EstimatorSpec` (the same fields
and checks), which compat.wrapped_model_fns reads; `tf.estimator.export.PredictOutput` (and the
Classification/Regression outputs) in its export_outputs become wrapped_model_fns' twins, the signatures an
export of the wrapped model_fn has (compat.estimator_export); `tf.estimator.Exporter`, the base of a program's own
exporters, becomes compat.estimator_export's, which train_and_evaluate calls as Estimator did.
"""

import libcst as cst

from codemods.registry import Rule, register
from codemods.runtime_tier import tpu_name

REPLACEMENTS = {
    "estimator.ModeKeys": ("estimator_training", "ModeKeys"),
    "estimator.EstimatorSpec": ("wrapped_model_fns", "EstimatorSpec"),
    "estimator.WarmStartSettings": ("estimator_training", "WarmStartSettings"),
    # the base of a program's own EvalSpec exporters (a best-checkpoint copier, a results writer)
    "estimator.Exporter": ("estimator_export", "Exporter"),
    **{f"estimator.export.{name}": ("wrapped_model_fns", name)
       for name in ("PredictOutput", "ClassificationOutput", "RegressionOutput")},
}
# The TPU estimator API's values a TPUEstimator program builds (compat/tpu_estimators.py)
TPU_REPLACEMENTS = ("TPUEstimatorSpec", "TPUConfig", "InputPipelineConfig")
NAMES = {path.rsplit(".", 1)[1] for path in REPLACEMENTS} | set(TPU_REPLACEMENTS)


@register
class WrappedModelFnNamesRule(Rule):
    rule_id = "wrapped-model-fn"
    node_types = (cst.Attribute,)

    def interested(self, node, ctx) -> bool:
        return node.attr.value in NAMES and (not ctx.facts.runtime.blocked_by or bool(_own_model_fns(ctx)))

    def leave(self, original: cst.Attribute, updated: cst.Attribute, ctx):
        if original.attr.value not in NAMES:
            return updated
        if ctx.facts.runtime.blocked_by and not any(id(s) in _own_model_fns(ctx) for s in ctx.statement_stack):
            return updated  # the module keeps an estimator TF1: only a model_fn nothing else runs changes
        if any(isinstance(s, cst.FunctionDef) and ctx.facts.migrated_model_fn(s) is not None
               for s in ctx.statement_stack):
            return updated  # inside a model_fn tier 1 replaces with a class
        api = ctx.resolver.api(original)
        if api is not None and tpu_name(api.path) in TPU_REPLACEMENTS:
            module, name = "tpu_estimators", tpu_name(api.path)
        elif api is not None and api.path in REPLACEMENTS:
            module, name = REPLACEMENTS[api.path]
        else:
            return updated
        ctx.need_compat(module)
        ctx.record(original, self.rule_id, True, f"{api.path} -> compat.{module}.{name}")
        return cst.parse_expression(f"{module}.{name}")


def _own_model_fns(ctx) -> set[int]:
    """The ids of the model_fns the run-time tier wraps that nothing else runs (codemods/runtime_tier.py)."""
    runtime = ctx.facts.runtime
    return {id(function) for call, function in runtime.own_model_fns.items() if call in runtime.calls}
