"""`est = <canned estimator>(..., config=RunConfig(train_distribute=strategy))` -> the model built under
`strategy.scope()`.

The Estimator created its variables under the strategy, gave every replica whole input_fn batches
(`make_input_fn_iterator`: the batch size is per replica) and summed gradients across replicas, a v2 head
scaling each replica's mean loss by 1/replicas, a v1 head's summed loss unscaled. The migrated model is
built and compiled under `strategy.scope()`, and the train statement (codemods/rules/estimator_train.py)
reads `strategy.distribute_datasets_from_function(...)` of the input_fn, per-replica batches as the
Estimator's: `fit` reduces the compiled loss the same way (Keras scales a mean loss by 1/replicas and
leaves a summed one); the loop runs each step as `strategy.run` of a replica step and sums the replicas'
losses, as the Estimator reported them. Canned estimators and counted training only
(`codemods.facts._distribution_problems` says why not otherwise).

The same statement carries an inline RunConfig's `tf_random_seed` (`config=RunConfig(tf_random_seed=42, ...)`):
`seeding.set_graph_seed(42)` is written right before it, as codemods/rules/runconfig.py writes it for a
RunConfig assigned to a variable, so the model is built under the Estimator's seed.
"""

import libcst as cst

from codemods.facts import EstimatorFacts
from codemods.registry import Rule, register
from codemods.syntax import single_assignment
from codemods.templates import source, statements


def strategy_name(estimator: EstimatorFacts) -> str:
    """The name the migrated code uses for the estimator's train_distribute strategy."""
    strategy = estimator.train_strategy
    return strategy.value if isinstance(strategy, cst.Name) else f"{estimator.variable}_strategy"


def distributed_dataset(estimator: EstimatorFacts, dataset: str) -> str:
    """`dataset` (the input_fn called) as per-replica batches, when the estimator trained distributed."""
    if estimator.train_strategy is None:
        return dataset
    return f"{strategy_name(estimator)}.distribute_datasets_from_function(lambda _: {dataset})"


def inline_seed(estimator: EstimatorFacts) -> cst.BaseExpression | None:
    """The `tf_random_seed` of a RunConfig written inside the estimator's constructor, if any."""
    config = estimator.config
    if config is None or config.variable is not None:
        return None
    return config.kwargs.get("tf_random_seed")


@register
class TrainDistributeRule(Rule):
    rule_id = "train-distribute"
    node_types = (cst.SimpleStatementLine,)
    wraps_statement = True

    def leave(self, original, updated, ctx):
        assignment = single_assignment(original)
        estimator = ctx.facts.estimator_for_call(assignment[1]) if assignment else None
        if estimator is None or not estimator.migratable:
            return updated
        seed = inline_seed(estimator)
        if estimator.train_strategy is None and seed is None:
            return updated
        if seed is not None:
            ctx.need_compat("seeding")
            ctx.put_before(original, statements(f"seeding.set_graph_seed({source(seed)})  # RunConfig(tf_random_seed=...)\n"))
            ctx.record(original, "runconfig-checkpointing", True,
                       f"{estimator.variable}: inline RunConfig's tf_random_seed -> seeding.set_graph_seed")
        if estimator.train_strategy is None:
            return updated
        name = strategy_name(estimator)
        code = "" if isinstance(estimator.train_strategy, cst.Name) else f"{name} = {source(estimator.train_strategy)}\n"
        code += f"with {name}.scope():  # RunConfig(train_distribute=...): variables mirrored on its replicas\n    pass\n"
        new = statements(code)
        block = new[-1]
        new[-1] = block.with_changes(body=block.body.with_changes(body=[updated.with_changes(leading_lines=[])]))
        new[0] = new[0].with_changes(leading_lines=[*updated.leading_lines, *new[0].leading_lines])
        ctx.record(
            original,
            self.rule_id,
            True,
            f"{estimator.variable}: train_distribute -> built under {name}.scope(); fit takes per-replica batches "
            "(distribute_datasets_from_function), as the Estimator's replicas did",
        )
        return cst.FlattenSentinel(new)
