"""What a project's modules say about each other, read with Python's `ast` (no LibCST): the project index
(migrate/project.py) reads every module of a tree with it before the rewrite begins.

`estimator_mentions` lists a module's estimator constructions and class definitions; `kept_estimators` decides,
across a project, which constructions build an estimator that stays TF1 (the run-time linked tier,
codemods/runtime_tier.py, then leaves the project's RunConfigs and train calls to it).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

# Estimator's parameters, in order, that a wrapped model_fn carries over (warm_start_from is not yet).
WRAPPED_PARAMETERS = ("model_fn", "model_dir", "config", "params")
# TPUEstimator's, in order, that compat.tpu_estimators.WrappedTPUModelFn takes (run as with use_tpu=False)
TPU_PARAMETERS = (*WRAPPED_PARAMETERS, "use_tpu", "train_batch_size", "eval_batch_size", "predict_batch_size",
                  "batch_axis", "eval_on_tpu", "export_to_tpu", "export_to_cpu")


@dataclass
class ProjectFacts:
    """What the rest of the project tells about one module: whether some module of it builds an estimator
    that stays TF1 (a custom model_fn Estimator, a TPUEstimator, a subclass), and where; and whether the
    project was written for TensorFlow 1.x, where `tf.estimator` meant the v1 estimators."""

    # "<constructor> in <path>" (no line: the rewrite's TODOs move lines, and messages must not change when
    # the output is rewritten again)
    keeps_estimators: list[str] = field(default_factory=list)
    tf1: bool = False  # some module of it was written for TensorFlow 1.x (codemods/tf_era.py)


@dataclass
class EstimatorMentions:
    """What one module says about estimators, for `kept_estimators` to decide across a project: the
    constructions of an `...Estimator` class (name, "name in path") and the classes it defines (bases)."""

    constructions: list[tuple[str, str]] = field(default_factory=list)
    classes: dict[str, list[str]] = field(default_factory=dict)


def estimator_mentions(source: str, path: str) -> EstimatorMentions:
    """Calls of a class named like an estimator (not the custom `Estimator(model_fn=...)` calls this tier
    wraps) and every class definition with its bases, read from `source`."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return EstimatorMentions()
    return estimator_mentions_in(list(ast.walk(tree)), path)


def estimator_mentions_in(nodes: list[ast.AST], path: str) -> EstimatorMentions:
    """`estimator_mentions` of a module already parsed with `ast`, given all its nodes (`ast.walk`)."""
    mentions = EstimatorMentions()
    for node in nodes:
        if isinstance(node, ast.ClassDef):
            bases = [_last_name(base) for base in node.bases]
            mentions.classes[node.name] = bases
            mentions.constructions += [(base, f"{base} in {path}") for base in bases if _estimator_like(base)]
        elif isinstance(node, ast.Call):
            name = _last_name(node.func)
            if not name[:1].isupper() or (name in WRAPPED_CLASSES and not _wrapped_ast_problems(node, name)):
                continue  # a class is called by its capitalised name (a project's estimator class included)
            mentions.constructions.append((name, f"{name} in {path}"))
    mentions.constructions = list(dict.fromkeys(mentions.constructions))
    return mentions


def kept_estimators(mentions: list[EstimatorMentions]) -> list[str]:
    """The constructions, across a project's modules, of an estimator the run-time tier does not take:
    TensorFlow's (any estimator class that is not a canned one or a wrapped custom `Estimator`) and the
    project's classes derived from one. A project's own class merely named `...Estimator` is not one."""
    classes = {name: bases for module in mentions for name, bases in module.classes.items()}

    def is_estimator(name: str, seen: frozenset = frozenset()) -> bool:
        if name in classes and name not in seen:
            return any(is_estimator(base, seen | {name}) for base in classes[name])
        return name not in classes and _estimator_like(name)

    found = [where for module in mentions for name, where in module.constructions if is_estimator(name)]
    return list(dict.fromkeys(found))


def _estimator_like(name: str) -> bool:
    return name.endswith("Estimator") or name.startswith(("BoostedTrees", "Baseline"))


def _last_name(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


# The estimator classes whose model_fn is wrapped, with the parameters the wrapping carries over
WRAPPED_CLASSES = {"Estimator": WRAPPED_PARAMETERS, "TPUEstimator": TPU_PARAMETERS}


def _wrapped_ast_problems(call: ast.Call, name: str) -> list[str]:
    """`wrapped_problems` on Python's own tree (the project pre-pass reads modules without LibCST)."""
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords):
        return ["*/** arguments"]
    parameters = WRAPPED_CLASSES[name]
    given = [*parameters[: len(call.args)], *(k.arg for k in call.keywords)]
    return [] if len(call.args) <= len(parameters) and set(given) <= set(parameters) \
        and "model_fn" in given else ["arguments"]
