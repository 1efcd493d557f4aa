"""With `--exact`: dropout must draw from a `tf.random.Generator`, whose state a checkpoint can hold.

tf_keras layers use TensorFlow's global stateful RNG unless `enable_tf_random_generator()` was called
before they were built; `compat.exact` refuses a model on the global RNG. The call goes right before each
migrated estimator's constructor (where the model is built).
"""

import libcst as cst

from codemods.registry import Rule, register
from codemods.syntax import single_assignment
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
        assignment = single_assignment(original)
        if not ctx.exact or assignment is None:
            return updated
        estimator = ctx.facts.estimators.get(assignment[0])
        if estimator is None or estimator.call is not assignment[1] or not estimator.migratable:
            return updated
        ctx.need_import("tf_keras")
        ctx.record(original, self.rule_id, True, "dropout draws from checkpointed tf.random.Generator objects")
        enable = statements(_ENABLE)
        enable[0] = enable[0].with_changes(leading_lines=[*updated.leading_lines, *enable[0].leading_lines])
        return cst.FlattenSentinel([*enable, updated.with_changes(leading_lines=[])])
