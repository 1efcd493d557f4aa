"""`tf.estimator.LoggingTensorHook`, `tf.estimator.SessionRunArgs`, `tf.train.SessionRunHook`, ... left in the
output -> `tf.compat.v1.train.*`, in both targets.

tf.estimator's hooks, session-run classes, SecondOrStepTimer and VocabInfo were the same objects as
tf.compat.v1.train's (checked in TensorFlow 2.15: `tf.estimator.X is tf.compat.v1.train.X` for each name
below), and TF2's `tf.train` never had them. TensorFlow >= 2.16 has no `tf.estimator` (nor
`tf.compat.v1.estimator`), so code the rewrite keeps (a hook running with a model_fn kept as written, a
LoggingTensorHook in its training_hooks, a timer) would fail on its first line; spelled `tf.compat.v1.train.*`
it runs. Rules replacing such a node (a hook migrated to a callback) see the original node and replace it whole.
"""

import libcst as cst

from codemods.registry import Rule, register

SESSION_RUN_NAMES = (
    "CheckpointSaverHook", "CheckpointSaverListener", "FeedFnHook", "FinalOpsHook", "GlobalStepWaiterHook",
    "LoggingTensorHook", "NanLossDuringTrainingError", "NanTensorHook", "ProfilerHook", "SecondOrStepTimer",
    "SessionRunArgs", "SessionRunContext", "SessionRunHook", "SessionRunValues", "StepCounterHook",
    "StopAtStepHook", "SummarySaverHook", "VocabInfo",
)


def gone_from_tensorflow_2(api) -> bool:
    """Whether `api` (resolved) is one of these names spelled as TensorFlow >= 2.16 lacks it (tf.estimator's, or
    TF1's tf.train: TF2's never had them)."""
    namespace, name = api.path.rsplit(".", 1)
    return name in SESSION_RUN_NAMES and (namespace == "estimator" or (namespace == "train" and not api.v1))


@register
class SessionRunNamesRule(Rule):
    rule_id = "session-run-names"
    node_types = (cst.Attribute,)

    def interested(self, node, ctx) -> bool:
        return node.attr.value in SESSION_RUN_NAMES

    def leave(self, original: cst.Attribute, updated: cst.Attribute, ctx):
        if original.attr.value not in SESSION_RUN_NAMES:
            return updated
        if id(original) in ctx.facts.replaced_hook_nodes:
            return updated  # a hook becoming a callback: codemods/rules/session_run_hook.py replaces it whole
        api = ctx.resolver.api(original)
        if api is None:
            return updated
        if not gone_from_tensorflow_2(api):
            return updated
        name = api.path.rsplit(".", 1)[1]
        tf = ctx.need_tensorflow()
        if id(original) not in ctx.facts.runtime.session_hook_names:  # (those say where they run: unsupported_api)
            ctx.record(original, self.rule_id, True,
                       f"{name}: spelled {tf}.compat.v1.train.{name}, the same class, which TensorFlow >= 2.16 still has")
        return cst.parse_expression(f"{tf}.compat.v1.train.{name}")
