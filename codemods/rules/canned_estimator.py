"""Canned estimators (`DNNClassifier(...)`, ...) -> their `compat.canned` builder (`canned.dnn_classifier(...)`).

The builders live in `compat` so that checkpoint conversion builds exactly the model the rewrite emits;
`codemods.canned_estimators` lists the estimators and their arguments.
The arguments are carried over as written, except: the TF1 optimizer, or the optimizer's name with the
learning rate the estimator gives a name, becomes its Keras twin (see `codemods.optimizers`), `model_dir` and `config` move to the checkpointing code of the train calls, and
`loss_reduction` records the head's reduction: "sum" for `tf.compat.v1.estimator` (v1 heads sum the loss over
the batch), "sum_over_batch_size" for `tf.estimator` (v2 heads average it); an explicit `loss_reduction=`
(SUM or SUM_OVER_BATCH_SIZE) that is not the head's own is carried over, with `head_version` naming the head.
"""

import libcst as cst

from codemods.canned_estimators import (
    CANNED,
    DROPPED,
    DROPPED_WHEN_NONE,
    HEAD_REDUCTION,
    MOVED_TO_CHECKPOINTING,
    builder_reduction,
)
from codemods.optimizers import keras_optimizer, keras_optimizer_by_name, need_optimizer_module
from codemods.registry import Rule, register
from codemods.runtime_tier import RunTimeChecked, tier1_only


@register
class CannedEstimatorRule(Rule):
    rule_id = "canned-estimator"
    node_types = (cst.Call,)

    def leave(self, original: cst.Call, updated: cst.Call, ctx):
        estimator = ctx.facts.estimator_for_call(original)
        if estimator is None:
            return updated
        if estimator.runtime:
            return updated  # codemods/rules/estimator_runtime.py
        if not estimator.migratable:
            rule = "custom-estimator" if estimator.custom else self.rule_id
            # what keeps it from the run-time tier too, when that tier looked at it: the reasons that tier checks
            # when the program runs would only send the user after what needs no change
            tier_reasons = ctx.facts.runtime.constructor_problems.get(id(original))
            for problem in tier_reasons or estimator.problems:
                ctx.todo(original, rule, f"{estimator.variable}: {problem}")
            blocked = ctx.facts.runtime.blocked_by
            if blocked and not tier_reasons and all(isinstance(p, RunTimeChecked) or (estimator.custom and tier1_only(p))
                               for p in estimator.problems):
                ctx.todo(original, rule, f"{estimator.variable}: the run-time tier would migrate it (it checks the "
                         "reasons above when the program runs), but it is off while the project keeps an estimator "
                         f"that stays TF1 ({'; '.join(blocked)}): migrate or remove that one, then run migrate again")
            return updated
        if estimator.custom:
            return updated  # codemods/rules/custom_estimator.py

        spec = CANNED[estimator.api.path]
        reduction = builder_reduction(estimator.kwargs, ctx.resolver, estimator.api.v1)
        loss = "loss summed over the batch" if reduction == "sum" else "loss averaged"
        head = f"{'v1' if estimator.api.v1 else 'v2'} head: {loss}"
        ctx.record(
            original, self.rule_id, True, f"{estimator.api.path} -> compat.canned.{spec.builder} ({head})"
        )
        return canned_builder_call(original, updated, ctx, estimator.api, estimator.kwargs)


_NO_SPACE = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))


def canned_builder_call(original: cst.Call, updated: cst.Call, ctx, api, kwargs) -> cst.Call:
    """`updated` (a canned estimator's call) as its compat.canned builder's, laid out as the program wrote it
    (comments too): optimizers converted, model_dir/config and partitioners left out, loss_reduction added."""
    spec = CANNED[api.path]
    args = []
    for index, (original_arg, arg) in enumerate(zip(original.args, updated.args)):
        if arg.keyword is None:  # by position: named, as the builders take every argument by keyword
            arg = arg.with_changes(keyword=cst.Name(spec.positional[index]), equal=_NO_SPACE)
        key = arg.keyword.value
        if key in MOVED_TO_CHECKPOINTING or key in DROPPED or key in DROPPED_WHEN_NONE or key == "loss_reduction":
            continue  # (an explicit loss_reduction is the head's own: added below as every head's is)
        if key in spec.optimizers and isinstance(original_arg.value, cst.SimpleString):
            name = original_arg.value.evaluated_value
            optimizer, module = keras_optimizer_by_name(name, api.path, key, api.v1, kwargs)
            need_optimizer_module(ctx, module)
            arg = arg.with_changes(value=optimizer)
        elif key in spec.optimizers:
            optimizer, module = keras_optimizer(original_arg.value, arg.value, ctx.resolver)
            need_optimizer_module(ctx, module)
            arg = arg.with_changes(value=optimizer)
        args.append(arg)
    keywords = {}
    if not spec.head_based:  # (a head-based estimator's builder reads them from its head)
        reduction = builder_reduction(kwargs, ctx.resolver, api.v1)
        keywords["loss_reduction"] = reduction
        if reduction != HEAD_REDUCTION[api.v1]:  # not the head's own: say which head it is
            keywords["head_version"] = "v1" if api.v1 else "v2"
    last = updated.args[-1]
    if not keywords and args and args[-1] is not last:  # the call's last argument left out: its ending kept
        args[-1] = args[-1].with_changes(comma=last.comma, whitespace_after_arg=last.whitespace_after_arg)
    separator = updated.args[0].comma if len(updated.args) > 1 else cst.MaybeSentinel.DEFAULT
    if not isinstance(separator, cst.Comma):
        separator = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    for key, value in keywords.items():
        args[-1] = args[-1].with_changes(comma=separator, whitespace_after_arg=cst.SimpleWhitespace(""))
        args.append(
            cst.Arg(
                keyword=cst.Name(key),
                value=cst.SimpleString(f'"{value}"'),
                equal=args[-1].equal,
                comma=last.comma,
                whitespace_after_arg=last.whitespace_after_arg,
            )
        )
    ctx.need_compat("canned")
    return updated.with_changes(func=cst.parse_expression(f"canned.{spec.builder}"), args=args)
