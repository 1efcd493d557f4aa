"""`tf.estimator` handed to a function (`getattr(tf.estimator, name)`, `hasattr(tf.estimator, "BestExporter")`)
-> kept, with a TODO.

The rewrite follows names: `tf.estimator.DNNClassifier(...)` is a construct it migrates or speaks for. The
module itself handed to code (an estimator class picked by a flag, a version test) names nothing it can
follow, and TensorFlow >= 2.16 has no `tf.estimator`: that line would fail when run, with no word from the
rewrite. Where a project keeps its estimators TF1, its `tf.estimator` stays by design and says nothing here.
(An alias, `tf_estimator = tf.estimator`, is followed by codemods/api.py: it is not flagged.)
"""

import libcst as cst

from codemods.registry import Rule, register

MESSAGE = ("tf.estimator used as a value (TensorFlow >= 2.16 has none): name the class or function it reaches "
           "(compat.estimator_training, compat.canned, compat.estimator_export have the migrated ones), or drop "
           "the test for it")


@register
class DynamicEstimatorAccessRule(Rule):
    rule_id = "estimator-value"
    node_types = (cst.Call,)

    def leave(self, original: cst.Call, updated: cst.Call, ctx):
        for arg in original.args:  # getattr(tf.estimator, name), hasattr(tf.estimator, "BestExporter"), f(tf.estimator)
            value = arg.value
            if isinstance(value, cst.Attribute) and value.attr.value == "estimator" and not ctx.facts.runtime.blocked_by:
                api = ctx.resolver.api(value)
                if api is not None and api.path == "estimator":
                    ctx.todo(value, self.rule_id, MESSAGE)
        return updated
