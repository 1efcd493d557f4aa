"""Estimator constructs of the run-time linked tier (codemods/runtime_tier.py) -> `compat.estimator_training`.

Each call is rewritten on its own, its arguments carried over as written (positions too: the compat
functions take the Estimator methods' parameters in the same order, the estimator first):

    tf.estimator.DNNClassifier(feature_columns=c, hidden_units=h, config=cfg)
        -> estimator_training.configure(config=cfg, model=canned.dnn_classifier(feature_columns=c,
                                        hidden_units=h, loss_reduction="sum_over_batch_size"))
    tf.estimator.Estimator(model_fn=f, params=p, config=cfg)   (a model_fn tier 1 does not rewrite)
        -> estimator_training.configure(wrapped_model_fns.WrappedModelFn(f, params=p), config=cfg)
    tf.keras.estimator.model_to_estimator(keras_model=m, config=cfg)
        -> keras_estimators.model_to_estimator(keras_model=m, config=cfg)
    tf.estimator.RunConfig(model_dir=d, save_checkpoints_steps=n) -> estimator_training.TrainingConfig(...)
    est.train(input_fn=f, max_steps=m)             -> estimator_training.train(est, input_fn=f, max_steps=m)
    tf.estimator.train_and_evaluate(est, ts, es)   -> estimator_training.train_and_evaluate(est, ts, es)
    tf.estimator.TrainSpec(...) / EvalSpec(...)    -> estimator_training.TrainSpec(...) / EvalSpec(...)
    est.evaluate/predict/export_saved_model(...)   -> estimator_training.evaluate/predict/export_saved_model(est, ...)
    tf.estimator.add_metrics(est, metric_fn)       -> added_metrics.add_metrics(est, metric_fn)
    tf.contrib.estimator.forward_features(est, k)  -> forwarded_features.forward_features(est, k)
    tf.estimator.BinaryClassHead(...)              -> estimator_heads.BinaryClassHead(...)  (in a wrapped model_fn's
    tf.contrib.estimator.binary_classification_head(...) -> estimator_heads.binary_classification_head(...)  project)

With `--target loop`, `train` and `train_and_evaluate` come from `compat.estimator_loop` instead. With
`--exact`, the keras target's get `exact=True` (compat.exact's backups); the loop target's a TODO saying they
resume as the Estimator did, not bit-exactly (yet). The canned
estimators this tier cannot take (an argument not carried over) and the tier switched off (the project keeps
an estimator TF1: a RunConfig or train call might be its) leave the constructs with a TODO saying why.
"""

import libcst as cst

from codemods.canned_estimators import CANNED, DROPPED_WHEN_NONE, MOVED_TO_CHECKPOINTING, head_api
from codemods.registry import Rule, register
from codemods.rules.canned_estimator import canned_builder_call
from codemods.runtime_tier import CUSTOM, ESTIMATOR_HEADS, RUNCONFIG_PARAMS, SPECS, wrapped_arguments
from codemods.syntax import call_arguments, is_none, with_keywords
from codemods.templates import source

_LOOP_METHODS = ("train", "train_and_evaluate")
EXACT_NOT_CARRIED_OVER = (
    "--exact is not carried over on the run-time tier's loop target yet: this training resumes as the Estimator "
    "did (from the last checkpoint, its input_fn started over), not bit-exactly (the keras target's does)"
)


_EXACT = " (--exact: bit-exact resume, compat.exact.ExactBackupAndRestore)"


def _with_exact(call: cst.Call, exact: bool) -> cst.Call:
    """`call` with `exact=True` after its arguments (as the program laid them out) when `exact`."""
    if not exact:
        return call
    last = call.args[-1]
    comma = last.comma if isinstance(last.comma, cst.Comma) else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    exact_arg = cst.Arg(keyword=cst.Name("exact"), value=cst.Name("True"), comma=last.comma
                        if isinstance(last.comma, cst.Comma) else cst.MaybeSentinel.DEFAULT,
                        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                              whitespace_after=cst.SimpleWhitespace("")),
                        whitespace_after_arg=last.whitespace_after_arg)
    last = last.with_changes(comma=comma, whitespace_after_arg=cst.SimpleWhitespace(""))
    return call.with_changes(args=[*call.args[:-1], last, exact_arg])


@register
class EstimatorRuntimeRule(Rule):
    rule_id = "estimator-runtime"
    node_types = (cst.Call,)

    def leave(self, original: cst.Call, updated: cst.Call, ctx):
        tier = ctx.facts.runtime
        kind = tier.kind(original)
        if kind is None:
            if id(original) in tier.constructor_problems and ctx.facts.estimator_for_call(original) is None:
                custom = ctx.resolver.call_api(original).path == CUSTOM
                for problem in tier.constructor_problems[id(original)]:  # a unit's problems are said at its constructor
                    ctx.todo(original, "custom-estimator" if custom else "canned-estimator", problem)
            if id(original) in tier.kept_calls:
                ctx.todo(original, self.rule_id, tier.kept_calls[id(original)])
            return updated
        if kind in ("export_api", "builtin_hook", "early_stopping", "session_hook", "model_fn_saver", "wrapped_saver"):
            return updated  # codemods/rules/export_apis.py, builtin_hooks.py, unsupported_api.py
        if kind == "keras_estimator":
            ctx.need_compat("keras_estimators")
            ctx.record(original, self.rule_id, True,
                       "model_to_estimator -> compat.keras_estimators.model_to_estimator (a clone of the compiled model "
                       "with its legacy optimizer and weights, as Estimator trained it); this module's tf.keras -> "
                       "tf_keras (Keras 2, which tf.keras was up to TensorFlow 2.15)")
            return updated.with_changes(func=cst.parse_expression("keras_estimators.model_to_estimator"))
        ctx.need_compat("estimator_training")
        if kind == "canned":
            return self._canned(original, updated, ctx)
        if kind in ("wrapped", "wrapped_tpu"):
            return self._wrapped(original, updated, ctx, tpu=kind == "wrapped_tpu")
        if kind == "evaluator_hook":
            ctx.record(original, self.rule_id, True, "InMemoryEvaluatorHook -> compat.estimator_training."
                       "InMemoryEvaluator (a callback evaluating the model in memory every every_n_iter steps)")
            return updated.with_changes(func=cst.parse_expression("estimator_training.InMemoryEvaluator"))
        if kind == "add_metrics":
            ctx.need_compat("added_metrics")
            ctx.record(original, self.rule_id, True, "add_metrics -> compat.added_metrics.add_metrics (the metric_fn's "
                       "TF1 metrics evaluated with the estimator's own, as Estimator's EVAL graph ran them)")
            return updated.with_changes(func=cst.parse_expression("added_metrics.add_metrics"))
        if kind == "forward_features":
            ctx.need_compat("forwarded_features")
            ctx.record(original, self.rule_id, True, "tf.contrib.estimator.forward_features -> compat.forwarded_features."
                       "forward_features (the features in predict's predictions and the export's predict signature)")
            return updated.with_changes(func=cst.parse_expression("forwarded_features.forward_features"))
        if kind == "estimator_head":
            ctx.need_compat("estimator_heads")
            name = ESTIMATOR_HEADS[ctx.resolver.call_api(original).path]
            ctx.record(original, self.rule_id, True, f"{name} -> compat.estimator_heads.{name} (the head's loss, "
                       "metrics, predictions and exports built in the wrapped model_fn's graph, as its Estimator's)")
            return updated.with_changes(func=cst.parse_expression(f"estimator_heads.{name}"))
        if kind == "config":
            ctx.record(original, self.rule_id, True, "RunConfig -> compat.estimator_training.TrainingConfig")
            return with_keywords(updated, RUNCONFIG_PARAMS).with_changes(
                func=cst.parse_expression("estimator_training.TrainingConfig"))
        if kind == "tpu_config":
            ctx.need_compat("tpu_estimators")
            ctx.record(original, self.rule_id, True, "TPU RunConfig -> compat.tpu_estimators.TPUTrainingConfig (its TPU "
                       "settings kept, unused: the migrated TPUEstimator runs as with use_tpu=False)")
            return updated.with_changes(func=cst.parse_expression("tpu_estimators.TPUTrainingConfig"))
        if kind == "spec":
            name = SPECS[ctx.resolver.call_api(original).path]
            ctx.record(original, self.rule_id, True, f"{name} -> compat.estimator_training.{name}")
            return updated.with_changes(func=cst.parse_expression(f"estimator_training.{name}"))
        module = "estimator_training"
        exact = kind in _LOOP_METHODS and ctx.exact
        if exact and ctx.target == "loop":
            ctx.todo(original, "exact", EXACT_NOT_CARRIED_OVER)
            exact = False
        if kind in _LOOP_METHODS and ctx.target == "loop":
            ctx.need_compat("estimator_loop")
            module = "estimator_loop"
        if kind == "train_and_evaluate":
            ctx.record(original, self.rule_id, True, f"train_and_evaluate -> compat.{module}.train_and_evaluate "
                       "(the estimator's settings come with it when the program runs)" + _EXACT * exact)
            return _with_exact(updated.with_changes(func=cst.parse_expression(f"{module}.train_and_evaluate")), exact)
        receiver = updated.func.value
        method = "export_saved_model" if kind == "export_savedmodel" else kind
        ctx.record(original, self.rule_id, True,
                   f"{source(original.func.value)}.{kind}(...) -> compat.{module}.{method}" + _EXACT * exact)
        first = cst.Arg(receiver, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        if not updated.args:
            first = cst.Arg(receiver)
        call = updated.with_changes(func=cst.parse_expression(f"{module}.{method}"), args=[first, *updated.args])
        return _with_exact(call, exact)

    @staticmethod
    def _canned(original: cst.Call, updated: cst.Call, ctx) -> cst.BaseExpression:
        api = ctx.resolver.call_api(original)
        spec = CANNED[api.path]
        arguments = call_arguments(original, spec.positional)[0]
        api = head_api(api, arguments, ctx.resolver)
        moved = [f"{key}={source(value)}" for key, value in call_arguments(updated, spec.positional)[0].items()
                 if key in MOVED_TO_CHECKPOINTING or (key in DROPPED_WHEN_NONE and not is_none(value))]
        built = canned_builder_call(original, updated, ctx, api, arguments)
        head = "v1 head: loss summed over the batch" if api.v1 else "v2 head: loss averaged"
        ctx.record(
            original, "canned-estimator", True,
            f"{api.path} -> compat.canned.{spec.builder} ({head}), model_dir and config attached by "
            "compat.estimator_training.configure",
        )
        if not moved:
            configure = cst.parse_expression("estimator_training.configure(None)")
            return configure.with_changes(args=[configure.args[0].with_changes(value=built)])
        # The model last: its config, which may set tf_random_seed (compat.seeding), is evaluated before the
        # model's weights and dropout layers are made, as the Estimator seeded its graph before building it.
        configure = cst.parse_expression(f"estimator_training.configure({', '.join(moved)}, model=None)")
        *settings, model = configure.args
        return configure.with_changes(args=[*settings, model.with_changes(value=built)])

    @staticmethod
    def _wrapped(original: cst.Call, updated: cst.Call, ctx, tpu: bool) -> cst.BaseExpression:
        name, module, wrapper = ("TPUEstimator", "tpu_estimators", "WrappedTPUModelFn") if tpu \
            else ("Estimator", "wrapped_model_fns", "WrappedModelFn")
        ctx.need_compat(module)
        if any(arg.star for arg in updated.args):  # (TPUEstimator's are kept: runtime_tier.wrapped_problems)
            ctx.record(original, "custom-estimator", True,
                       "Estimator(*args/**kwargs) -> compat.wrapped_model_fns.Estimator(<the same arguments>): "
                       "Estimator's parameters, checked when the program runs; the model_fn runs as written")
            return updated.with_changes(func=cst.parse_expression("wrapped_model_fns.Estimator"))
        given = wrapped_arguments(updated, name)
        ctx.record(
            original, "custom-estimator", True,
            f"{name}(model_fn={source(given['model_fn'])}) -> compat.{module}.{wrapper}: the model_fn runs as written "
            "(TF1 variables, names and optimizer" + (", as TPUEstimator ran it with use_tpu=False" if tpu else "")
            + "), model_dir and config attached by compat.estimator_training.configure",
        )
        # model_fn first, the class's other arguments by name in the order given (model_dir and config go to configure)
        kept = [key for key in given if key not in ("model_fn", "model_dir", "config")]
        wrapped = cst.parse_expression(f"{module}.{wrapper}(None" + "".join(f", {key}=None" for key in kept)
                                       + ", written_for_tf1=True" * ctx.resolver.tf1_program + ")")
        wrapped = wrapped.with_changes(args=[
            wrapped.args[0].with_changes(value=given["model_fn"]),
            *(arg.with_changes(value=given[key]) for arg, key in zip(wrapped.args[1:len(kept) + 1], kept, strict=True)),
            *wrapped.args[len(kept) + 1:],  # written_for_tf1: its hooks fetch as TensorFlow 1.x's (compat.wrapped_hooks)
        ])
        moved = [key for key in ("model_dir", "config") if key in given]
        configure = cst.parse_expression(
            "estimator_training.configure(None" + "".join(f", {key}=None" for key in moved) + ")")
        return configure.with_changes(args=[
            configure.args[0].with_changes(value=wrapped),
            *(arg.with_changes(value=given[key]) for arg, key in zip(configure.args[1:], moved, strict=True)),
        ])
