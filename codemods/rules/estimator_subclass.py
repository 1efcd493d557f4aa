"""`class MyModel(tf.estimator.Estimator)` whose constructor only hands Estimator's its model_fn and settings ->
`class MyModel(wrapped_model_fns.Estimator)`, in both targets.

Projects wrapped their custom model_fn in a class of their own (`super().__init__(model_fn=self._model_fn,
model_dir=..., config=..., params=...)`). compat.wrapped_model_fns.Estimator takes the same constructor and
is a wrapped model_fn (tier 2), so the class, its constructor and its callers stay as written; the run-time
tier migrates the calls of its instances (`estimator_training.train(model, ...)`). A subclass defining one
of Estimator's own attributes (codemods/project/facts.py ESTIMATOR_ATTRIBUTES: `_call_model_fn`, `train`,
`model_fn`, ...) changes how the Estimator works, and is kept with a TODO; so is every subclass of a
project whose run-time tier is off (an estimator there stays TF1).
"""

import libcst as cst

from codemods.project.facts import ESTIMATOR_ATTRIBUTES
from codemods.registry import Rule, register

ESTIMATOR = "estimator.Estimator"


@register
class EstimatorSubclassRule(Rule):
    rule_id = "estimator-subclass"
    node_types = (cst.ClassDef,)

    def leave(self, original: cst.ClassDef, updated: cst.ClassDef, ctx):
        apis = [ctx.resolver.api(base.value) for base in original.bases]
        if not any(api is not None and api.path == ESTIMATOR for api in apis):
            return updated
        name = original.name.value
        overridden = sorted(ESTIMATOR_ATTRIBUTES.intersection(_members(original)))
        if len(original.bases) != 1 or original.keywords or overridden:
            why = f"defines {', '.join(overridden)}" if overridden else "has other bases or class keywords"
            ctx.todo(original, self.rule_id, f"kept: {name}, a subclass of tf.estimator.Estimator, {why}, which "
                     "changes how the Estimator works; only a subclass whose constructor hands Estimator's its "
                     "model_fn and settings migrates", statement=original)
            return updated
        if ctx.facts.runtime.blocked_by:
            ctx.todo(original, self.rule_id, f"kept: {name} is migrated with the estimators of this project that "
                     f"stay TF1 ({'; '.join(ctx.facts.runtime.blocked_by)})", statement=original)
            return updated
        ctx.need_compat("wrapped_model_fns")
        ctx.record(original, self.rule_id, True, f"{name}(tf.estimator.Estimator) -> {name}(compat.wrapped_model_fns."
                   "Estimator): the same constructor; its model_fn is wrapped as written (tier 2)")
        base = updated.bases[0].with_changes(value=cst.parse_expression("wrapped_model_fns.Estimator"))
        return updated.with_changes(bases=[base])


def _members(node: cst.ClassDef) -> list[str]:
    """The names the class body defines (methods, attributes)."""
    names = []
    for statement in node.body.body:
        if isinstance(statement, cst.FunctionDef | cst.ClassDef):
            names.append(statement.name.value)
        elif isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else \
                    [small.target] if isinstance(small, cst.AnnAssign | cst.AugAssign) else []
                names += [target.value for target in targets if isinstance(target, cst.Name)]
    return names
