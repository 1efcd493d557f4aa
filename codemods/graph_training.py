"""Reading a TF1 training graph written in a function, for the session loops the rewrite migrates
(codemods/monitored_sessions.py, codemods/saver_loops.py): where the session sits, its input (a one-shot
iterator's batch), which statements build the graph, the minimized loss, the names statements bind.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import libcst as cst

from codemods.api import ApiResolver
from codemods.model_fns import GLOBAL_STEP_APIS, names_in
from codemods.syntax import call_arguments, fast_visit, single_assignment
from codemods.templates import source

ITERATOR_API = "data.make_one_shot_iterator"


def session_function(session: cst.With, functions: list[cst.FunctionDef], module: cst.Module, resolver: ApiResolver):
    """(the module-level function running `session`, its `with tf.Graph().as_default():` block or None), or
    why the session is not where a migrated loop can replace it. `functions`: the enclosing defs, outermost
    first."""
    if not functions:
        return ["the session runs at module level (a session in a module-level function migrates)"]
    function = functions[-1]
    if len(functions) > 1 or not any(statement is function for statement in module.body):
        return ["the session is in a nested function or method (a session in a module-level function migrates)"]
    graph = next((s for s in function.body.body if graph_block(s, resolver) and session in s.body.body), None)
    if graph is None and session not in function.body.body:
        return ["the session is not a statement of the function's body (or of its `with tf.Graph().as_default():`)"]
    return function, graph


def graph_block(statement: cst.CSTNode, resolver: ApiResolver) -> bool:
    """Whether `statement` is `with tf.Graph().as_default():` (nothing else)."""
    if not isinstance(statement, cst.With) or len(statement.items) != 1 or statement.items[0].asname is not None:
        return False
    item = statement.items[0].item
    if not (isinstance(item, cst.Call) and not item.args and isinstance(item.func, cst.Attribute)
            and item.func.attr.value == "as_default" and isinstance(item.func.value, cst.Call)):
        return False
    api = resolver.call_api(item.func.value)
    return api is not None and api.path == "Graph" and not item.func.value.args


def class_problems(parts, function: cst.FunctionDef, statements, session: cst.With, bound: set[str]) -> list[str]:
    """The class is written before the function (a program converting its old checkpoints builds it), so its
    code may read the module's names only."""
    class_code = [*parts.forward, *parts.loss_statements]
    made = set().union(*(bound_names(s) for s in class_code)) | {"features", "labels"}
    reads = set().union(*(names_in(s) for s in class_code), names_in(parts.optimizer)) - made
    params = {param.name.value for param in function.params.params}
    local = sorted(reads & (params | set().union(*(bound_names(s) for s in statements if s is not session)) - bound))
    if local:
        return [f"the network, loss or optimizer reads {', '.join(local)}, a variable of {function.name.value}()"]
    return []


def calls_in(statement: cst.CSTNode) -> list[cst.Call]:
    found = []

    class Calls(cst.CSTVisitor):
        def visit_Call(self, node):
            found.append(node)

    fast_visit(statement, Calls())
    return found


def graph_statements(statements, batch: set[str], resolver: ApiResolver) -> list[cst.BaseStatement]:
    """Those of `statements` (between the iterator and the session) that build the graph; the others (plain
    Python, calling no TensorFlow API and reading nothing the graph statements make) stay where they are."""
    plain = [s for s in statements if not _calls_tensorflow(s, resolver)]
    changed = True
    while changed:
        graph = [s for s in statements if not any(s is p for p in plain)]
        made = set().union(batch, *(bound_names(s) for s in graph))
        kept = [s for s in plain if not names_in(s) & made]
        changed, plain = len(kept) != len(plain), kept
    return [s for s in statements if not any(s is p for p in plain)]


def _calls_tensorflow(statement: cst.CSTNode, resolver: ApiResolver) -> bool:
    return any(resolver.call_api(call) is not None for call in calls_in(statement))


def is_method(func: cst.BaseExpression, receiver: str, method: str) -> bool:
    return (
        isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == receiver
        and func.attr.value == method
    )


def is_underscore(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "_"


def one_shot_input(statements, resolver, problems):
    """(index, features name, labels name, dataset, statements making the iterator) of the last statement
    `features, labels = <one-shot iterator>.get_next()`; index None when there is none."""
    iterators = {}  # name -> (statement, dataset) of `iterator = <one-shot iterator of dataset>`
    found = None, None, None, None, []
    for index, statement in enumerate(statements):
        assignment = single_assignment(statement)
        if assignment is not None:
            dataset = _one_shot_dataset(assignment[1], resolver)
            if dataset is not None:
                iterators[assignment[0]] = (statement, dataset)
            continue
        targets = _pair_assignment(statement)
        if targets is None:
            continue
        value = statement.body[0].value
        if not (isinstance(value, cst.Call) and not value.args and isinstance(value.func, cst.Attribute)
                and value.func.attr.value == "get_next"):
            continue
        receiver = value.func.value
        made = [statement]
        if isinstance(receiver, cst.Name) and receiver.value in iterators:
            iterator_statement, dataset = iterators[receiver.value]
            made.insert(0, iterator_statement)
        else:
            dataset = _one_shot_dataset(receiver, resolver)
        if dataset is None:
            continue
        found = index, targets[0], targets[1], dataset, made  # the last before the session is its input
    return found


def _pair_assignment(statement: cst.CSTNode) -> tuple[str, str] | None:
    """(a, b) of `a, b = ...`."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        return None
    target = small.targets[0].target
    if not isinstance(target, cst.Tuple) or len(target.elements) != 2:
        return None
    names = [element.value for element in target.elements]
    if not all(isinstance(name, cst.Name) for name in names) or names[0].value == names[1].value:
        return None
    return names[0].value, names[1].value


def _one_shot_dataset(node: cst.BaseExpression, resolver: ApiResolver) -> cst.BaseExpression | None:
    """`dataset` of `tf.data.make_one_shot_iterator(dataset)` or `dataset.make_one_shot_iterator()`."""
    if not isinstance(node, cst.Call):
        return None
    api = resolver.call_api(node)
    if api is not None and api.path == ITERATOR_API and len(node.args) == 1 and node.args[0].keyword is None:
        return node.args[0].value
    if isinstance(node.func, cst.Attribute) and node.func.attr.value == "make_one_shot_iterator" and not node.args:
        return node.func.value
    return None


def is_global_step(statement: cst.CSTNode, resolver: ApiResolver) -> bool:
    assignment = single_assignment(statement)
    if assignment is None or not isinstance(assignment[1], cst.Call):
        return False
    api = resolver.call_api(assignment[1])
    return api is not None and api.path in GLOBAL_STEP_APIS


def global_step_variable(statement: cst.CSTNode, resolver: ApiResolver) -> cst.SimpleStatementLine | None:
    """`step = tf.Variable(0, trainable=False, name="global_step")` (TF 1.x tutorials' global step, which
    `tf.train.get_global_step()` found by its name) as `step = <tf>.compat.v1.train.get_or_create_global_step()`,
    the step the migrated model counts; None for any other statement."""
    assignment = single_assignment(statement)
    call = assignment[1] if assignment is not None else None
    api = resolver.call_api(call) if isinstance(call, cst.Call) else None
    if api is None or api.path != "Variable" or not isinstance(call.func, cst.Attribute):
        return None
    arguments, problems = call_arguments(call, ("initial_value",))
    values = {key: source(value) for key, value in arguments.items()}
    if problems or set(values) - {"dtype"} != {"initial_value", "trainable", "name"} or values["initial_value"] != "0" \
            or values["trainable"] != "False" or values["name"].strip("'\"") != "global_step":
        return None
    module = source(call.func.value) if api.v1 else f"{source(call.func.value)}.compat.v1"
    made = cst.parse_expression(f"{module}.train.get_or_create_global_step()")
    return statement.with_deep_changes(statement.body[0], value=made)


def minimized_loss(statements, train_op: str) -> str | None:
    """The loss name of `train_op = <...>.minimize(loss, ...)`."""
    for statement in statements:
        assignment = single_assignment(statement)
        if assignment is None or assignment[0] != train_op or not isinstance(assignment[1], cst.Call):
            continue
        if not (isinstance(assignment[1].func, cst.Attribute) and assignment[1].func.attr.value == "minimize"):
            return None
        arguments, _ = call_arguments(assignment[1], ("loss",))
        loss = arguments.get("loss")
        return loss.value if isinstance(loss, cst.Name) else None
    return None


def applied_gradients_loss(statements, train_op: str) -> str | None:
    """The loss of `train_op = <optimizer>.apply_gradients(..., global_step=...)` whose gradients come from one
    `<optimizer>.compute_gradients(loss)` (clipped or not in between); None otherwise."""
    assignments = [a for a in map(single_assignment, statements) if a is not None and a[0] == train_op]
    if len(assignments) != 1 or not isinstance(assignments[0][1], cst.Call):
        return None
    apply = assignments[0][1]
    if not (isinstance(apply.func, cst.Attribute) and apply.func.attr.value == "apply_gradients"
            and call_arguments(apply, ("grads_and_vars", "global_step"))[0].get("global_step") is not None):
        return None
    losses = {
        arguments["loss"].value
        for call in (c for s in statements for c in calls_in(s))
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "compute_gradients"
        for arguments in [call_arguments(call, ("loss",))[0]]
        if isinstance(arguments.get("loss"), cst.Name)
    }
    return losses.pop() if len(losses) == 1 else None


def bound_names(statement: cst.CSTNode) -> set[str]:
    """Every name a statement binds (assignment and loop targets, defs, imports, with ... as)."""
    bound: set[str] = set()

    class Targets(cst.CSTVisitor):
        def visit_AssignTarget(self, node):
            bound.update(names_in(node.target))

        def visit_AugAssign(self, node):
            bound.update(names_in(node.target))

        def visit_AnnAssign(self, node):
            bound.update(names_in(node.target))

        def visit_For(self, node):
            bound.update(names_in(node.target))

        def visit_AsName(self, node):
            bound.update(names_in(node.name))

        def visit_FunctionDef(self, node):
            bound.add(node.name.value)

        def visit_ClassDef(self, node):
            bound.add(node.name.value)

    fast_visit(statement, Targets())
    return bound


def bound_by_with(session: cst.With) -> set[str]:
    return {item.asname.name.value for item in session.items if item.asname and isinstance(item.asname.name, cst.Name)}


class BatchRenamer(cst.CSTTransformer):
    """Renames variables (not attributes or keywords): the input's batch becomes `features`, `labels`."""

    def __init__(self, renames: dict[str, str]):
        self.renames = {old: new for old, new in renames.items() if old != new}

    def leave_Name(self, original, updated):
        return updated.with_changes(value=self.renames[updated.value]) if updated.value in self.renames else updated

    def leave_Attribute(self, original, updated):
        return updated.with_changes(attr=original.attr)

    def leave_Arg(self, original, updated):
        return updated.with_changes(keyword=original.keyword)


_WRAPPED_MODEL = """\
def {name}(features, labels, mode):
    # The graph {function}() built for the session, kept as written: compat.wrapped_model_fns runs it
{statements}    return wrapped_model_fns.EstimatorSpec(mode, loss={loss}, train_op={train_op})

model = wrapped_model_fns.WrappedModelFn({name})
"""


@dataclass
class WrappedGraph:
    """A session's graph kept as written (tier 2): its statements, the batch renamed `features`/`labels`,
    become a model_fn nested in the function (reading its variables as they did) that
    `compat.wrapped_model_fns.WrappedModelFn` runs."""

    name: str  # the nested model_fn's
    function: str  # the function it is nested in
    statements: list[cst.BaseStatement]
    loss: str
    train_op: str

    def model_code(self, respell=lambda statement: statement) -> str:
        """The nested model_fn and `model = wrapped_model_fns.WrappedModelFn(...)`, at column 0; `respell`: what
        the rules would make of each statement where it was (TF1 names)."""
        statements = "".join(textwrap.indent(source(respell(statement)), "    ") for statement in self.statements)
        return _WRAPPED_MODEL.format(name=self.name, function=self.function, statements=statements, loss=self.loss,
                                     train_op=self.train_op)


def wrapped_problems(wrapped: WrappedGraph, kept, function: cst.FunctionDef) -> list[str]:
    """Why the graph's statements cannot move into a model_fn nested in the function: there, a name they assign
    is the model_fn's own, so the function may not assign it too (nor read it: `_name_problems`)."""
    made = set().union(*(bound_names(s) for s in wrapped.statements))
    params = {param.name.value for param in function.params.params}
    shared = sorted(made & (params | set().union(*(bound_names(s) for s in kept))) - {"_"})
    problems = []
    if shared:
        problems.append(f"the graph code assigns {', '.join(shared)}, which {function.name.value}() also assigns")
    if wrapped.name in set().union(*(names_in(s) for s in [*kept, *wrapped.statements])) | params:
        problems.append(f"{function.name.value}() already uses the name {wrapped.name} the graph's model_fn would take")
    return problems
