"""A RunConfig shared by a migrated and a kept estimator: the kept one gets a copy of its own.

    CONFIG = tf.estimator.RunConfig(save_checkpoints_steps=50)
    linear = tf.estimator.LinearClassifier(..., config=CONFIG)      (the run-time tier's)
    pinned = PinnedEstimator(model_fn, config=CONFIG)               (kept: no TensorFlow 2 form)
        ->
    CONFIG = estimator_training.TrainingConfig(save_checkpoints_steps=50)
    linear = estimator_training.configure(config=CONFIG, model=canned.linear_classifier(...))
    # TODO(migrate): shared-run-config: ...
    pinned = PinnedEstimator(model_fn, config=tf.estimator.RunConfig(save_checkpoints_steps=50))

codemods/runtime_tier.py (`_shared`) decides where the copy gives the kept estimator the same settings: the
RunConfig assigned once, its arguments literals and names the kept constructor sees as the RunConfig did.
"""

import libcst as cst

from codemods.registry import Rule, register


@register
class SharedRunConfigRule(Rule):
    rule_id = "shared-run-config"
    node_types = (cst.Call,)

    def interested(self, node, ctx) -> bool:
        return id(node) in ctx.facts.runtime.config_copies

    def leave(self, original, updated, ctx):
        copy = ctx.facts.runtime.config_copies.get(id(original))
        if copy is None:
            return updated
        argument, runconfig = copy
        index = next(i for i, arg in enumerate(original.args) if id(arg) == argument)
        name = original.args[index].value.value
        ctx.todo(original, self.rule_id, f"this estimator stays TF1 and gets a copy of the RunConfig `{name}` it shared "
                 f"with an estimator the rewrite migrated, whose TrainingConfig `{name}` now is: TensorFlow >= 2.16 "
                 "has no tf.estimator; migrate this one too, or run it with TensorFlow 2.15 and tensorflow-estimator")
        args = list(updated.args)
        args[index] = args[index].with_changes(value=runconfig)
        return updated.with_changes(args=args)
