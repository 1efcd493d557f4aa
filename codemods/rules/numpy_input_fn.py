"""`numpy_input_fn(x={...}, y, batch_size, num_epochs, shuffle)` and `pandas_input_fn(x=frame, y=series, ...)`
-> a zero-argument function returning a `tf.data.Dataset` of (features, labels), so it still works wherever
an input_fn was called. A DataFrame's columns are the features (`dict(frame)`, dtypes kept, the index
dropped, as pandas_input_fn did).

Order of operations follows the Estimator's feeding queue: epochs are concatenated before batching
(`repeat(num_epochs).batch(batch_size)`), so a batch can span two epochs and only the very last batch is
short. `num_epochs=None` repeats forever. With `shuffle=True` each epoch is shuffled through a buffer of
`queue_capacity` (default 1000) examples (`shuffle=<a flag or parameter>`: when it is true);
numpy_input_fn took no seed, so its order was never reproducible and neither order is "the" order.
numpy_input_fn kept the arrays it was given: where the scope binds a name of its arguments again (the test
split read into the same variables, a loop), the function keeps the value it had (`lambda x=x: ...`).

Where the program calls that input_fn itself (`features, labels = fn()` inside an input_fn of its own), the
function returns what numpy_input_fn's did, the tensors of the next batch: `make_one_shot_iterator(...)
.get_next()` over the same pipeline (Estimator ran them in its graph; compat.graph_input does the same).
"""

import libcst as cst

from codemods.facts import NUMPY_INPUT_FN_APIS, numpy_input_fn_arguments, numpy_input_fn_problems
from codemods.input_fns import ESTIMATOR_FILLED_PARAMETERS
from codemods.registry import Rule, register
from codemods.syntax import is_none
from codemods.templates import source

_DEFAULT_BATCH_SIZE = "128"
_DEFAULT_QUEUE_CAPACITY = "1000"


@register
class NumpyInputFnRule(Rule):
    rule_id = "numpy-input-fn"
    node_types = (cst.Call,)

    def leave(self, original: cst.Call, updated: cst.Call, ctx):
        api = ctx.resolver.call_api(original)
        if api is None or not api.is_one_of(*NUMPY_INPUT_FN_APIS):
            return updated
        if ctx.facts.input_fn_blocked(original):
            return updated  # its estimator stays an Estimator, so the input_fn stays as it was
        problems = numpy_input_fn_problems(original)
        if problems:
            for problem in problems:
                ctx.todo(original, self.rule_id, problem)
            return updated
        kwargs, _ = numpy_input_fn_arguments(updated)
        pandas = api.path.endswith("pandas_input_fn")
        name = "pandas_input_fn" if pandas else "numpy_input_fn"
        x, y = source(kwargs["x"]), kwargs.get("y")
        if pandas:  # a DataFrame's columns become the features dict; its index is not a feature
            x = f"dict({x})"
        lines = [
            f"{ctx.need_tensorflow()}.data.Dataset.from_tensor_slices("
            + (x if y is None or is_none(y) else f"({x}, {source(y)})")
            + ")"
        ]
        shuffle = kwargs["shuffle"]
        literal = isinstance(shuffle, cst.Name) and shuffle.value in ("True", "False")
        if not literal or shuffle.value == "True":
            capacity = kwargs.get("queue_capacity", cst.Integer(_DEFAULT_QUEUE_CAPACITY))
            if is_none(capacity):  # pandas_input_fn: a queue of 4 x the frame's length when shuffling
                capacity = cst.parse_expression(f"4 * len({source(kwargs['x'])})")
            shuffled = f".shuffle({source(capacity)})"
            # a flag or parameter: shuffled when it is true, as numpy_input_fn read it
            lines.append(shuffled if literal else f".apply(lambda dataset: dataset{shuffled} if {source(shuffle)} else dataset)")
        num_epochs = kwargs.get("num_epochs", cst.Integer("1"))
        lines.append(".repeat()" if is_none(num_epochs) else f".repeat({source(num_epochs)})")
        lines.append(f".batch({source(kwargs.get('batch_size', cst.Integer(_DEFAULT_BATCH_SIZE)))})")
        body = "".join("\n    " + line for line in lines)
        if id(original) in ctx.facts.called_input_fns:  # the program calls it: the tensors of one batch per run
            iterator = f"{ctx.need_tensorflow()}.compat.v1.data.make_one_shot_iterator"
            result = f"{iterator}({body}\n).get_next()"
        else:
            result = f"({body}\n)"
        dataset = _keeping_values_of(ctx.facts.rebound_input_names.get(id(original), []), result)
        if ctx.facts.called_input_fns.get(id(original)):  # `(lambda: ...)()`: the call is not the lambda's
            dataset = dataset.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        ctx.record(original, self.rule_id, True, f"{name} -> tf.data.Dataset pipeline")
        return dataset


def _keeping_values_of(rebound: list[str], result: str) -> cst.BaseExpression:
    """`lambda: <result>`; names in `rebound` (bound again later in the scope) keep the values they have now,
    as numpy_input_fn kept its arguments: `lambda x=x: ...` (an immediately called lambda when a name is one
    Estimator would fill as an input_fn parameter)."""
    if not rebound:
        return cst.parse_expression(f"lambda: {result}")
    names = ", ".join(rebound)
    if any(variable in ESTIMATOR_FILLED_PARAMETERS for variable in rebound):
        return cst.parse_expression(f"(lambda {names}: lambda: {result})({names})")
    return cst.parse_expression(f"lambda {', '.join(f'{variable}={variable}' for variable in rebound)}: {result}")

