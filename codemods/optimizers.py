"""TF1 `tf.compat.v1.train.*Optimizer` and Keras 2 `tf.keras.optimizers[.legacy].*` instances -> tf_keras
optimizers that take the same steps.

TF1 and Keras name and default some arguments differently: TF1 Adam's epsilon is 1e-8 (Keras: 1e-7) and
its betas are `beta1`/`beta2`; TF1 Adagrad starts its accumulators at 0.1 and adds no epsilon. TF1
Momentum accumulates gradients where Keras SGD accumulates updates; from the same (zero) start both take
the same steps (measured in tests/test_convert_checkpoint.py), Nesterov's (`use_nesterov`) too: TF1 adds
lr x momentum x accumulator to its step where Keras adds momentum x its update, the same quantity.
RMSProp, TF1's or Keras 2 legacy's, has no tf_keras twin: it becomes `compat.rmsprop`'s, same arguments;
TF1's ProximalAdagrad neither: `compat.proximal_adagrad`'s runs its kernels; nor Adadelta, TF1's or Keras 2's (tf_keras's
decays every row on a sparse gradient): `compat.adadelta`'s runs their kernels, with the instance's epsilon (Keras 2's
default 1e-7 written out).
"""

from __future__ import annotations

import libcst as cst

from codemods.api import ApiResolver
from codemods.schedules import SCHEDULED_OPTIMIZERS, is_schedule, keras_schedule
from codemods.templates import source

# TF1 optimizer -> (its parameters in order, TF1 -> Keras keyword renames, Keras constructor, forced kwargs)
_OPTIMIZERS = {
    "train.AdamOptimizer": (
        ("learning_rate", "beta1", "beta2", "epsilon", "use_locking", "name"),
        {"learning_rate": "learning_rate", "beta1": "beta_1", "beta2": "beta_2", "epsilon": "epsilon"},
        "tf_keras.optimizers.Adam",
        {"epsilon": "1e-08"},
    ),
    "train.GradientDescentOptimizer": (
        ("learning_rate", "use_locking", "name"),
        {"learning_rate": "learning_rate"},
        "tf_keras.optimizers.SGD",
        {},
    ),
    "train.MomentumOptimizer": (
        ("learning_rate", "momentum", "use_locking", "name", "use_nesterov"),
        {"learning_rate": "learning_rate", "momentum": "momentum", "use_nesterov": "nesterov"},
        "tf_keras.optimizers.SGD",
        {},
    ),
    "train.FtrlOptimizer": (
        ("learning_rate", "learning_rate_power", "initial_accumulator_value", "l1_regularization_strength",
         "l2_regularization_strength", "use_locking", "name", "accum_name", "linear_name",
         "l2_shrinkage_regularization_strength", "beta"),
        {key: key for key in ("learning_rate", "learning_rate_power", "initial_accumulator_value",
                              "l1_regularization_strength", "l2_regularization_strength",
                              "l2_shrinkage_regularization_strength", "beta")},
        "tf_keras.optimizers.Ftrl",
        {},
    ),
    "train.AdagradOptimizer": (
        ("learning_rate", "initial_accumulator_value", "use_locking", "name"),
        {"learning_rate": "learning_rate"},
        "canned.estimator_adagrad",
        {},
    ),
    "train.ProximalAdagradOptimizer": (
        ("learning_rate", "initial_accumulator_value", "l1_regularization_strength", "l2_regularization_strength",
         "use_locking", "name"),
        {key: key for key in ("learning_rate", "initial_accumulator_value", "l1_regularization_strength",
                              "l2_regularization_strength")},
        "proximal_adagrad.ProximalAdagrad",
        {},
    ),
    "train.AdadeltaOptimizer": (
        ("learning_rate", "rho", "epsilon", "use_locking", "name"),
        {key: key for key in ("learning_rate", "rho", "epsilon")},
        "adadelta.Adadelta",
        {},
    ),
    "train.RMSPropOptimizer": (
        ("learning_rate", "decay", "momentum", "epsilon", "use_locking", "centered", "name"),
        {key: key for key in ("learning_rate", "decay", "momentum", "epsilon", "centered")},
        "rmsprop.tf1_rmsprop",
        {},
    ),
}
# Keras (legacy) optimizer instances, which v2 canned estimators take (TF 2.15's estimator refuses the new
# Keras optimizers in its graph): the tf_keras optimizer of the same name computes the same update.
_KERAS_LEGACY = {
    "Adam": ("learning_rate", "beta_1", "beta_2", "epsilon", "amsgrad", "name"),
    "SGD": ("learning_rate", "momentum", "nesterov", "name"),
    "Adagrad": ("learning_rate", "initial_accumulator_value", "epsilon", "name"),
    "Ftrl": ("learning_rate", "learning_rate_power", "initial_accumulator_value", "l1_regularization_strength",
             "l2_regularization_strength", "name", "l2_shrinkage_regularization_strength", "beta"),
    "RMSprop": ("learning_rate", "rho", "momentum", "epsilon", "centered", "name"),
    "Adadelta": ("learning_rate", "rho", "epsilon", "name"),
}
_KERAS_LEGACY_TWINS = {"RMSprop": "rmsprop.keras_legacy_rmsprop", "Adadelta": "adadelta.Adadelta"}
for _name, _order in _KERAS_LEGACY.items():
    _constructor = _KERAS_LEGACY_TWINS.get(_name, f"tf_keras.optimizers.{_name}")
    # Before TF 2.11 `tf.keras.optimizers.<name>` was this same (OptimizerV2) class, which canned estimators took
    for _path in (f"keras.optimizers.legacy.{_name}", f"keras.optimizers.{_name}"):
        _OPTIMIZERS[_path] = (_order, {key: key for key in _order if key != "name"}, _constructor,
                              {"epsilon": "1e-07"} if _name == "Adadelta" else {})  # (compat's default is TF1's)
_DROPPED = ("use_locking", "name", "accum_name", "linear_name")

# Optimizers given by name (tensorflow_estimator/python/estimator/canned/optimizers.py): v1 heads make the
# TF1 class, v2 heads Keras's (legacy) class, each with the Keras twin used above for instances.
_BY_NAME = {
    True: {
        "Adagrad": "canned.estimator_adagrad(learning_rate={lr})",
        "Adam": "tf_keras.optimizers.Adam(learning_rate={lr}, epsilon=1e-08)",
        "Ftrl": "tf_keras.optimizers.Ftrl(learning_rate={lr})",
        "SGD": "tf_keras.optimizers.SGD(learning_rate={lr})",
        "RMSProp": "rmsprop.tf1_rmsprop(learning_rate={lr})",
    },
    False: {
        "Adagrad": "canned.estimator_adagrad(learning_rate={lr}, epsilon=canned.KERAS_ADAGRAD_EPSILON)",
        "Adam": "tf_keras.optimizers.Adam(learning_rate={lr})",
        "Ftrl": "tf_keras.optimizers.Ftrl(learning_rate={lr})",
        "SGD": "tf_keras.optimizers.SGD(learning_rate={lr})",
        "RMSProp": "rmsprop.keras_legacy_rmsprop(learning_rate={lr})",
    },
}
# A v2 DNN head passes no learning rate with a name: the Keras (legacy) class's own default applies.
_KERAS_DEFAULT_LEARNING_RATE = {"Adagrad": "0.001", "Adam": "0.001", "Ftrl": "0.001", "SGD": "0.01", "RMSProp": "0.001"}


def _arguments(call: cst.Call, order: tuple[str, ...]) -> dict[str, cst.BaseExpression] | None:
    values = {}
    for position, arg in enumerate(call.args):
        if arg.star:
            return None
        key = arg.keyword.value if arg.keyword else (order[position] if position < len(order) else None)
        if key is None:
            return None
        values[key] = arg.value
    return values


def optimizer_problem(node: cst.BaseExpression, resolver: ApiResolver) -> str | None:
    """Why `node` cannot be carried over as a Keras optimizer, or None when it can."""
    if _optimizer_lambda(node):  # `lambda: <optimizer>`: Estimator called it; so does the compat builder
        return optimizer_problem(node.body, resolver) or _lambda_schedule(node.body, resolver)[1]
    if isinstance(node, cst.SimpleString):
        name = node.evaluated_value
        if name not in _BY_NAME[True]:
            return f"optimizer={name!r} is not migrated yet (the names 'Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD' are)"
        return None
    if run_time_optimizer(node, resolver):
        return None
    api = resolver.call_api(node)
    if api is None or api.path not in _OPTIMIZERS:
        return (
            "optimizer= is not a TF1 Adam, Adagrad, ProximalAdagrad, Ftrl, Momentum, RMSProp, Adadelta or GradientDescent "
            "optimizer instance, a Keras 2 (tf.keras.optimizers[.legacy]) Adam, Adagrad, Ftrl, RMSprop, Adadelta or SGD "
            "instance, "
            "nor one of the names 'Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD'"
        )
    order, renames, _, _ = _OPTIMIZERS[api.path]
    values = _arguments(node, order)
    if values is None:
        return "the optimizer's arguments are not plain positional or keyword arguments"
    unsupported = sorted(set(values) - set(renames) - set(_DROPPED))
    if unsupported:
        return f"optimizer argument(s) {', '.join(unsupported)} not migrated yet"
    return None


def _optimizer_lambda(node: cst.BaseExpression) -> bool:
    """`lambda: <expression>` (no parameters), as Estimator's docs passed optimizers (made in its graph)."""
    return isinstance(node, cst.Lambda) and not node.params.params and not node.params.kwonly_params \
        and node.params.star_arg is cst.MaybeSentinel.DEFAULT and node.params.star_kwarg is None


# What a decay inside `lambda: <optimizer>` is given as its step: Estimator called the lambda in its graph.
_GLOBAL_STEP_READERS = ("train.get_global_step", "train.get_or_create_global_step")


def _lambda_schedule(body: cst.BaseExpression, resolver: ApiResolver) -> tuple[cst.BaseExpression | None, str | None]:
    """For `lambda: Optimizer(learning_rate=<TF1 decay of the global step>, ...)` (Estimator's docs' form): the
    Keras schedule the optimizer takes instead (it is called on `optimizer.iterations`, the global step), or
    why it is not migrated; (None, None) when the learning rate is no decay call."""
    api = resolver.call_api(body) if isinstance(body, cst.Call) else None
    if api is None or api.path not in _OPTIMIZERS:
        return None, None
    rate = (_arguments(body, _OPTIMIZERS[api.path][0]) or {}).get("learning_rate")
    if rate is None or not is_schedule(rate, resolver):
        return None, None
    # TF1 Momentum and others apply a changing rate to their accumulators: not the Keras twin's update
    if not (api.path.startswith("keras.") or api.path in SCHEDULED_OPTIMIZERS) \
            or not _OPTIMIZERS[api.path][2].startswith("tf_keras."):
        return None, f"a learning-rate decay given to {api.path.rsplit('.', 1)[1]} is not migrated yet"

    def is_global_step(node):
        step = resolver.call_api(node) if isinstance(node, cst.Call) else None
        return step is not None and step.path in _GLOBAL_STEP_READERS

    return keras_schedule(rate, resolver, is_global_step)


def run_time_optimizer(node: cst.BaseExpression, resolver: ApiResolver) -> bool:
    """Whether `node` is an optimizer the source does not show (a variable, a parameter, a config entry, a
    function of the program's own): the compat.canned builder resolves it when the program runs, as the
    Estimator did: a name, a function returning an optimizer, a tf_keras or TF1 optimizer; else one error)."""
    if isinstance(node, (cst.Name, cst.Attribute, cst.Subscript)):
        api = resolver.api(node)  # (a variable holding an optimizer made elsewhere resolves to that optimizer's class)
        return api is None or api.path in _OPTIMIZERS
    return isinstance(node, cst.Call) and resolver.call_api(node) is None


def keras_optimizer(original, updated, resolver: ApiResolver) -> tuple[cst.BaseExpression, str | None]:
    """The Keras optimizer call for a TF1 optimizer call that `optimizer_problem` accepted, and the module
    it needs: `tf_keras`, or the `compat` module (`canned`, `rmsprop`) of a twin of our own; an optimizer
    resolved when the program runs stays as written (no module); `lambda: <optimizer>`, the lambda of its twin."""
    if _optimizer_lambda(original):
        body, module = keras_optimizer(original.body, updated.body, resolver)
        schedule, _ = _lambda_schedule(original.body, resolver)
        if schedule is not None:
            body = body.with_changes(args=[
                arg.with_changes(value=schedule) if arg.keyword and arg.keyword.value == "learning_rate" else arg
                for arg in body.args
            ])
        return updated.with_changes(body=body), module
    if run_time_optimizer(original, resolver):
        return updated, None
    order, renames, constructor, forced = _OPTIMIZERS[resolver.call_api(original).path]
    values = _arguments(updated, order)
    args = [f"{renames[key]}={source(value)}" for key, value in values.items() if key in renames]
    args += [f"{key}={value}" for key, value in forced.items() if key not in values]
    return cst.parse_expression(f"{constructor}({', '.join(args)})"), constructor.split(".")[0]


def need_optimizer_module(ctx, module: str) -> None:
    """Import what `keras_optimizer`/`keras_optimizer_by_name` said their code needs."""
    if module is None:
        return
    if module == "tf_keras":
        ctx.need_import("tf_keras")
    else:
        ctx.need_compat(module)


def keras_optimizer_by_name(
    name: str, estimator_path: str, keyword: str, v1: bool, kwargs: dict[str, cst.BaseExpression]
) -> tuple[cst.BaseExpression, str]:
    """The Keras optimizer a canned estimator makes of `optimizer="Adam"` (and the like), with the learning
    rate that estimator gives a name (dnn.py, linear.py, dnn_linear_combined.py, baseline.py), and the module it needs."""
    if keyword == "dnn_optimizer":
        learning_rate = "0.001"
    elif keyword == "linear_optimizer":
        learning_rate = f"min(0.005, len({source(kwargs['linear_feature_columns'])}) ** -0.5)"
    elif "Linear" in estimator_path:
        learning_rate = "0.2"
    elif "Baseline" in estimator_path:
        learning_rate = "0.3"
    else:
        learning_rate = "0.05" if v1 else _KERAS_DEFAULT_LEARNING_RATE[name]
    code = _BY_NAME[v1][name].format(lr=learning_rate)
    return cst.parse_expression(code), code.split(".")[0]
