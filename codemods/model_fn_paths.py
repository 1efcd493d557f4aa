"""The EVAL and PREDICT paths of a migrated model_fn (codemods/model_fns.py), for `evaluate` and `predict`.

Estimator ran the model_fn again in EVAL mode (network, loss, then its `eval_metric_ops`) and in PREDICT
mode (network, then `predictions`). The migrated class gets those paths as methods, the statements as the
model_fn wrote them, with `training = False`:
- `evaluation_step(features, labels)` returns the loss and, for each metric, the tensors its
  `tf.compat.v1.metrics.<kind>(...)` call was given (as a dict); `EVAL_METRICS` names each metric's kind;
  `compat.model_fns.evaluate` accumulates them over the batches in the Keras metric computing the same
  value (`loss`: the mean of the batch losses, as Estimator's `metrics.mean(loss)`).
- `prediction_step(features)` returns the `predictions` of the `if mode == PREDICT:` branch;
  `compat.model_fns.predict` yields them per example, as Estimator.predict.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import libcst as cst

from codemods.model_fns import ModelFnReader, ModelFnShape, NetworkRewriter, names_in, needed_statements
from codemods.syntax import call_arguments, is_none, single_assignment
from codemods.templates import source

# tf.compat.v1.metrics functions carried over, with their parameters in order (compat.model_fns.KERAS_METRICS).
METRICS = {
    "accuracy": ("labels", "predictions", "weights"),
    "mean": ("values", "weights"),
    "mean_squared_error": ("labels", "predictions", "weights"),
    "mean_absolute_error": ("labels", "predictions", "weights"),
    "root_mean_squared_error": ("labels", "predictions", "weights"),
    "precision": ("labels", "predictions", "weights"),
    "recall": ("labels", "predictions", "weights"),
}


@dataclass
class Path:
    statements: list[cst.BaseStatement]  # rewritten, only what the result needs
    result: str  # the returned expression's code
    metrics: dict[str, str]  # evaluation: metric key -> kind


class _EvaluationRewriter(NetworkRewriter):
    """The forward rewrite, plus `metrics.<kind>(labels, predictions, weights)` -> `dict(labels=..., ...)`."""

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        api = self.analysis.resolver.call_api(original)
        if api is None or not api.path.startswith("metrics."):
            return super().leave_Call(original, updated)
        kind = api.path.split(".", 1)[1]
        if kind not in METRICS:
            self.analysis.problems.append(f"eval metric metrics.{kind} is not migrated yet")
            return updated
        arguments, problems = call_arguments(updated, (*METRICS[kind], "metrics_collections", "updates_collections", "name"))
        self.analysis.problems.extend(problems)
        if {"metrics_collections", "updates_collections"} & set(arguments):
            self.analysis.problems.append(f"metrics.{kind}(*_collections=...) is not migrated (TF1 collections)")
        given = ", ".join(f"{key}={source(arguments[key])}" for key in METRICS[kind] if key in arguments)
        return cst.parse_expression(f"dict({given})")


def _branch(body, analysis, mode):
    return next((i for i, statement in enumerate(body) if analysis.mode_branch(statement) == mode), None)


def _shared(statements, shape, analysis):
    """The statements every mode ran: no mode branch, nothing that makes the optimizer or the train_op."""
    return [s for s in statements if analysis.mode_branch(s) is None and id(s) not in shape.training_only]


def _path(statements, result, analysis, rewriter, unavailable: set[str]) -> Path:
    statements = [s.visit(rewriter) for s in needed_statements(statements, sorted(names_in(result)))]
    result = result.visit(rewriter)
    used = set().union(names_in(result), *(names_in(s) for s in statements))
    for name in sorted(used & unavailable):
        analysis.problems.append(f"the path reads `{name}`, which it does not have")
    return Path(statements, source(result), {})


def prediction_path(shape: ModelFnShape, resolver, exported: bool = False) -> Path | list[str]:
    """The PREDICT path: statements up to the `if mode == PREDICT:` branch's return, and its predictions
    (`exported`: for export_saved_model, whose only signature is then the predictions: no export_outputs)."""
    analysis = ModelFnReader(resolver)
    index = _branch(shape.body, analysis, "PREDICT")
    if index is None:
        return ["model_fn has no `if mode == PREDICT:` branch (predict() ran its other code without labels)"]
    branch = list(shape.body[index].body.body)
    spec = analysis.estimator_spec(branch[-1]) or {}
    if "predictions" not in spec:
        return ["the PREDICT branch does not return EstimatorSpec(predictions=...)"]
    if exported and "export_outputs" in spec and not is_none(spec["export_outputs"]):
        return ["the PREDICT branch's EstimatorSpec(export_outputs=...) is not migrated yet (export its "
                "signatures with tf.saved_model.save by hand)"]
    statements = _shared(shape.body[:index], shape, analysis) + branch[:-1]
    path = _path(statements, spec["predictions"], analysis, NetworkRewriter(analysis), {"labels", "mode", "config"})
    return analysis.problems or path


def evaluation_path(shape: ModelFnShape, resolver) -> Path | list[str]:
    """The EVAL path: from the top to the EVAL return (an `if mode == EVAL:` branch's, the return after the
    `if mode == TRAIN:` branch, or the single return), its loss and eval_metric_ops."""
    analysis = ModelFnReader(resolver)
    body = shape.body
    index, train = _branch(body, analysis, "EVAL"), _branch(body, analysis, "TRAIN")
    if index is not None:
        branch = list(body[index].body.body)
        statements, last = _shared(body[:index], shape, analysis) + branch[:-1], branch[-1]
    elif train is not None:
        statements, last = _shared(body[:train], shape, analysis) + _shared(body[train + 1 : -1], shape, analysis), body[-1]
    else:
        statements, last = _shared(body[:-1], shape, analysis), body[-1]
    spec = analysis.estimator_spec(last) or {}
    loss = spec.get("loss")
    if not (isinstance(loss, cst.Name) and loss.value == shape.loss):
        return [f"the EVAL path does not return EstimatorSpec(loss={shape.loss}, ...)"]
    operations = spec.get("eval_metric_ops", cst.Dict([]))
    kinds = _metric_kinds(operations, statements, analysis)
    result = cst.Tuple([cst.Element(loss), cst.Element(operations)])
    path = _path(statements, result, analysis, _EvaluationRewriter(analysis), {"mode", "config"})
    path.metrics = kinds
    return analysis.problems or path


def _metric_kinds(operations, statements, analysis) -> dict[str, str]:
    """eval_metric_ops key -> metric kind, for a dict literal (inline or assigned) of metrics.<kind>(...) calls
    (inline or assigned)."""
    assigned = {}
    for statement in statements:
        assignment = single_assignment(statement)
        if assignment:
            assigned[assignment[0]] = assignment[1]
    if isinstance(operations, cst.Name):
        operations = assigned.get(operations.value)
    if not isinstance(operations, cst.Dict):
        analysis.problems.append("eval_metric_ops is not a dict literal of the model_fn")
        return {}
    kinds = {}
    for element in operations.elements:
        value = element.value
        if isinstance(value, cst.Name):
            value = assigned.get(value.value)
        api = analysis.resolver.call_api(value) if isinstance(value, cst.Call) else None
        key = element.key.evaluated_value if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString) else None
        if key is None or api is None or not api.path.startswith("metrics."):
            analysis.problems.append("an eval_metric_ops entry is not \"name\": tf.compat.v1.metrics.<kind>(...)")
            continue
        kinds[key] = api.path.split(".", 1)[1]
    return kinds


def path_methods(shape: ModelFnShape, evaluation: Path | None, prediction: Path | None) -> str:
    """The class's evaluation_step / prediction_step methods (text, indented for the class body)."""
    code = ""
    if evaluation is not None:
        kinds = ", ".join(f"{key!r}: {kind!r}" for key, kind in evaluation.metrics.items()).replace("'", '"')
        code += (
            f"\n    EVAL_METRICS = {{{kinds}}}  # eval_metric_ops key -> tf.compat.v1.metrics function\n\n"
            "    def evaluation_step(self, features, labels):\n"
            '        """model_fn\'s EVAL path for a batch: the loss, and what each eval metric was given."""\n'
            + _method_body(shape, evaluation)
        )
    if prediction is not None:
        code += (
            "\n    def prediction_step(self, features):\n"
            '        """model_fn\'s PREDICT path for a batch: its predictions."""\n'
            + _method_body(shape, prediction)
        )
    return code


def _method_body(shape: ModelFnShape, path: Path) -> str:
    reads = set().union(*(names_in(s) for s in path.statements)) | names_in(cst.parse_expression(f"({path.result})"))
    preamble = "training = False\n" if "training" in reads else ""
    if "params" in shape.parameters and "params" in reads:
        preamble += "params = self.params\n"
    code = preamble + "".join(source(s) for s in path.statements) + f"return {path.result}\n"
    return textwrap.indent(textwrap.dedent(code).lstrip("\n"), " " * 8)

