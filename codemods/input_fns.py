"""Which input_fns the rewrite can keep as they are: functions that return a `tf.data.Dataset`.

Estimator called `input_fn()` in its graph and iterated the dataset it returned; TF2 code can call it and
iterate the same dataset eagerly, so such an input_fn needs no rewrite, only the certainty that it is one:
- a function of this module whose every `return` gives a dataset (a `tf.data` constructor, possibly
  followed by method calls such as `.shuffle(...).batch(...)`, or a local variable assigned one), which
  never makes a TF1 iterator, and has no parameter Estimator would have filled (`mode`, `params`,
  `config`, `input_context`: called without them it would run differently);
- `lambda: <such a function>(...)` or `lambda: <dataset expression>`, `functools.partial(<such a
  function>, ...)`, and `make_input_fn(...)`: a call of a function of this module that returns such a
  function defined inside it (the TensorFlow tutorials' input_fn factory).
(`numpy_input_fn` calls are rewritten instead: codemods/rules/numpy_input_fn.py.)
"""

from __future__ import annotations

import libcst as cst

from codemods.api import ApiResolver, dotted_name
from codemods.runtime_tier import RunTimeChecked

ESTIMATOR_FILLED_PARAMETERS = ("mode", "params", "config", "input_context")
TF1_ITERATORS = ("make_one_shot_iterator", "make_initializable_iterator", "get_next")
PARTIAL = ("functools.partial", "partial")


def is_dataset(expression: cst.BaseExpression, datasets: set[str], resolver: ApiResolver) -> bool:
    """Whether `expression` is a tf.data constructor call, or a method chain on one or on a `datasets` name."""
    while isinstance(expression, cst.Call):
        api = resolver.call_api(expression)
        if api is not None:
            return api.path.startswith("data.")
        if not isinstance(expression.func, cst.Attribute):
            return False
        expression = expression.func.value
    return isinstance(expression, cst.Name) and expression.value in datasets


class _Body(cst.CSTVisitor):
    """Returns, dataset-valued local names and TF1 iterators of one function body (nested defs excluded)."""

    def __init__(self, resolver: ApiResolver):
        self.resolver = resolver
        self.datasets: set[str] = set()
        self.returns: list[cst.BaseExpression | None] = []
        self.tf1_iterator = False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            name = node.targets[0].target.value
            if is_dataset(node.value, self.datasets, self.resolver):
                self.datasets.add(name)
            else:
                self.datasets.discard(name)

    def visit_Return(self, node: cst.Return) -> None:
        self.returns.append(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in TF1_ITERATORS:
            self.tf1_iterator = True


def dataset_function_problems(function: cst.FunctionDef, resolver: ApiResolver) -> list[str]:
    """Why `function` is not an input_fn returning a tf.data.Dataset (empty when it is)."""
    name = function.name.value
    # The run-time tier calls an input_fn as Estimator did (mode, params, config) and checks what it returns.
    problems = [
        RunTimeChecked(f"input_fn {name}({param.name.value}) would be given `{param.name.value}` by Estimator")
        for param in (*function.params.params, *function.params.kwonly_params)
        if param.name.value in ESTIMATOR_FILLED_PARAMETERS
    ]
    body = _Body(resolver)
    for statement in function.body.body:
        statement.visit(body)
    if body.tf1_iterator:
        problems.append(f"input_fn {name}() makes a TF1 iterator; return the tf.data.Dataset itself")
    if not body.returns or not all(
        value is not None and is_dataset(value, body.datasets, resolver) for value in body.returns
    ):
        problems.append(RunTimeChecked(f"input_fn {name}() does not return a tf.data.Dataset in every return statement"))
    return problems


def callable_input_fn_problems(
    input_fn: cst.BaseExpression, functions: dict[str, list[cst.FunctionDef]], resolver: ApiResolver
) -> list[str] | None:
    """Problems of an input_fn that is a dataset function, a lambda or a partial of one; None if it is
    none of these shapes."""

    def function_problems(name: str) -> list[str]:
        defined = functions.get(name, [])
        if len(defined) != 1:
            return [f"input_fn {name} is not one function defined in this module"]
        return dataset_function_problems(defined[0], resolver)

    if isinstance(input_fn, cst.Name) and input_fn.value in functions:
        problems = function_problems(input_fn.value)
        return problems or _required_parameters(functions[input_fn.value][0])
    if isinstance(input_fn, cst.Lambda):
        if input_fn.params.params or input_fn.params.star_arg != cst.MaybeSentinel.DEFAULT:
            return [RunTimeChecked("an input_fn lambda with parameters would be given Estimator's arguments")]
        body = input_fn.body
        if is_dataset(body, set(), resolver):
            return []
        if isinstance(body, cst.Call) and isinstance(body.func, cst.Name) and body.func.value in functions:
            return function_problems(body.func.value)
        return [RunTimeChecked("the input_fn lambda does not call a function of this module returning a tf.data.Dataset")]
    if isinstance(input_fn, cst.Call) and dotted_name(input_fn.func) in PARTIAL and input_fn.args:
        wrapped = input_fn.args[0].value
        if isinstance(wrapped, cst.Name) and wrapped.value in functions:
            return function_problems(wrapped.value)
        return ["functools.partial(...) does not wrap a function of this module returning a tf.data.Dataset"]
    if isinstance(input_fn, cst.Call) and isinstance(input_fn.func, cst.Name) and input_fn.func.value in functions:
        factory = functions[input_fn.func.value]
        made = _made_function(factory[0], resolver) if len(factory) == 1 else None
        if made is None:
            return [f"{input_fn.func.value}(...) does not return an input_fn defined inside it"]
        return dataset_function_problems(made, resolver) or _required_parameters(made)
    return None


def _required_parameters(function: cst.FunctionDef) -> list[str]:
    required = [p.name.value for p in function.params.params if p.default is None]
    return [f"input_fn {function.name.value}() needs arguments: {', '.join(required)}"] if required else []


def _made_function(factory: cst.FunctionDef, resolver: ApiResolver) -> cst.FunctionDef | None:
    """The function a factory defines in its body and returns (the only thing it returns), if any."""
    nested = {s.name.value: s for s in factory.body.body if isinstance(s, cst.FunctionDef)}
    body = _Body(resolver)
    for statement in factory.body.body:
        statement.visit(body)
    names = {value.value if isinstance(value, cst.Name) else None for value in body.returns}
    return nested.get(names.pop()) if len(names) == 1 and None not in names else None
