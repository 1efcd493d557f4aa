"""The Estimator export APIs a migrated program keeps using, by the same names, from `compat.estimator_export`:
which serving input receivers an export or exporter can keep, which EvalSpec exporters migrate, and the
calls the rewrite points at compat.estimator_export (codemods/rules/export_apis.py).

compat.estimator_export runs the receiver function as Estimator ran it (a TF1 graph of placeholders and
parsing, which `tf.compat.v1` still builds), so a receiver migrates when the only Estimator APIs it uses
are those compat.estimator_export replaces under the same names:
- `build_parsing_serving_input_receiver_fn(...)` / `build_raw_serving_input_receiver_fn(...)`, inline or
  assigned to a variable;
- a function of this module returning `ServingInputReceiver(features, receiver_tensors)` or
  `TensorServingInputReceiver(features, receiver_tensors)`.
`build_raw_serving_input_receiver_fn(features)` read only the dtype and shape of each feature tensor. Programs
gave it `tf.placeholder`s built beside the export call, in TF1's default graph; a migrated program runs there
eagerly, where a placeholder cannot be made: each placeholder that only describes such a feature (a value of
the dict given, inline or through a variable that is used nowhere else) becomes the `tf.TensorSpec` of the same
dtype, shape and name (`serving_feature_placeholders`).
EvalSpec(exporters=...) migrates when it is a Latest/Final/BestExporter call, a list literal of them, or
a variable assigned one of those once and used only there; each exporter's receiver as above.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from codemods.api import ApiResolver
from codemods.syntax import call_arguments, single_assignment

RAW_BUILDER = "estimator.export.build_raw_serving_input_receiver_fn"
PLACEHOLDER = "placeholder"
PLACEHOLDER_PARAMS = ("dtype", "shape", "name")

# Receiver builders, with their parameters in order.
SERVING_INPUT_BUILDERS = {
    "estimator.export.build_parsing_serving_input_receiver_fn": ("feature_spec", "default_batch_size"),
    "estimator.export.build_raw_serving_input_receiver_fn": ("features", "default_batch_size"),
}
RECEIVER = "estimator.export.ServingInputReceiver"
TENSOR_RECEIVER = "estimator.export.TensorServingInputReceiver"  # its one feature given to the model_fn as it is
RECEIVERS = (RECEIVER, TENSOR_RECEIVER)
RECEIVER_PARAMS = ("features", "receiver_tensors", "receiver_tensors_alternatives")
# EvalSpec exporters compat.estimator_export has, with their parameters in order.
EXPORTERS = {
    "estimator.LatestExporter": ("name", "serving_input_receiver_fn", "assets_extra", "as_text", "exports_to_keep"),
    "estimator.FinalExporter": ("name", "serving_input_receiver_fn", "assets_extra", "as_text"),
    "estimator.BestExporter": (
        "name", "serving_input_receiver_fn", "event_file_pattern", "compare_fn", "assets_extra", "as_text",
        "exports_to_keep",
    ),
}
# An EvalSpec exporter the rewrite does not follow (a program's own Exporter subclass, one built elsewhere): the
# run-time tier passes it on, and compat.estimator_evaluation calls it as Estimator did (an Exporter, checked then)
OTHER_EXPORTER = ("EvalSpec(exporters=...) holds something other than a LatestExporter(...), FinalExporter(...) or "
                  "BestExporter(...) assigned once and used only there")
# Estimator APIs the rewrite replaces by compat.estimator_export's, under the same name.
REPLACED = (*SERVING_INPUT_BUILDERS, *RECEIVERS, *EXPORTERS)


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
        parameters = RECEIVER_PARAMS if api.path in RECEIVERS else SERVING_INPUT_BUILDERS[api.path]
        arguments, argument_problems = call_arguments(call, parameters)
        problems += argument_problems
        if "receiver_tensors_alternatives" in arguments:
            problems.append(f"{api.path.rsplit('.', 1)[1]}(receiver_tensors_alternatives=...) is not migrated yet")
    if not any(resolver.call_api(call).path in RECEIVERS for call in calls):
        problems.append(f"serving input receiver function {name} does not build a ServingInputReceiver(...)")
    return calls, problems


def exporter_calls(
    exporters: cst.BaseExpression, variables: dict[str, cst.BaseExpression], resolver: ApiResolver
) -> tuple[list[cst.Call], list[cst.BaseExpression | None], list[str]]:
    """The exporter calls of an EvalSpec's `exporters=` (to rewrite), their serving_input_receiver_fn
    arguments (checked as an export's: `receiver_calls`), and why they cannot be carried over
    (`variables`: names assigned once and used once, to what: an exporter call or a list literal)."""
    calls, receivers, problems = [], [], []
    for element in exporter_elements(exporters, variables):
        api = resolver.call_api(element)
        if api is None or api.path not in EXPORTERS:
            problems.append(OTHER_EXPORTER)
            continue
        arguments, argument_problems = call_arguments(element, EXPORTERS[api.path])
        problems += argument_problems
        calls.append(element)
        receivers.append(arguments.get("serving_input_receiver_fn"))
    return calls, receivers, problems


def exporter_elements(exporters: cst.BaseExpression, variables: dict[str, cst.BaseExpression]) -> list:
    """The exporters an EvalSpec's `exporters=` names (one, or a list), variables followed."""
    if isinstance(exporters, cst.Name) and exporters.value in variables:
        exporters = variables[exporters.value]
    elements = [element.value for element in exporters.elements] if isinstance(exporters, cst.List) else [exporters]
    return [variables.get(e.value, e) if isinstance(e, cst.Name) else e for e in elements]


def serving_feature_placeholders(module: cst.Module, resolver: ApiResolver) -> dict[int, cst.Call]:
    """The placeholder calls that only describe a `build_raw_serving_input_receiver_fn(features)`'s features
    (by id), each with that builder call: the values of a dict literal or comprehension given as `features`,
    inline or as a variable assigned once (and filled by `name[key] = ...`) and used only there."""
    builders = [call for call in m.findall(module, m.Call()) if _api_path(call, resolver) == RAW_BUILDER]
    found = {}
    for builder in builders:
        features = call_arguments(builder, SERVING_INPUT_BUILDERS[RAW_BUILDER])[0].get("features")
        scope = _enclosing_function(module, builder)  # (a model_fn's `features` parameter is another variable)
        values = _dict_values(features) if not isinstance(features, cst.Name) else _variable_values(scope, features)
        values = [value for value in (_value_of(scope, v) if isinstance(v, cst.Name) else v for v in values)
                  if value is not None]
        for value in values:
            if (_api_path(value, resolver) == PLACEHOLDER and _rooted_in_a_name(value.func)
                    and not any(arg.star for arg in value.args)):
                found[id(value)] = builder
    return found


def tensor_spec(placeholder: cst.Call) -> cst.Call:
    """`tf.placeholder(dtype, shape, name)` -> `tf.TensorSpec(shape=..., dtype=..., name=...)`, under the root
    name the call used (`tf.compat.v1.placeholder` -> `tf.TensorSpec`)."""
    arguments, _ = call_arguments(placeholder, PLACEHOLDER_PARAMS)
    root = placeholder.func
    while isinstance(root, cst.Attribute):
        root = root.value
    return cst.Call(cst.Attribute(root, cst.Name("TensorSpec")), [
        cst.Arg(arguments.get("shape", cst.Name("None")), keyword=cst.Name("shape"), equal=_EQUAL),
        *[cst.Arg(arguments[key], keyword=cst.Name(key), equal=_EQUAL) for key in ("dtype", "name") if key in arguments],
    ])


_EQUAL = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))


def _api_path(node: cst.CSTNode, resolver: ApiResolver) -> str | None:
    api = resolver.call_api(node)
    return api.path if api is not None else None


def _rooted_in_a_name(func: cst.BaseExpression) -> bool:
    """`tf.placeholder`, `tf.compat.v1.placeholder`: the module name TensorSpec is taken from."""
    while isinstance(func, cst.Attribute):
        func = func.value
        if isinstance(func, cst.Name):
            return True
    return False


def _dict_values(node: cst.BaseExpression | None) -> list[cst.BaseExpression]:
    if isinstance(node, cst.Dict):
        return [element.value for element in node.elements if isinstance(element, cst.DictElement)]
    if isinstance(node, cst.DictComp):
        return [node.value]
    return []


def _enclosing_function(module: cst.Module, call: cst.Call) -> cst.CSTNode:
    """The innermost function whose body holds `call` (the module when none does)."""
    enclosing = module
    for function in m.findall(module, m.FunctionDef()):
        if any(found is call for found in m.findall(function, m.Call())):
            enclosing = function  # (findall lists outer functions before the ones nested in them)
    return enclosing


def _value_of(scope: cst.CSTNode, variable: cst.Name) -> cst.BaseExpression | None:
    """What a feature variable holds (`image = tf.placeholder(...)`; `{"image": image}`): the value assigned to it
    once in `scope`, where it is used only there; None otherwise."""
    name = variable.value
    assigned = [assignment[1] for statement in m.findall(scope, m.SimpleStatementLine())
                if (assignment := single_assignment(statement)) is not None and assignment[0] == name]
    if len(assigned) != 1 or len(m.findall(scope, m.Name(name))) != 2:
        return None
    return assigned[0]


def _variable_values(scope: cst.CSTNode, variable: cst.Name) -> list[cst.BaseExpression]:
    """The feature values a variable of `scope` (the builder's function, or the module) holds: the dict assigned to
    it once, and `variable[key] = value`s; none when it is assigned more than once or used other than as one
    builder's argument and filled by key."""
    name = variable.value
    assigned, filled = [], []
    for statement in m.findall(scope, m.SimpleStatementLine()):
        assignment = single_assignment(statement)
        if assignment is not None and assignment[0] == name:
            assigned.append(assignment[1])
        elif m.matches(statement, m.SimpleStatementLine(body=[m.Assign(
                targets=[m.AssignTarget(target=m.Subscript(value=m.Name(name)))])])):
            filled.append(statement.body[0].value)
    uses = len(m.findall(scope, m.Name(name)))
    if len(assigned) != 1 or uses != 1 + len(assigned) + len(filled):
        return []
    return _dict_values(assigned[0]) + (filled if isinstance(assigned[0], cst.Dict) else [])
