"""Which serving input receivers an export can keep: what `export_saved_model(dir, serving_input_receiver_fn)`
was given, and the calls in it that the rewrite points at `compat.estimator_export`.

compat.estimator_export runs the receiver function as Estimator ran it (a TF1 graph of placeholders and
parsing, which `tf.compat.v1` still builds), so a receiver migrates when the only Estimator APIs it uses
are those compat.estimator_export replaces under the same names:
- `build_parsing_serving_input_receiver_fn(...)` / `build_raw_serving_input_receiver_fn(...)`, inline or
  assigned to a variable;
- a function of this module returning `ServingInputReceiver(features, receiver_tensors)`.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from codemods.api import ApiResolver
from codemods.syntax import call_arguments

# Receiver builders, with their parameters in order.
SERVING_INPUT_BUILDERS = {
    "estimator.export.build_parsing_serving_input_receiver_fn": ("feature_spec", "default_batch_size"),
    "estimator.export.build_raw_serving_input_receiver_fn": ("features", "default_batch_size"),
}
RECEIVER = "estimator.export.ServingInputReceiver"
RECEIVER_PARAMS = ("features", "receiver_tensors", "receiver_tensors_alternatives")
# Estimator APIs the rewrite replaces by compat.estimator_export's, under the same name.
REPLACED = (*SERVING_INPUT_BUILDERS, RECEIVER)


def receiver_calls(
    receiver: cst.BaseExpression | None,
    builders: dict[str, cst.Call],
    functions: dict[str, list[cst.FunctionDef]],
    resolver: ApiResolver,
) -> tuple[list[cst.Call], list[str]]:
    """The calls of `receiver` (a serving_input_receiver_fn= argument) to rewrite, and why it cannot be kept
    (`builders`: variables assigned a builder call; `functions`: the module's defs by name)."""
    if isinstance(receiver, cst.Name) and receiver.value in builders:
        receiver = builders[receiver.value]
    api = resolver.call_api(receiver) if receiver is not None else None
    if api is not None and api.path in SERVING_INPUT_BUILDERS:
        return [receiver], call_arguments(receiver, SERVING_INPUT_BUILDERS[api.path])[1]
    definitions = functions.get(receiver.value, []) if isinstance(receiver, cst.Name) else []
    if len(definitions) != 1:
        return [], [
            "serving_input_receiver_fn= is not a build_parsing_serving_input_receiver_fn(...), "
            "build_raw_serving_input_receiver_fn(...) or a function defined once in this module"
        ]
    return _function_calls(definitions[0], resolver)


def _function_calls(function: cst.FunctionDef, resolver: ApiResolver) -> tuple[list[cst.Call], list[str]]:
    name = function.name.value
    calls, problems = [], []
    if any(param.default is None for param in function.params.params):
        problems.append(f"serving input receiver function {name} takes arguments (Estimator called it with none)")
    for call in m.findall(function, m.Call()):
        api = resolver.call_api(call)
        if api is None or not api.path.startswith("estimator."):
            continue
        if api.path not in REPLACED:
            problems.append(f"serving input receiver function {name} uses {api.path} (not migrated)")
            continue
        calls.append(call)
        parameters = RECEIVER_PARAMS if api.path == RECEIVER else SERVING_INPUT_BUILDERS[api.path]
        arguments, argument_problems = call_arguments(call, parameters)
        problems += argument_problems
        if "receiver_tensors_alternatives" in arguments:
            problems.append("ServingInputReceiver(receiver_tensors_alternatives=...) is not migrated yet")
    if not any(resolver.call_api(call).path == RECEIVER for call in calls):
        problems.append(f"serving input receiver function {name} does not build a ServingInputReceiver(...)")
    return calls, problems
