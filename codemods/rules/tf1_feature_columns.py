"""`shared_embedding_columns(...)` of TensorFlow 1.x -> `tf1_feature_columns.shared_embedding_columns(...)`.

TF1's function refuses eager execution, in which a migrated program's main code now runs (compat.wrapped_model_fns
reads the columns in each mode's graph, as Estimator did); compat.tf1_feature_columns makes the same columns in a
graph of their own (they hold no graph state). The arguments are carried over as written.
"""

import libcst as cst

from codemods.registry import Rule, register

_SHARED = "feature_column.shared_embedding_columns"


@register
class Tf1FeatureColumnsRule(Rule):
    rule_id = "tf1-feature-columns"
    node_types = (cst.Call,)

    def leave(self, original: cst.Call, updated: cst.Call, ctx):
        api = ctx.resolver.call_api(original)
        if api is None or api.path != _SHARED:
            return updated
        ctx.need_compat("tf1_feature_columns")
        ctx.record(original, self.rule_id, True, "shared_embedding_columns -> compat.tf1_feature_columns' (TF1's "
                   "columns, made in a graph of their own: TF1's function refuses eager execution)")
        return updated.with_changes(func=cst.parse_expression("tf1_feature_columns.shared_embedding_columns"))
