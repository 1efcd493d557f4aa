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

from dataclasses import dataclass

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


@dataclass
class IteratorReturn:
    """An input_fn that ends by returning a TF1 one-shot iterator's `get_next()` over a dataset (Estimator
    iterated a returned dataset the same way): `return <dataset>` replaces its last `dropped` statements."""

    function: cst.FunctionDef
    dataset: cst.BaseExpression
    dropped: int  # how many statements at the end of the body (the return included) the new return replaces


def iterator_return(function: cst.FunctionDef, resolver: ApiResolver) -> IteratorReturn | None:
    """The iterator form of `function`, when it is one of:
        return <dataset>.make_one_shot_iterator().get_next()   (or tf.compat.v1.data.make_one_shot_iterator(d))
        iterator = <one-shot iterator of a dataset>; return iterator.get_next()
        [iterator = ...;] features, labels = <iterator>.get_next(); return features, labels   (or one name)
    where the names it binds are used nowhere else in the function. None otherwise."""
    if not isinstance(function.body, cst.IndentedBlock):
        return None
    body = list(function.body.body)
    small = [s.body[0] if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1 else None for s in body]
    if not small or not isinstance(small[-1], cst.Return) or small[-1].value is None:
        return None
    returned, dropped, iterator = small[-1].value, 1, None
    names = _returned_names(returned)
    if names and len(small) >= 2 and _assigns(small[-2], names):  # features, labels = ....get_next()
        returned, dropped = small[-2].value, 2
    if _get_next_of(returned) is None:
        return None
    source = _get_next_of(returned)
    if isinstance(source, cst.Name) and len(small) > dropped and _assigns(small[-dropped - 1], [source.value]):
        iterator, source = source.value, _one_shot_of(small[-dropped - 1].value, resolver)
        dropped += 1
    else:
        source = _one_shot_of(source, resolver)
    kept = _Body(resolver)
    for statement in body[:-dropped]:
        statement.visit(kept)
    if source is None or not is_dataset(source, kept.datasets, resolver):
        return None
    bound = [*(names or []), *([iterator] if iterator else [])]
    if any(_name_uses(statement, bound) for statement in body[:-dropped]):
        return None
    return IteratorReturn(function, source, dropped)


def _returned_names(value: cst.BaseExpression) -> list[str] | None:
    if isinstance(value, cst.Name):
        return [value.value]
    if isinstance(value, cst.Tuple) and all(isinstance(e.value, cst.Name) for e in value.elements):
        return [e.value.value for e in value.elements]
    return None


def _assigns(statement, names: list[str]) -> bool:
    """Whether `statement` is `<names> = ...` (one target: a name, or a tuple of exactly these names)."""
    if not isinstance(statement, cst.Assign) or len(statement.targets) != 1:
        return False
    return _returned_names(statement.targets[0].target) == names


def _get_next_of(value: cst.BaseExpression) -> cst.BaseExpression | None:
    """`x` of `x.get_next()`."""
    if (isinstance(value, cst.Call) and not value.args and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == "get_next"):
        return value.func.value
    return None


def _one_shot_of(value: cst.BaseExpression, resolver: ApiResolver) -> cst.BaseExpression | None:
    """`d` of `d.make_one_shot_iterator()` or `tf.compat.v1.data.make_one_shot_iterator(d)`."""
    if not isinstance(value, cst.Call):
        return None
    api = resolver.call_api(value)
    if api is not None and api.path == "data.make_one_shot_iterator" and len(value.args) == 1 \
            and value.args[0].keyword is None:
        return value.args[0].value
    if isinstance(value.func, cst.Attribute) and value.func.attr.value == "make_one_shot_iterator" and not value.args:
        return value.func.value
    return None


def _name_uses(node: cst.CSTNode, names: list[str]) -> bool:
    found = []

    class Uses(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            if name.value in names:
                found.append(name)

    node.visit(Uses())
    return bool(found)


def dataset_function_problems(function: cst.FunctionDef, resolver: ApiResolver,
                              iterator_forms: dict | None = None) -> list[str]:
    """Why `function` is not an input_fn returning a tf.data.Dataset (empty when it is). An input_fn in
    `iterator_forms` (name -> IteratorReturn: its one-shot iterator becomes the dataset) is taken as returning
    its dataset."""
    name = function.name.value
    form = (iterator_forms or {}).get(name)
    if form is not None and form.function is not function:
        form = None
    # The run-time tier calls an input_fn as Estimator did (mode, params, config) and checks what it returns.
    problems = [
        RunTimeChecked(f"input_fn {name}({param.name.value}) would be given `{param.name.value}` by Estimator")
        for param in (*function.params.params, *function.params.kwonly_params)
        if param.name.value in ESTIMATOR_FILLED_PARAMETERS
    ]
    body = _Body(resolver)
    for statement in function.body.body[: -form.dropped] if form else function.body.body:
        statement.visit(body)
    if form is not None:
        body.returns.append(form.dataset)
    if body.tf1_iterator:
        # (compat.graph_input reads the tensors of its get_next() in a graph, as Estimator did)
        problems.append(RunTimeChecked(f"input_fn {name}() makes a TF1 iterator; return the tf.data.Dataset itself"))
    if not body.returns or not all(
        value is not None and is_dataset(value, body.datasets, resolver) for value in body.returns
    ):
        problems.append(RunTimeChecked(f"input_fn {name}() does not return a tf.data.Dataset in every return statement"))
    return problems


def callable_input_fn_problems(
    input_fn: cst.BaseExpression, functions: dict[str, list[cst.FunctionDef]], resolver: ApiResolver,
    iterator_forms: dict | None = None,
) -> list[str] | None:
    """Problems of an input_fn that is a dataset function, a lambda or a partial of one; None if it is
    none of these shapes (`iterator_forms`: see dataset_function_problems)."""

    def function_problems(name: str) -> list[str]:
        defined = functions.get(name, [])
        if len(defined) != 1:
            return [f"input_fn {name} is not one function defined in this module"]
        return dataset_function_problems(defined[0], resolver, iterator_forms)

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
        if made is None:  # what it returns is an input_fn, or not: the run-time tier checks when it runs
            return [RunTimeChecked(f"{input_fn.func.value}(...) does not return an input_fn defined inside it")]
        return dataset_function_problems(made, resolver) or _required_parameters(made)
    return None


def _required_parameters(function: cst.FunctionDef) -> list[str]:
    required = [p.name.value for p in function.params.params if p.default is None]
    return [f"input_fn {function.name.value}() needs arguments: {', '.join(required)}"] if required else []


def returned_values(function: cst.FunctionDef, resolver: ApiResolver) -> list[cst.BaseExpression | None]:
    """What each return statement of `function` returns (nested functions excluded; None: a bare return)."""
    body = _Body(resolver)
    for statement in function.body.body:
        statement.visit(body)
    return body.returns


def _made_function(factory: cst.FunctionDef, resolver: ApiResolver) -> cst.FunctionDef | None:
    """The function a factory defines in its body and returns (the only thing it returns), if any."""
    nested = {s.name.value: s for s in factory.body.body if isinstance(s, cst.FunctionDef)}
    names = {value.value if isinstance(value, cst.Name) else None for value in returned_values(factory, resolver)}
    return nested.get(names.pop()) if len(names) == 1 and None not in names else None


_INPUT_FN_METHODS = ("train", "evaluate", "predict")  # Estimator methods taking input_fn first
_SPECS = ("TrainSpec", "EvalSpec")


def iterator_input_fns(module: cst.Module, functions: dict[str, list[cst.FunctionDef]], resolver: ApiResolver
                       ) -> dict[str, IteratorReturn]:
    """The module's top-level functions in iterator form (`iterator_return`) that it uses only as input_fns
    (given as `input_fn=`, first to train/evaluate/predict or a Train/EvalSpec, or called by such a lambda):
    returning the dataset instead changes nothing for Estimator and gives the migration its dataset."""
    top_level = {id(statement) for statement in module.body}
    candidates = {}
    for name, defined in functions.items():
        if len(defined) == 1 and id(defined[0]) in top_level:
            form = iterator_return(defined[0], resolver)
            if form is not None:
                candidates[name] = form
    if not candidates:
        return {}
    uses = _InputFnUses(set(candidates))
    module.visit(uses)
    return {name: form for name, form in candidates.items() if name not in uses.other}


class _InputFnUses(cst.CSTVisitor):
    """Names of `names` referred to other than as an input_fn (`other`)."""

    def __init__(self, names: set[str]):
        self.names, self.other, self.stack = names, set(), []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Name) and node.value in self.names and not self._as_input_fn(node):
            self.other.add(node.value)
        self.stack.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()

    def _as_input_fn(self, name: cst.Name) -> bool:
        parents = self.stack[::-1]
        if isinstance(parents[0], cst.FunctionDef) and parents[0].name is name:
            return True  # its own def
        if isinstance(parents[0], cst.Call) and parents[0].func is name and len(parents) > 2 \
                and isinstance(parents[1], cst.Lambda) and parents[1].body is parents[0]:
            parents = parents[2:]  # lambda: input_fn(...)
        elif not (isinstance(parents[0], cst.Arg) and parents[0].value is name):
            return False
        arg = parents[0]
        if not isinstance(arg, cst.Arg) or len(parents) < 2 or not isinstance(parents[1], cst.Call):
            return False
        if arg.keyword is not None:
            return arg.keyword.value == "input_fn"
        call = parents[1]
        function = dotted_name(call.func) or ""
        first = call.args[0] is arg
        return first and (function.rsplit(".", 1)[-1] in _SPECS or (
            isinstance(call.func, cst.Attribute) and call.func.attr.value in _INPUT_FN_METHODS))
