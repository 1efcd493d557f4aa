"""What a project's modules say about each other, read with Python's `ast` (no LibCST): the project index
(migrate/project.py) reads every module of a tree with it before the rewrite begins.

`estimator_mentions` lists a module's estimator constructions and class definitions; `kept_estimators` decides,
across a project, which constructions build an estimator that stays TF1 (the run-time linked tier,
codemods/runtime_tier.py, then leaves the project's RunConfigs and train calls to it).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

# Estimator's parameters, in order, that a wrapped model_fn carries over: all of them.
WRAPPED_PARAMETERS = ("model_fn", "model_dir", "config", "params", "warm_start_from")
# TPUEstimator's, in order, that compat.tpu_estimators.WrappedTPUModelFn takes (run as with use_tpu=False)
TPU_PARAMETERS = (*WRAPPED_PARAMETERS[:4], "use_tpu", "train_batch_size", "eval_batch_size", "predict_batch_size",
                  "batch_axis", "eval_on_tpu", "export_to_tpu", "export_to_cpu", "warm_start_from")


@dataclass
class ProjectFacts:
    """What the programs a module belongs to (codemods/project/graph.py) tell about it: whether one of their
    modules builds an estimator that stays TF1 (a BoostedTrees estimator, a subclass overriding Estimator's
    methods), and where; and whether they were written for TensorFlow 1.x, where `tf.estimator` meant the v1
    estimators. Fields say "project" for those programs."""

    # "<constructor> in <path>": the path from the module's folder, or "this module" (no line: the rewrite's TODOs
    # move lines, and messages must not change when the output is rewritten again, nor with the tree's layout)
    keeps_estimators: list[str] = field(default_factory=list)
    tf1: bool = False  # some module of it was written for TensorFlow 1.x (codemods/tf_era.py)
    # some module of it names what TensorFlow 2 lacks (codemods/tf_era.uses_tf1_names): its names are TF1's
    tf1_names: bool = False
    # some module of it builds a custom-model_fn estimator the run-time tier wraps (its model_fn kept as written,
    # its SessionRunHooks run against the model_fn's graph: compat.wrapped_hooks)
    wraps_model_fns: bool = False
    # the names of its modules' functions that return an estimator they build (`estimator_factories`)
    estimator_factories: frozenset[str] = frozenset()
    # the names other modules of the project import from this one (None: one imports the module itself, and may
    # read any of its names)
    exported_names: frozenset[str] | None = frozenset()


@dataclass
class EstimatorMentions:
    """What one module says about estimators, for `kept_estimators` to decide across a project: the
    constructions of an `...Estimator` class (name, the module's path) and the classes it defines (bases)."""

    constructions: list[tuple[str, str]] = field(default_factory=list)
    classes: dict[str, list[str]] = field(default_factory=dict)
    thin_subclasses: set[str] = field(default_factory=set)  # `thin_estimator_subclass` classes: they migrate
    overriding: set[str] = field(default_factory=set)  # classes defining one of ESTIMATOR_ATTRIBUTES
    wraps: bool = False  # a custom `Estimator(model_fn=...)` (or TPUEstimator) the run-time tier wraps
    factories: set[str] = field(default_factory=set)  # `estimator_factories`


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
            members = _members(node.body)
            if thin_estimator_subclass(bases, members):
                mentions.thin_subclasses.add(node.name)
                mentions.wraps = True
                continue
            mentions.constructions += [(base, path) for base in bases if _estimator_like(base)]
            if ESTIMATOR_ATTRIBUTES.intersection(members):  # an estimator if it derives from one (kept_estimators)
                mentions.overriding.add(node.name)
                mentions.constructions.append((node.name, path))
        elif isinstance(node, ast.Call):
            name = _last_name(node.func)
            if name in WRAPPED_CLASSES and not _wrapped_ast_problems(node, name):
                mentions.wraps = True
                continue
            if name == "WrappedModelFn":  # one migrated already (a second rewrite decides as the first did)
                mentions.wraps = True
                continue
            if not name[:1].isupper():
                continue  # a class is called by its capitalised name (a project's estimator class included)
            mentions.constructions.append((name, path))
    mentions.constructions = list(dict.fromkeys(mentions.constructions))
    if nodes and isinstance(nodes[0], ast.Module):
        mentions.factories = estimator_factories(nodes[0])
    return mentions


def _builds_estimator(node: ast.expr | None) -> bool:
    """Whether `node` calls a TensorFlow estimator class by its module (`tf.estimator.DNNClassifier(...)`,
    `tf_estimator.Estimator(...)`): a bare `DNNClassifier(...)` or scikit-learn's classifiers are not taken."""
    if not isinstance(node, ast.Call):
        return False
    parts, func = [], node.func
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    parts.append(getattr(func, "id", ""))
    return (len(parts) > 1 and parts[0].endswith(("Estimator", "Classifier", "Regressor"))
            and any("estimator" in part for part in parts[1:]))


def estimator_factories(module: ast.Module) -> set[str]:
    """The module's top-level functions returning an estimator they build (`return tf.estimator.X(...)`, or a
    variable of theirs assigned one): whoever calls them holds an estimator (`model = build_model()`)."""
    found = set()
    for function in module.body:
        if not isinstance(function, ast.FunctionDef):
            continue
        nodes = list(ast.walk(function))
        built = {target.id for node in nodes if isinstance(node, ast.Assign) and _builds_estimator(node.value)
                 for target in node.targets if isinstance(target, ast.Name)}
        returns = [node.value for node in nodes if isinstance(node, ast.Return) and node.value is not None]
        if returns and all(_builds_estimator(value) or (isinstance(value, ast.Name) and value.id in built)
                           for value in returns):
            found.add(function.name)
    return found


def module_facts(source: str, tf1: bool = False, tf1_names: bool = False) -> ProjectFacts:
    """The ProjectFacts of a module that is a project of its own, read from its `source`."""
    mentions = estimator_mentions(source, "this module")
    kept = [f"{name} in {path}" for name, path in kept_estimators([mentions])]
    return ProjectFacts(kept, tf1, tf1_names, mentions.wraps, frozenset(mentions.factories))


def kept_estimators(mentions: list[EstimatorMentions]) -> list[tuple[str, str]]:
    """The constructions (class, module path), across a program's modules, of an estimator the run-time tier does not take:
    TensorFlow's (any estimator class that is not a canned one or a wrapped custom `Estimator`) and the
    project's classes derived from one. A project's own class merely named `...Estimator` is not one."""
    classes = {name: bases for module in mentions for name, bases in module.classes.items()}
    thin = {name for module in mentions for name in module.thin_subclasses}
    overriding = {name for module in mentions for name in module.overriding}

    def reaches_thin(name: str, seen: frozenset = frozenset()) -> bool:
        return name in thin or (name in classes and name not in seen
                                and any(reaches_thin(base, seen | {name}) for base in classes[name]))

    def is_estimator(name: str, seen: frozenset = frozenset()) -> bool:
        if name in thin:
            return False  # it migrates (compat.wrapped_model_fns.Estimator)
        if name in classes and name not in seen:
            # A class derived from a thin one that defines Estimator's attributes changes how it works: kept
            return any(is_estimator(base, seen | {name}) for base in classes[name]) or (
                name in overriding and any(reaches_thin(base) for base in classes[name]))
        return name not in classes and _estimator_like(name)

    found = [(name, path) for module in mentions for name, path in module.constructions if is_estimator(name)]
    return list(dict.fromkeys(found))


# tf.estimator.Estimator's attributes (TensorFlow 2.15, dir() less object's; tests/codemods/test_estimator_subclasses.py
# checks the list): a subclass defining one of them changes how the Estimator trains, evaluates or exports.
ESTIMATOR_ATTRIBUTES = frozenset({
    "_actual_eval", "_actual_train_model_distributed", "_add_meta_graph_for_mode",
    "_assert_members_are_not_overridden", "_call_input_fn", "_call_model_fn", "_call_model_fn_eval",
    "_call_model_fn_eval_distributed", "_convert_eval_steps_to_hooks", "_convert_train_steps_to_hooks",
    "_create_and_assert_global_step", "_create_global_step", "_estimator_api_names", "_estimator_api_names_v1",
    "_evaluate_build_graph", "_evaluate_run", "_export_all_saved_models", "_extract_batch_length", "_extract_keys",
    "_get_features_and_labels_from_input_fn", "_get_features_from_input_fn", "_get_iterator_from_input_fn",
    "_maybe_warm_start", "_tf_docs_inheritable_header", "_train_model", "_train_model_default",
    "_train_model_distributed", "_train_with_estimator_spec", "_train_with_estimator_spec_distributed",
    "_validate_features_in_predict_input", "config", "eval_dir", "evaluate", "experimental_export_all_saved_models",
    "export_saved_model", "export_savedmodel", "get_variable_names", "get_variable_value", "latest_checkpoint",
    "model_dir", "model_fn", "params", "predict", "train",
})


def thin_estimator_subclass(bases: list[str], members: list[str]) -> bool:
    """Whether a class derived from `Estimator` alone defines none of its attributes: its constructor only hands
    Estimator's a model_fn and settings (compat.wrapped_model_fns.Estimator takes the same), and its own
    helpers are its own."""
    return bases == ["Estimator"] and not ESTIMATOR_ATTRIBUTES.intersection(members)


def _members(body: list[ast.stmt]) -> list[str]:
    """The names a class body defines (methods, attributes)."""
    names = []
    for statement in body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(statement.name)
        elif isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names += [target.id for target in targets if isinstance(target, ast.Name)]
    return names


# The head-based canned estimators: compat.canned builds the classifier or regressor of their head
HEAD_BASED = frozenset({"DNNEstimator", "LinearEstimator", "DNNLinearCombinedEstimator", "BaselineEstimator"})


def _estimator_like(name: str) -> bool:
    # (Baseline* are canned: compat.canned)
    return (name.endswith("Estimator") and name not in HEAD_BASED) or name.startswith("BoostedTrees")


def _last_name(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


# The estimator classes whose model_fn is wrapped, with the parameters the wrapping carries over
WRAPPED_CLASSES = {"Estimator": WRAPPED_PARAMETERS, "TPUEstimator": TPU_PARAMETERS}


def _wrapped_ast_problems(call: ast.Call, name: str) -> list[str]:
    """`wrapped_problems` on Python's own tree (the project pre-pass reads modules without LibCST)."""
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords):
        return [] if name == "Estimator" else ["*/** arguments"]  # (Estimator's: checked when the program runs)
    parameters = WRAPPED_CLASSES[name]
    given = [*parameters[: len(call.args)], *(k.arg for k in call.keywords)]
    return [] if len(call.args) <= len(parameters) and set(given) <= set(parameters) \
        and "model_fn" in given else ["arguments"]
