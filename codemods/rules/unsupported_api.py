"""TF1 APIs the rewrite does not migrate (yet, or ever): kept as they are, with what to do by hand.

Without this a program using them would come out unchanged and unreported, as if nothing were left to
do. Each call to one of these APIs gets a `TODO(migrate)` on its statement and a report entry. Except in TF1
graph code kept as written (a module running no migrated, eager, code): there a MonitoredTrainingSession or a
CheckpointSaverHook runs as it ran, through compat.graph_sessions, which adds saving on preemption.
"""

import libcst as cst

from codemods.guidance import GUIDANCE, HOOKS, RUNS_WITH_ANY_MODEL, RUNS_WITH_WRAPPED, SAVER_HOW, SESSION_HOW
from codemods.registry import Rule, register
from codemods.rules.session_run_names import gone_from_tensorflow_2
from codemods.runtime_tier import CONVERTED_SESSION_HOOKS

# Kept as TF1 graph code, they run as they ran (compat.graph_sessions adds saving on preemption)
_SAVER_HOOKS = ("train.CheckpointSaverHook", "estimator.CheckpointSaverHook")
MODEL_FN_SAVER = (
    "tf.compat.v1.train.Saver in a model_fn kept as written: runs against the model's variables by their TF1 names "
    "(a Scaffold init_fn's `saver.restore(session, path)` fills them when they are made, as Estimator ran it when no "
    "checkpoint existed)"
)
RUNS_IN_GRAPH_CODE = (
    "{name}: runs as it is (tf.compat.v1.train.{name}, TF1's class) in TF1 graph code kept as written, given to its "
    "MonitoredSession as it was"
)


@register
class UnsupportedApiRule(Rule):
    rule_id = "unsupported-api"
    node_types = (cst.Call,)

    def leave(self, original, updated, ctx):
        api = ctx.resolver.call_api(original)
        if ctx.facts.runtime.kind(original) == "session_hook" and not ctx.facts.migrated_builtin_hook(original):
            if gone_from_tensorflow_2(api):  # spelled tf.compat.v1's by codemods/rules/session_run_names.py
                ctx.record(original, self.rule_id, True, RUNS_WITH_ANY_MODEL if api.path in CONVERTED_SESSION_HOOKS
                           else RUNS_WITH_WRAPPED.format(name=api.path.rsplit(".", 1)[1]))
            return updated  # TF1's class, spelled as TensorFlow 2 has it: nothing to do
        if ctx.facts.runtime.kind(original) == "model_fn_saver":
            ctx.record(original, self.rule_id, True, MODEL_FN_SAVER)
            return updated
        if (
            ctx.facts.training(original) is not None
            or ctx.facts.migrated_builtin_hook(original)
            or ctx.facts.migrated_export_api(original)
            or ctx.facts.migrated_saver_hook(original)
            or id(original) in ctx.facts.monitored_loop_calls
            or ctx.facts.runtime.kind(original) is not None
        ):
            return updated  # train_and_evaluate of a canned estimator, a hook or exporter it carries over: other rules
        estimator = ctx.facts.estimator_for_call(original)
        if estimator is not None and estimator.migratable:
            return updated  # a custom Estimator migrated by codemods/rules/custom_estimator.py
        if api is not None and api.path == "tpu.CrossShardOptimizer" and api.v1 and not ctx.facts.runtime.blocked_by:
            # TensorFlow 2's tf.compat.v1.tpu.CrossShardOptimizer is TF1's, in a model_fn the run-time tier
            # wraps as written; a migrated TPUEstimator refuses use_tpu=True, the only way it ran (on CPU its
            # cross-replica sum had no kernel in TensorFlow 1.x either)
            return updated
        if api is not None and api.path == "train.MonitoredTrainingSession" and not _runs_eagerly(ctx.facts):
            return _kept_session(original, updated, ctx, self.rule_id)
        if api is not None and api.path in _SAVER_HOOKS and ctx.facts.graph_code and not _runs_eagerly(ctx.facts):
            ctx.need_compat("graph_sessions")
            ctx.record(original, self.rule_id, True,
                       "CheckpointSaverHook of TF1 graph code kept as written: compat.graph_sessions.CheckpointSaverHook, "
                       "the same hook (same saves), which also saves a checkpoint and exits 75 on SIGTERM / SIGINT")
            return updated.with_changes(func=cst.parse_expression("graph_sessions.CheckpointSaverHook"))
        if api is not None and api.path in GUIDANCE:
            message = GUIDANCE[api.path]
            namespace, _, name = api.path.partition(".")
            if name in HOOKS and namespace in ("train", "estimator") and not api.v1:
                # TensorFlow 2 has TF1's hook classes under tf.compat.v1.train only (tf.estimator's were aliases)
                updated = updated.with_changes(func=cst.parse_expression(f"{ctx.need_tensorflow()}.compat.v1.train.{name}"))
            if name in HOOKS and namespace in ("train", "estimator") and ctx.facts.graph_code \
                    and not _runs_eagerly(ctx.facts):
                if not api.v1:  # respelled above (tf.compat.v1's, as a second rewrite finds it: nothing to report)
                    ctx.record(original, self.rule_id, True, RUNS_IN_GRAPH_CODE.format(name=name))
                return updated
            why = ctx.facts.sessions.get(id(original))  # a MonitoredTrainingSession's reasons
            if why is not None:
                message = f"MonitoredTrainingSession: {'; '.join(why)}; {SESSION_HOW}"
            why = ctx.facts.saver_sessions.get(id(original))  # those of the tf.Session loop saving with a Saver
            if why is not None:
                message = f"tf.Session loop saving with this Saver: {'; '.join(why)}; {SAVER_HOW}"
            ctx.todo(original, self.rule_id, message)
            if estimator is None:  # (a unit's own reasons are the estimator rules')
                for problem in ctx.facts.runtime.constructor_problems.get(id(original), ()):
                    ctx.todo(original, self.rule_id, problem)
        return updated


def _runs_eagerly(facts) -> bool:
    """Whether the module runs code of the migrated runtime, which is eager (as codemods/rules/tf1_behavior)."""
    return bool(facts.estimators or facts.runtime.calls or facts.migrated_sessions())


def _kept_session(original: cst.Call, updated: cst.Call, ctx, rule_id: str) -> cst.Call:
    """A MonitoredTrainingSession in no migrated loop shape, in TF1 graph code: the same session, through
    compat.graph_sessions, which also saves on preemption (and says so when the program is not in graph mode)."""
    why = ctx.facts.sessions.get(id(original))
    kept = f" ({'; '.join(why)})" if why else ""
    ctx.need_compat("graph_sessions")
    ctx.record(original, rule_id, True,
               f"MonitoredTrainingSession kept as TF1 graph code{kept}: compat.graph_sessions."
               "monitored_training_session, the same session in the graph mode the program runs in (a clear error "
               "otherwise), which also saves a checkpoint and exits 75 on SIGTERM / SIGINT")
    return updated.with_changes(func=cst.parse_expression("graph_sessions.monitored_training_session"))
