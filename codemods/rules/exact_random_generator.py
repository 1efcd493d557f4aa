"""With `--exact`: dropout must draw from a `tf.random.Generator`, whose state a checkpoint can hold.

tf_keras layers use TensorFlow's global stateful RNG unless `enable_tf_random_generator()` was called
before they were built; `compat.exact` refuses a model on the global RNG. The call goes right before each
migrated estimator's constructor (where the model is built): the statement assigning it (tier 1), or any
statement that builds a canned estimator of the run-time tier (`return tf.estimator.DNNClassifier(...)` in
a factory too).
"""

import libcst as cst

from codemods.registry import Rule, register
from codemods.syntax import fast_visit, single_assignment
from codemods.templates import statements

_ENABLE = """
# Exact resume: dropout draws from tf.random.Generator objects, which the checkpoint holds.
tf_keras.backend.experimental.enable_tf_random_generator()
"""


@register
class ExactRandomGeneratorRule(Rule):
    rule_id = "exact-random-generator"
    node_types = (cst.SimpleStatementLine,)

    def leave(self, original, updated, ctx):
        if not ctx.exact or not (_builds_migrated_estimator(original, ctx) or _builds_runtime_model(original, ctx)):
            return updated
        ctx.need_import("tf_keras")
        ctx.record(original, self.rule_id, True, "dropout draws from checkpointed tf.random.Generator objects")
        ctx.put_before(original, statements(_ENABLE))
        return updated


def _builds_migrated_estimator(statement, ctx) -> bool:
    """`name = <constructor>` of an estimator tier 1 rewrites."""
    assignment = single_assignment(statement)
    estimator = ctx.facts.estimator_for_call(assignment[1]) if assignment else None
    return estimator is not None and estimator.call is assignment[1] and estimator.migratable


class _CannedCalls(cst.CSTVisitor):
    def __init__(self, canned: set[int]):
        self.canned, self.found = canned, False

    def visit_Call(self, node):
        self.found = self.found or id(node) in self.canned


def _builds_runtime_model(statement, ctx) -> bool:
    """Whether the statement builds a canned estimator of the run-time tier (a compat.canned model)."""
    canned = {key for key, kind in ctx.facts.runtime.calls.items() if kind == "canned"}
    if not canned:
        return False
    visitor = _CannedCalls(canned)
    fast_visit(statement, visitor)
    return visitor.found
