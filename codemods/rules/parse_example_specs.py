"""`tf.estimator.classifier_parse_example_spec(...)` / `regressor_parse_example_spec(...)` ->
`parsing_specs.<the same>(...)` (compat/parsing_specs.py), the same arguments.

Input code calls them to parse a canned estimator's tf.Example records (features, label, weight); TensorFlow >=
2.16 has no tf.estimator, so the line would stop the program. The compat functions return the same specs.
"""

import libcst as cst

from codemods.registry import Rule, register

PARSE_SPECS = {
    f"{module}.{name}": name
    for module in ("estimator", "python.estimator.canned.parsing_utils")
    for name in ("classifier_parse_example_spec", "regressor_parse_example_spec")
}


@register
class ParseExampleSpecRule(Rule):
    rule_id = "parse-example-spec"
    node_types = (cst.Call,)

    def leave(self, original: cst.Call, updated: cst.Call, ctx):
        api = ctx.resolver.call_api(original)
        if api is None or api.path not in PARSE_SPECS:
            return updated
        name = PARSE_SPECS[api.path]
        ctx.need_compat("parsing_specs")
        ctx.record(original, self.rule_id, True, f"{name} -> compat.parsing_specs.{name} (the same parsing spec)")
        return updated.with_changes(func=cst.parse_expression(f"parsing_specs.{name}"))
