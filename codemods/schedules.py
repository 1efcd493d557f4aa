"""TF1 learning-rate decay functions of the global step -> the Keras schedules they were built on.

`tf.compat.v1.train.exponential_decay(lr, global_step, ...)` and its siblings are, in TF 2.15
(tensorflow/python/keras/optimizer_v2/legacy_learning_rate_decay.py), the Keras schedule of the same name
called on the global step; a Keras optimizer calls its schedule on `optimizer.iterations`, which counts the
same steps (read before the step's increment, as TF1's update read the global step). So the schedule is
carried over as the optimizer's `learning_rate`, argument for argument.
"""

from __future__ import annotations

import libcst as cst

from codemods.api import ApiResolver
from codemods.syntax import call_arguments
from codemods.templates import source

# TF1 function -> (Keras schedule, the TF1 parameters in order, the step parameter, TF1 -> Keras renames)
SCHEDULES = {
    "train.exponential_decay": (
        "ExponentialDecay", ("learning_rate", "global_step", "decay_steps", "decay_rate", "staircase", "name"),
        "global_step", {"learning_rate": "initial_learning_rate"},
    ),
    "train.inverse_time_decay": (
        "InverseTimeDecay", ("learning_rate", "global_step", "decay_steps", "decay_rate", "staircase", "name"),
        "global_step", {"learning_rate": "initial_learning_rate"},
    ),
    "train.polynomial_decay": (
        "PolynomialDecay",
        ("learning_rate", "global_step", "decay_steps", "end_learning_rate", "power", "cycle", "name"),
        "global_step", {"learning_rate": "initial_learning_rate"},
    ),
    "train.piecewise_constant": ("PiecewiseConstantDecay", ("x", "boundaries", "values", "name"), "x", {}),
    "train.cosine_decay": (
        "CosineDecay", ("learning_rate", "global_step", "decay_steps", "alpha", "name"), "global_step",
        {"learning_rate": "initial_learning_rate"},
    ),
    "train.cosine_decay_restarts": (
        "CosineDecayRestarts",
        ("learning_rate", "global_step", "first_decay_steps", "t_mul", "m_mul", "alpha", "name"),
        "global_step", {"learning_rate": "initial_learning_rate"},
    ),
}
# Optimizers whose update with a rate that changes between steps is TF1's. TF1's Momentum multiplies the
# accumulated gradients by each step's rate, Keras's SGD only the new gradient: the same with a constant
# rate, not with a schedule (so are the others, not yet measured).
SCHEDULED_OPTIMIZERS = ("train.GradientDescentOptimizer", "train.AdamOptimizer", "train.AdagradOptimizer")


def is_schedule(node: cst.BaseExpression, resolver: ApiResolver) -> bool:
    api = resolver.call_api(node) if isinstance(node, cst.Call) else None
    return api is not None and api.path in SCHEDULES


def keras_schedule(
    call: cst.Call, resolver: ApiResolver, is_global_step
) -> tuple[cst.BaseExpression | None, str | None]:
    """(The Keras schedule for a TF1 decay call, None) or (None, why it is not carried over).
    `is_global_step(node)`: whether an argument is the global step."""
    api = resolver.call_api(call)
    keras_name, order, step, renames = SCHEDULES[api.path]
    arguments, problems = call_arguments(call, order)
    function = api.path.split(".")[-1]
    if problems or step not in arguments or not is_global_step(arguments[step]):
        return None, f"{function}() is not given the global step as {step} (only a schedule of it is migrated)"
    keywords = [
        f"{renames.get(key, key)}={source(value)}" for key, value in arguments.items() if key not in (step, "name")
    ]
    return cst.parse_expression(f"tf_keras.optimizers.schedules.{keras_name}({', '.join(keywords)})"), None
