"""`config = RunConfig(...)` -> nothing left at that line but the random seed, if any.

The RunConfig's values live on where they act: `model_dir`, `save_checkpoints_steps`/`_secs`,
`keep_checkpoint_max`, `keep_checkpoint_every_n_hours` and `save_summary_steps` go into the checkpointing
code that the train rule writes for each estimator using this config (the expressions are carried over as
written, so flags keep working), and `tf_random_seed` becomes `seeding.set_graph_seed(seed)` here: TensorFlow's
global seed and the one tf_keras draws its layers' seeds from, so the run is reproducible as the Estimator's
was (numpy and Python's `random` stay untouched, as they were: compat/seeding.py). What has no TF2 counterpart and does not change what training computes is dropped, said in the
report (DROPPED).
"""

import libcst as cst

from codemods.api import ApiResolver
from codemods.facts import is_run_config_call
from codemods.registry import Rule, register
from codemods.syntax import single_assignment

# RunConfig argument -> why dropping it changes nothing that training computes, and what replaces it.
DROPPED = {
    "session_config": "session_config dropped (TF2 has no sessions; threads: tf.config.threading, "
    "devices: tf.config.set_visible_devices)",
    "log_step_count_steps": "log_step_count_steps dropped (Estimator's global_step/sec log lines; fit prints "
    "progress, and the loss goes to TensorBoard every save_summary_steps)",
    "protocol": "protocol dropped (a distributed session's; the migrated training runs in this process)",
    "session_creation_timeout_secs": "session_creation_timeout_secs dropped (a worker's wait for the chief's "
    "session; the migrated training runs in this process)",
    "experimental_max_worker_delay_secs": "experimental_max_worker_delay_secs dropped (non-chief workers' start "
    "delays; the migrated training runs in this process)",
    "checkpoint_save_graph_def": "checkpoint_save_graph_def dropped (whether graph.pbtxt and .meta graphs were "
    "written beside checkpoints; TF2 checkpoints hold no graph)",
    "device_fn": "device_fn=None dropped (Estimator's default)",
    "eval_distribute": "eval_distribute=None dropped (Estimator's default)",
    "experimental_distribute": "experimental_distribute=None dropped (Estimator's default)",
}


def is_run_config_statement(statement, resolver: ApiResolver) -> bool:
    assignment = single_assignment(statement)
    return assignment is not None and is_run_config_call(assignment[1], resolver)


@register
class RunConfigRule(Rule):
    rule_id = "runconfig-checkpointing"
    node_types = (cst.SimpleStatementLine,)

    def leave(self, original, updated, ctx):
        if not is_run_config_statement(original, ctx.resolver):
            return updated
        if ctx.facts.runtime.kind(single_assignment(original)[1]) == "config":
            return updated  # codemods/rules/estimator_runtime.py
        name = single_assignment(original)[0]
        config = ctx.facts.run_config_for_call(single_assignment(original)[1])
        users = [e for e in ctx.facts.estimators.values() if config is not None and e.config is config]
        if not users:
            ctx.todo(
                original,
                self.rule_id,
                f"RunConfig `{name}` is not passed to an estimator this module migrates; "
                "carry its checkpoint settings over by hand",
            )
            return updated
        # (an estimator of the run-time tier reads it as a TrainingConfig, which that tier writes when it takes it)
        blocked = [e.variable for e in users if not e.migratable]
        if blocked:
            ctx.todo(original, self.rule_id, f"kept: estimator(s) {', '.join(blocked)} not migrated")
            return updated
        seed = config.kwargs.get("tf_random_seed")
        ctx.record(
            original,
            self.rule_id,
            True,
            f"RunConfig `{name}` -> checkpoint settings of {', '.join(e.variable for e in users)}"
            + ("; tf_random_seed -> seeding.set_graph_seed" if seed is not None else "")
            + "".join(f"; {note}" for key, note in DROPPED.items() if key in config.kwargs),
        )
        if seed is None:
            return cst.RemovalSentinel.REMOVE
        ctx.need_compat("seeding")
        call = cst.Expr(cst.Call(func=cst.parse_expression("seeding.set_graph_seed"), args=[cst.Arg(seed)]))
        return updated.with_changes(body=[call])
