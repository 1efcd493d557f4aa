"""The Estimator APIs a migrated export or train_and_evaluate uses -> compat.estimator_export's, under the
same names and with the same arguments: `build_parsing_serving_input_receiver_fn`,
`build_raw_serving_input_receiver_fn`, `ServingInputReceiver`, `LatestExporter`, `FinalExporter`,
`BestExporter`
(codemods.export_apis says which migrate), and the placeholders that only describe a migrated raw receiver's
features -> `tf.TensorSpec`s (a migrated program builds no TF1 graph where they were made). The rest of a receiver function (placeholders, parsing) stays:
compat.estimator_export runs it as a TF1 graph, as Estimator did. Elsewhere they stay: an Estimator that is
kept still needs them.
"""

import libcst as cst

from codemods.export_apis import REPLACED, tensor_spec
from codemods.registry import Rule, register


@register
class ExportApiRule(Rule):
    rule_id = "export-api"
    node_types = (cst.Call,)

    def leave(self, original: cst.Call, updated: cst.Call, ctx):
        api = ctx.resolver.call_api(original)
        if api is None or api.path not in REPLACED:
            return updated
        if not _migrated(original, ctx):
            return updated
        ctx.need_compat("estimator_export")
        name = api.path.rsplit(".", 1)[1]
        ctx.record(original, self.rule_id, True, f"{name} -> compat.estimator_export.{name}")
        return updated.with_changes(func=cst.parse_expression(f"estimator_export.{name}"))


def _migrated(call: cst.Call, ctx) -> bool:
    return ctx.facts.migrated_export_api(call) or ctx.facts.runtime.kind(call) == "export_api"


@register
class ServingFeaturePlaceholderRule(Rule):
    rule_id = "export-api"
    node_types = (cst.Call,)

    def leave(self, original: cst.Call, updated: cst.Call, ctx):
        builder = ctx.facts.serving_placeholders.get(id(original))
        if builder is None or not _migrated(builder, ctx):
            return updated
        ctx.record(original, self.rule_id, True,
                   "placeholder describing a serving feature -> tf.TensorSpec (built outside a graph)")
        return tensor_spec(original)
