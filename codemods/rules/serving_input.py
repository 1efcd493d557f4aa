"""The Estimator APIs a migrated export's serving input receiver uses -> compat.estimator_export's, under
the same names: `build_parsing_serving_input_receiver_fn`, `build_raw_serving_input_receiver_fn` and
`ServingInputReceiver` (codemods.serving_inputs says which receivers migrate). The rest of a receiver
function (placeholders, parsing) stays: compat.estimator_export runs it as a TF1 graph, as Estimator did.
Elsewhere they stay: an Estimator that is kept still needs them.
"""

import libcst as cst

from codemods.registry import Rule, register
from codemods.serving_inputs import REPLACED


@register
class ServingInputRule(Rule):
    rule_id = "serving-input"
    node_types = (cst.Call,)

    def leave(self, original: cst.Call, updated: cst.Call, ctx):
        api = ctx.resolver.call_api(original)
        if api is None or api.path not in REPLACED or not ctx.facts.migrated_serving_input(original):
            return updated
        ctx.need_import("compat", "estimator_export")
        name = api.path.rsplit(".", 1)[1]
        ctx.record(original, self.rule_id, True, f"{name} -> compat.estimator_export.{name}")
        return updated.with_changes(func=cst.parse_expression(f"estimator_export.{name}"))
