"""The Estimator APIs a migrated export or train_and_evaluate uses -> compat.estimator_export's, under the
same names and with the same arguments: `build_parsing_serving_input_receiver_fn`,
`build_raw_serving_input_receiver_fn`, `ServingInputReceiver`, `LatestExporter`, `FinalExporter`,
`BestExporter`
(codemods.export_apis says which migrate). The rest of a receiver function (placeholders, parsing) stays:
compat.estimator_export runs it as a TF1 graph, as Estimator did. Elsewhere they stay: an Estimator that is
kept still needs them.
"""

import libcst as cst

from codemods.export_apis import REPLACED
from codemods.registry import Rule, register


@register
class ExportApiRule(Rule):
    rule_id = "export-api"
    node_types = (cst.Call,)

    def leave(self, original: cst.Call, updated: cst.Call, ctx):
        api = ctx.resolver.call_api(original)
        if api is None or api.path not in REPLACED:
            return updated
        if not ctx.facts.migrated_export_api(original) and ctx.facts.runtime.kind(original) != "export_api":
            return updated
        ctx.need_compat("estimator_export")
        name = api.path.rsplit(".", 1)[1]
        ctx.record(original, self.rule_id, True, f"{name} -> compat.estimator_export.{name}")
        return updated.with_changes(func=cst.parse_expression(f"estimator_export.{name}"))
