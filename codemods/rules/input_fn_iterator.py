"""An input_fn returning a TF1 one-shot iterator's `get_next()` over a dataset -> returning the dataset.

    iterator = dataset.make_one_shot_iterator()        ->    return dataset
    features, labels = iterator.get_next()
    return features, labels

Estimator iterated a dataset an input_fn returned exactly as it iterated such an iterator (once, from the
start, in its graph), so the program means the same; TF2 has no one-shot iterator to return, and the migrated
training needs the dataset. Only input_fns the module uses as input_fns and nothing else are rewritten
(codemods/input_fns.py: iterator_input_fns).
"""

import libcst as cst

from codemods.registry import Rule, register


def _iterated(value: cst.BaseExpression) -> cst.BaseExpression:
    """The dataset under `d.make_one_shot_iterator()`, `make_one_shot_iterator(d)` and their `.get_next()`."""
    while isinstance(value, cst.Call):
        name = value.func.attr.value if isinstance(value.func, cst.Attribute) else getattr(value.func, "value", "")
        if name == "get_next" and isinstance(value.func, cst.Attribute):
            value = value.func.value
        elif name == "make_one_shot_iterator":
            return value.args[0].value if value.args else value.func.value
        else:
            break
    raise ValueError("not a one-shot iterator over a dataset")  # iterator_return said it was: a bug if reached


@register
class InputFnIteratorRule(Rule):
    rule_id = "input-fn-iterator"
    node_types = (cst.FunctionDef,)

    def leave(self, original: cst.FunctionDef, updated: cst.FunctionDef, ctx):
        form = ctx.facts.iterator_input_fns.get(original.name.value)
        if form is None or form.function is not original:
            return updated
        body = list(updated.body.body)
        first = body[-form.dropped]
        made = first.body[0]
        dataset = _iterated(made.value)
        returned = cst.SimpleStatementLine([cst.Return(dataset)], leading_lines=first.leading_lines)
        ctx.record(original, self.rule_id, True, f"input_fn {original.name.value}: returns its dataset instead of a "
                   "one-shot iterator's get_next() (Estimator iterated both the same way)")
        return updated.with_changes(body=updated.body.with_changes(body=[*body[: -form.dropped], returned]))
