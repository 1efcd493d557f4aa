"""Custom `model_fn`s in the common shape -> a `compat.model_fns.EstimatorModel` subclass (Keras).

The shape (the TensorFlow guides' and most projects'): the network from `features` (TF1 layer functions,
Keras layers, `feature_column.input_layer`, plain ops), `if mode == PREDICT/EVAL: return EstimatorSpec(...)`
branches, a loss computed from `labels` and one network output, a TF1 optimizer and
`train_op = optimizer.minimize(loss, global_step=get_global_step())`, then `return EstimatorSpec(mode,
loss=loss, train_op=train_op, ...)` (the train part may sit in an `if mode == TRAIN:` branch).

It becomes a class: the network in `call` (TF1 layers become `self.layer(tf_keras.layers.Dense, ...)(net)`,
made once and named as the Estimator named them), the loss statements in `compute_loss`, the optimizer's
Keras twin (codemods/optimizers.py) compiled in, a learning rate decayed on the global step as the Keras
schedule TF1 built it on (codemods/schedules.py). Training takes the same steps: the same loss, its
gradients, the same update. What only evaluate/predict/export use (PREDICT/EVAL branches, predictions,
eval_metric_ops, export_outputs) is dropped; evaluate/predict calls of such an estimator keep it an
Estimator. Summary statements are dropped, named in the report (TensorBoard only), and so is a
`training_hooks=[NanTensorHook(loss)]` of the spec's own loss: Estimator ran that check on every training before
the spec's hooks, so the spec's never acted (the migrated training runs Estimator's). TF1 batch normalization
migrates when train_op depends on the UPDATE_OPS (Keras layers update their moving statistics when called in
training). Anything else (summaries used as values, collections, variable scopes, batch normalization
without that dependency, collection losses other than get_regularization_loss() of TF1 layers'
regularizers, other hooks in the EstimatorSpec, a schedule with an optimizer other than GradientDescent, Adam or
Adagrad, `config`) would run differently, so the model_fn is kept with the reason.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import libcst as cst

from codemods.api import ApiResolver
from codemods.optimizers import keras_optimizer, optimizer_problem
from codemods.schedules import SCHEDULED_OPTIMIZERS, SCHEDULES, is_schedule, keras_schedule
from codemods.syntax import call_arguments, fast_visit, name_counts, single_assignment
from codemods.templates import source

ESTIMATOR_PARAMS = ("model_fn", "model_dir", "config", "params", "warm_start_from")
MODEL_FN_PARAMS = ("features", "labels", "mode", "params", "config")  # Estimator passes them by these names
SPEC_PARAMS = (
    "mode", "predictions", "loss", "train_op", "eval_metric_ops", "export_outputs", "training_chief_hooks",
    "training_hooks", "scaffold", "evaluation_hooks", "prediction_hooks",
)
SPEC_UNUSED_IN_TRAINING = ("mode", "predictions", "eval_metric_ops", "export_outputs")
GLOBAL_STEP_APIS = ("train.get_global_step", "train.get_or_create_global_step")

# TF1 layer functions -> (Keras layer, how many positional arguments after `inputs` keep their meaning).
TF1_LAYERS = {
    "layers.dense": ("Dense", 1),
    "layers.dropout": ("Dropout", 1),
    "layers.flatten": ("Flatten", 0),
    "layers.conv1d": ("Conv1D", 2),
    "layers.conv2d": ("Conv2D", 2),
    "layers.max_pooling1d": ("MaxPooling1D", 2),
    "layers.max_pooling2d": ("MaxPooling2D", 2),
    "layers.average_pooling1d": ("AveragePooling1D", 2),
    "layers.average_pooling2d": ("AveragePooling2D", 2),
    "layers.batch_normalization": ("BatchNormalization", 1),
}
# Keras layers whose call takes `training=` (TF1's functions took it too, False by default).
TRAINING_LAYERS = ("Dropout", "BatchNormalization")
# Their arguments that put something in a graph collection the model_fn would have to read back.
TF1_LAYER_COLLECTION_ARGUMENTS = ("activity_regularizer", "reuse")
# Weight regularizers: their losses went to the REGULARIZATION_LOSSES collection, which the model_fn's loss
# reads back with get_regularization_loss(); a Keras layer keeps them in `losses`.
TF1_LAYER_REGULARIZERS = ("kernel_regularizer", "bias_regularizer")
REGULARIZATION_LOSS_API = "losses.get_regularization_loss"
# Summaries a model_fn writes as statements: Estimator wrote them to model_dir while training (TensorBoard);
# evaluate() wrote only its metrics. Dropped, and said in the report.
SUMMARY_APIS = ("summary.scalar", "summary.histogram", "summary.image", "summary.audio", "summary.text")
# -> compat.model_fns.EstimatorModel.regularization_loss(): the sum of the layers' regularization losses
REGULARIZATION_LOSS_CODE = "self.regularization_loss()"
# Keras layers whose call does not depend on `training` (Dropout does: it must be called with training=).
KERAS_LAYERS = (
    "Dense", "Flatten", "Reshape", "Conv1D", "Conv2D", "MaxPooling1D", "MaxPooling2D", "AveragePooling1D",
    "AveragePooling2D", "GlobalAveragePooling1D", "GlobalAveragePooling2D", "Activation", "Concatenate", "Add",
    "Embedding",
)
# APIs whose TF1 behaviour (graph collections, variable scopes, summaries, the global step) a Keras model
# does not have.
GRAPH_APIS = (
    "get_variable", "variable_scope", "Variable", "get_collection", "add_to_collection", "trainable_variables",
    "global_variables", "summary.", "train.", "metrics.", "placeholder", "Session", "contrib.", "estimator.",
    "layers.", "feature_column.", "keras.", "losses.get_", "losses.add_loss", "assign",
)


@dataclass
class ModelFnShape:
    """A model_fn the rewrite turns into a class, and the parts the class is written from."""

    function: cst.FunctionDef
    class_name: str
    forward: list[cst.BaseStatement]  # the network, as it goes into `call` (layer calls already rewritten)
    output: str  # the network's value the loss reads
    loss_statements: list[cst.BaseStatement]
    loss: str
    optimizer: cst.Call  # the TF1 optimizer's constructor call
    parameters: tuple[str, ...]
    body: list[cst.BaseStatement]  # the function's statements (docstring left out), as written
    # ids of the statements making the optimizer, the train_op, the global step, the summaries
    training_only: set[int]
    summaries: tuple[str, ...] = ()  # the summaries the training wrote (not carried over: said in the report)
    nan_check_hook: bool = False  # training_hooks=[NanTensorHook(loss)] dropped: Estimator's own check (said too)


def class_name(function_name: str) -> str:
    """`cnn_model_fn` -> `CnnModelFn`."""
    return "".join(part[:1].upper() + part[1:] for part in function_name.split("_") if part) or "ModelFn"


def names_in(node: cst.CSTNode) -> set[str]:
    return set(name_counts(node))


def _assigned(statement: cst.BaseStatement) -> set[str]:
    """Names a forward statement binds (assignment targets, for-loop targets, inside blocks too)."""
    bound: set[str] = set()

    class Targets(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            bound.update(names_in(node.target))

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            bound.update(names_in(node.target))

        def visit_For(self, node: cst.For) -> None:
            bound.update(names_in(node.target))

    fast_visit(statement, Targets())
    return bound


class ModelFnReader:
    """Questions about one model_fn's code (mode branches, EstimatorSpec returns, graph APIs); collects problems."""

    def __init__(self, resolver: ApiResolver):
        self.resolver = resolver
        self.problems: list[str] = []

    def mode_branch(self, statement: cst.BaseStatement) -> str | None:
        """"TRAIN"/"EVAL"/"PREDICT" for `if mode == ModeKeys.X:` (either side, no else)."""
        if not isinstance(statement, cst.If) or statement.orelse is not None:
            return None
        return self.mode_comparison(statement.test)

    def mode_comparison(self, test: cst.BaseExpression) -> str | None:
        if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
            return None
        target = test.comparisons[0]
        if not isinstance(target.operator, cst.Equal):
            return None
        for mode, key in ((test.left, target.comparator), (target.comparator, test.left)):
            api = self.resolver.api(key)
            if isinstance(mode, cst.Name) and mode.value == "mode" and api and api.path.startswith("estimator.ModeKeys."):
                return api.path.rsplit(".", 1)[1]
        return None

    def graph_api_problems(self, node: cst.CSTNode, where: str, allowed=()) -> None:
        analysis = self

        class Calls(cst.CSTVisitor):
            def visit_Call(self, call: cst.Call) -> None:
                if any(call is a for a in allowed):
                    return
                api = analysis.resolver.call_api(call)
                if api is not None and api.path == REGULARIZATION_LOSS_API and not call.args:
                    return  # carried over (RegularizationLoss)
                if api is not None and api.path.startswith(GRAPH_APIS):
                    analysis.problems.append(f"{where} calls {api.path} (TF1 graph state a Keras model does not have)")

        fast_visit(node, Calls())

    def estimator_spec(self, statement: cst.BaseStatement) -> dict[str, cst.BaseExpression] | None:
        """The arguments of `return EstimatorSpec(...)`."""
        if not isinstance(statement, cst.SimpleStatementLine) or not isinstance(statement.body[0], cst.Return):
            return None
        value = statement.body[0].value
        api = self.resolver.call_api(value) if isinstance(value, cst.Call) else None
        if api is None or api.path != "estimator.EstimatorSpec":
            return None
        arguments, problems = call_arguments(value, SPEC_PARAMS)
        self.problems.extend(problems)
        return arguments


def analyze_model_fn(function: cst.FunctionDef, resolver: ApiResolver) -> ModelFnShape | list[str]:
    """The parts of a model_fn in the common shape, or why it is not in it."""
    analysis = ModelFnReader(resolver)
    problems = analysis.problems
    params = function.params
    parameters = tuple(p.name.value for p in params.params)
    if (
        params.star_arg is not cst.MaybeSentinel.DEFAULT or params.kwonly_params or params.star_kwarg
        or params.posonly_params or any(p.default is not None for p in params.params)
        or not set(parameters) <= set(MODEL_FN_PARAMS) or parameters[:1] != ("features",)
    ):
        return ["model_fn's parameters are not (features, labels, mode[, params][, config])"]
    if "config" in parameters:
        problems.append("model_fn takes config (RunConfig values inside the model are not migrated)")
    body = list(function.body.body)
    if body and _is_docstring(body[0]):
        body = body[1:]

    # The training return: the function's last statement, or the last one of its `if mode == TRAIN:` branch.
    tail_end = len(body)
    train_branch = next((i for i, s in enumerate(body) if analysis.mode_branch(s) == "TRAIN"), None)
    statements = list(body)
    if train_branch is not None:
        statements = body[:train_branch] + list(body[train_branch].body.body)
        tail_end = len(statements)
    spec = analysis.estimator_spec(statements[-1]) if statements else None
    if spec is None:
        return ["model_fn does not end its training path with `return EstimatorSpec(...)`"]
    loss, train_op = spec.get("loss"), spec.get("train_op")
    nan_check_hook = "training_hooks" in spec and _nan_checks_of(spec["training_hooks"], loss, analysis.resolver)
    problems += [
        f"EstimatorSpec({key}=...) is not migrated (it changes how the Estimator trains)"
        for key in spec if key not in SPEC_UNUSED_IN_TRAINING + ("loss", "train_op")
        and not (key == "training_hooks" and nan_check_hook)
    ]
    if not isinstance(loss, cst.Name) or not isinstance(train_op, cst.Name | cst.Call):
        return problems + ["EstimatorSpec's loss= must be a variable and train_op= optimizer.minimize(...)"]
    # The class makes its optimizer in __init__, where only params and the module's names exist.
    local = set().union(*(_assigned(s) for s in body)) | set(parameters) - {"params"}
    parts = training_parts(statements[: tail_end - 1], loss, train_op, analysis, local)
    if parts is None or problems:
        return list(dict.fromkeys(problems))
    return ModelFnShape(
        function, class_name(function.name.value), parts.forward, parts.output, parts.loss_statements, loss.value,
        parts.optimizer, parameters, body, parts.training_only, parts.summaries, nan_check_hook,
    )


def _nan_checks_of(hooks: cst.BaseExpression, loss: cst.BaseExpression | None, resolver: ApiResolver) -> bool:
    """Whether `hooks` (a spec's training_hooks) is a list of `NanTensorHook(loss)` of the spec's `loss` variable
    only: Estimator ran its own NanTensorHook of that loss before them, raising at a NaN step, so theirs never
    acted, whatever their fail_on_nan_loss."""
    if not isinstance(hooks, cst.List | cst.Tuple) or not hooks.elements or not isinstance(loss, cst.Name):
        return False
    for element in hooks.elements:
        hook = element.value
        api = resolver.call_api(hook) if isinstance(hook, cst.Call) else None
        if api is None or api.path != "train.NanTensorHook":
            return False
        arguments, problems = call_arguments(hook, ("loss_tensor", "fail_on_nan_loss"))
        tensor, fail = arguments.get("loss_tensor"), arguments.get("fail_on_nan_loss")
        if problems or not (isinstance(tensor, cst.Name) and tensor.value == loss.value):
            return False
        if fail is not None and not (isinstance(fail, cst.Name) and fail.value in ("True", "False")):
            return False
    return True


@dataclass
class TrainingParts:
    """What one training step computes, read from TF1 graph code: the network, the loss, the optimizer."""

    forward: list[cst.BaseStatement]  # the network, as it goes into `call` (layer calls already rewritten)
    output: str  # the network's value the loss reads
    loss_statements: list[cst.BaseStatement]
    optimizer: cst.Call  # the TF1 optimizer's constructor call
    # ids of the statements making the optimizer, the train_op, the global step, the summaries
    training_only: set[int]
    summaries: tuple[str, ...] = ()  # names of the summaries written while training (dropped)


def training_parts(
    statements: list[cst.BaseStatement],
    loss: cst.Name,
    train_op: cst.Name | cst.Call,
    analysis: ModelFnReader,
    local: set[str],
    where: str = "model_fn",
) -> TrainingParts | None:
    """The network (from `features`), loss (from `labels`) and optimizer of statements ending in `train_op =
    optimizer.minimize(loss, global_step=...)` (a model_fn's, or a MonitoredTrainingSession loop's); None, with
    the reasons in `analysis.problems`, when they are not in that shape. `local`: names the optimizer's
    arguments may not read (the class makes it in __init__); `where`: what the statements are, for problems."""
    resolver, problems = analysis.resolver, analysis.problems
    forward, loss_statements, optimizer, optimizer_name = [], [], None, None
    minimize = train_op if isinstance(train_op, cst.Call) else None
    step_names: set[str] = set()  # variables holding get_global_step()
    schedules: dict[str, cst.Call] = {}  # variables holding a TF1 learning-rate decay of the global step
    update_names: set[str] = set()  # variables holding get_collection(UPDATE_OPS)
    summaries: list[str] = []
    updates_run = False  # whether train_op depends on the UPDATE_OPS (batch normalization's moving statistics)
    training_only: set[int] = set()
    phase = "forward"
    for statement in statements:
        branch = analysis.mode_branch(statement)
        if branch in ("EVAL", "PREDICT"):
            if analysis.estimator_spec(statement.body.body[-1]) is None:
                problems.append(f"the `mode == {branch}` branch does not end with `return EstimatorSpec(...)`")
            continue  # evaluate/predict only
        summary = _summary(statement, resolver)
        if summary is not None:  # written to model_dir every save_summary_steps: TensorBoard only
            summaries.append(summary)
            training_only.add(id(statement))
            continue
        inner = _under_update_ops(statement, update_names, resolver)
        if inner is not None:  # `with tf.control_dependencies(update_ops): train_op = ...`
            updates_run = True
            training_only.add(id(statement))
            statement = inner
        assignment = single_assignment(statement)
        api = resolver.call_api(assignment[1]) if assignment else None
        if api is not None and api.path == "get_collection" and _is_update_ops(assignment[1]):
            if phase == "forward":
                problems.append("UPDATE_OPS is read before the loss (batch normalization's updates are read after it)")
            update_names.add(assignment[0])
            training_only.add(id(statement))
            continue
        if api is not None and api.path in GLOBAL_STEP_APIS:
            step_names.add(assignment[0])  # read by minimize(global_step=...), the optimizer's own step
            training_only.add(id(statement))
            continue
        if api is not None and api.path in SCHEDULES:
            schedules[assignment[0]] = assignment[1]  # the optimizer's learning rate, a Keras schedule
            training_only.add(id(statement))
            continue
        if phase == "forward" and "labels" not in names_in(statement):
            forward.append(statement)
            continue
        if phase == "forward":
            phase = "loss"
        if assignment is None:
            problems.append(f"{where} statement `{_first_line(statement)}` is not migrated")
            continue
        name, value = assignment
        if phase == "loss":
            loss_statements.append(statement)
            if name == loss.value:
                phase = "after loss"
        elif api is not None and (api.path.endswith("Optimizer") or api.path.startswith("keras.optimizers.")):
            optimizer, optimizer_name = value, name
            training_only.add(id(statement))
        elif isinstance(train_op, cst.Name) and name == train_op.value:
            minimize = value
            training_only.add(id(statement))
        elif api is not None and api.path.startswith("summary."):
            problems.append(f"{where} writes a summary ({api.path}): not migrated")
        # anything else after the loss feeds evaluate/predict (metrics, predictions), not carried over

    if phase != "after loss":
        problems.append(f"{where} does not compute its loss `{loss.value}` from labels")
        return None
    optimizer = _minimize(minimize, optimizer, optimizer_name, loss.value, step_names, analysis)
    if optimizer is None:
        problems.append("the train_op is not `<TF1 optimizer>.minimize(loss, global_step=get_global_step())`")
        return None
    optimizer = _scheduled(optimizer, schedules, step_names, analysis)
    problem = optimizer_problem(optimizer, resolver)
    if problem:
        problems.append(problem)
    analysis.graph_api_problems(optimizer, "the optimizer", allowed=[optimizer])
    forward_names = set().union(*(_assigned(s) for s in forward))
    if names_in(optimizer) & local:
        problems.append(f"the optimizer's arguments use values computed in {where}")

    loss_reads = set().union(*(names_in(s) for s in loss_statements))
    outputs = sorted(loss_reads & forward_names - set().union(*(_assigned(s) for s in loss_statements)))
    if len(outputs) != 1:
        problems.append(
            f"the loss reads {len(outputs)} values of the network ({', '.join(outputs) or 'none'}); one is migrated"
        )
    if loss_reads & {"mode", "config"}:
        problems.append("the loss depends on mode or config")
    for statement in loss_statements:
        analysis.graph_api_problems(statement, "the loss")
    loss_statements = [statement.visit(RegularizationLoss(resolver)) for statement in loss_statements]
    rewriter = NetworkRewriter(analysis)
    forward = [statement.visit(rewriter) for statement in needed_statements(forward, outputs[:1])]
    forward = [statement for statement in forward if not _assigns_itself(statement)]  # `training = training`
    if rewriter.keras_regularizer and any(REGULARIZATION_LOSS_CODE in source(s) for s in loss_statements):
        problems.append(
            "a Keras layer's regularizer did not reach get_regularization_loss() in TF1 (only tf.compat.v1.layers' "
            "did); the migrated model would add it"
        )
    if rewriter.batch_norm and not updates_run:
        problems.append(
            "batch normalization's moving statistics were updated only through UPDATE_OPS, which train_op does not "
            "depend on (a Keras model would update them): `with tf.control_dependencies(tf.get_collection("
            "tf.GraphKeys.UPDATE_OPS)): train_op = ...` is migrated"
        )
    if (loss_reads | set().union(*(names_in(s) for s in forward))) & (step_names | set(schedules)):
        problems.append(
            "the network or the loss reads the global step or a learning rate decayed on it (a Keras model has "
            "optimizer.iterations)"
        )
    for name in sorted(set().union(*(names_in(s) for s in forward)) & {"mode", "config"}):
        problems.append(f"the network uses `{name}` other than as `mode == ModeKeys.TRAIN`")
    if len(outputs) != 1:
        return None
    return TrainingParts(forward, outputs[0], loss_statements, optimizer, training_only, tuple(summaries))


def needed_statements(forward: list[cst.BaseStatement], outputs: list[str]) -> list[cst.BaseStatement]:
    """The forward statements the output depends on: assignments only predictions or metrics read go."""
    needed, kept = set(outputs), []
    for statement in reversed(forward):
        bound = _assigned(statement)
        if isinstance(statement, cst.SimpleStatementLine) and bound and not bound & needed:
            continue
        kept.append(statement)
        needed |= names_in(statement)
    return kept[::-1]


def _scheduled(optimizer: cst.Call, schedules: dict[str, cst.Call], step_names: set[str], analysis) -> cst.Call:
    """`optimizer` with its learning rate, a TF1 decay of the global step (inline or in a variable), given as
    the Keras schedule it was built on (codemods/schedules.py)."""
    resolver = analysis.resolver
    if not isinstance(optimizer, cst.Call):
        return optimizer
    for index, arg in enumerate(optimizer.args):
        if not (arg.keyword.value == "learning_rate" if arg.keyword else index == 0):
            continue
        value = arg.value
        decay = schedules.get(value.value) if isinstance(value, cst.Name) else None
        decay = value if decay is None and is_schedule(value, resolver) else decay
        if decay is None:
            return optimizer
        api = resolver.call_api(optimizer)
        if api is None or api.path not in SCHEDULED_OPTIMIZERS:
            analysis.problems.append(
                "a learning-rate schedule is migrated with GradientDescent, Adam and Adagrad only (TF1's Momentum "
                "applies each step's rate to the accumulated gradients, Keras's SGD to the new one)"
            )
            return optimizer
        schedule, problem = keras_schedule(decay, resolver, lambda node: _is_global_step(node, step_names, resolver))
        if problem:
            analysis.problems.append(problem)
            return optimizer
        return optimizer.with_changes(args=[*optimizer.args[:index], arg.with_changes(value=schedule), *optimizer.args[index + 1 :]])
    return optimizer


def _summary(statement: cst.BaseStatement, resolver: ApiResolver) -> str | None:
    """The name (code) of `tf.summary.scalar(name, value)` and the like written as a statement, or None."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    call = small.value if isinstance(small, cst.Expr) else None
    api = resolver.call_api(call) if isinstance(call, cst.Call) else None
    if api is None or api.path not in SUMMARY_APIS or not call.args:
        return None
    return source(call.args[0].value)


def _assigns_itself(statement: cst.BaseStatement) -> bool:
    assignment = single_assignment(statement)
    return assignment is not None and isinstance(assignment[1], cst.Name) and assignment[1].value == assignment[0]


def _is_update_ops(call: cst.Call) -> bool:
    """Whether `call` is `get_collection(GraphKeys.UPDATE_OPS)` (or of its value, "update_ops")."""
    if len(call.args) != 1 or call.args[0].keyword is not None:
        return False
    key = call.args[0].value
    if isinstance(key, cst.SimpleString):
        return key.evaluated_value == "update_ops"
    return source(key).endswith("GraphKeys.UPDATE_OPS")


def _under_update_ops(statement, update_names: set[str], resolver: ApiResolver) -> cst.BaseStatement | None:
    """The one statement of `with tf.control_dependencies(<the UPDATE_OPS>): statement`, or None."""
    if not isinstance(statement, cst.With) or len(statement.items) != 1 or len(statement.body.body) != 1:
        return None
    item = statement.items[0]
    call = item.item
    api = resolver.call_api(call) if isinstance(call, cst.Call) else None
    if item.asname is not None or api is None or api.path != "control_dependencies" or len(call.args) != 1:
        return None
    given = call.args[0].value
    if isinstance(given, cst.Name) and given.value in update_names:
        return statement.body.body[0]
    if isinstance(given, cst.Call) and (api := resolver.call_api(given)) and api.path == "get_collection":
        return statement.body.body[0] if _is_update_ops(given) else None
    return None


def _is_global_step(node: cst.BaseExpression, step_names: set[str], resolver: ApiResolver) -> bool:
    if isinstance(node, cst.Name):
        return node.value in step_names
    api = resolver.call_api(node) if isinstance(node, cst.Call) else None
    return api is not None and api.path in GLOBAL_STEP_APIS


def _minimize(minimize, optimizer, optimizer_name, loss, step_names, analysis) -> cst.Call | None:
    """Checks `train_op = <optimizer>.minimize(loss, global_step=...)`; the inline optimizer if it is one."""
    if not isinstance(minimize, cst.Call) or not isinstance(minimize.func, cst.Attribute) or minimize.func.attr.value != "minimize":
        return None
    arguments, problems = call_arguments(minimize, ("loss", "global_step", "var_list"))
    step = arguments.get("global_step")
    step_api = analysis.resolver.call_api(step) if isinstance(step, cst.Call) else None
    global_step = (step_api is not None and step_api.path in GLOBAL_STEP_APIS) or (
        isinstance(step, cst.Name) and step.value in step_names
    )
    if problems or set(arguments) != {"loss", "global_step"} or not global_step or not (
        isinstance(arguments["loss"], cst.Name) and arguments["loss"].value == loss
    ):
        analysis.problems.append("the train_op is not `optimizer.minimize(loss, global_step=get_global_step())`")
        return None
    receiver = minimize.func.value
    if isinstance(receiver, cst.Name) and receiver.value == optimizer_name:
        return optimizer
    if isinstance(receiver, cst.Call) and analysis.resolver.call_api(receiver) is not None:
        return receiver  # an optimizer made inline; optimizer_problem says whether it is carried over
    return None


class RegularizationLoss(cst.CSTTransformer):
    """`tf.compat.v1.losses.get_regularization_loss()` in the loss -> the model's own (its layers' `losses`)."""

    def __init__(self, resolver: ApiResolver):
        self.resolver = resolver

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        api = self.resolver.call_api(original)
        if api is not None and api.path == REGULARIZATION_LOSS_API and not original.args:
            return cst.parse_expression(REGULARIZATION_LOSS_CODE)
        return updated


class NetworkRewriter(cst.CSTTransformer):
    """The network's statements as `call` runs them: layers made once (`self.layer`), `mode == TRAIN` ->
    `training`; problems for what a Keras model cannot do the same way."""

    def __init__(self, analysis: ModelFnReader):
        self.analysis = analysis
        self.batch_norm = False  # the network has TF1 batch normalization (moving statistics: UPDATE_OPS)
        # a Keras layer has a regularizer: TF1 did not collect its loss for get_regularization_loss()
        self.keras_regularizer = False

    def leave_Comparison(self, original, updated):
        if self.analysis.mode_comparison(original) == "TRAIN":
            return cst.Name("training")
        return updated

    def visit_Comparison(self, node: cst.Comparison) -> bool:
        return self.analysis.mode_comparison(node) != "TRAIN"

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        api = self.analysis.resolver.call_api(original)
        if api is None or not isinstance(original.func, cst.Name | cst.Attribute):
            return updated  # (a layer called where it is made resolves as its constructor: not that)
        if api.path in TF1_LAYERS:
            return self._tf1_layer(api.path, updated)
        if api.path == REGULARIZATION_LOSS_API and not updated.args:
            return cst.parse_expression(REGULARIZATION_LOSS_CODE)
        if api.path.startswith("keras.regularizers."):  # TF 2.21's tf.keras is Keras 3: tf_keras's own
            return updated.with_changes(func=cst.parse_expression("tf_keras.regularizers." + api.path.rsplit(".", 1)[1]))
        if api.path == "feature_column.input_layer":
            arguments, problems = call_arguments(updated, ("features", "feature_columns"))
            if problems or set(arguments) != {"features", "feature_columns"}:
                self.analysis.problems.append("input_layer(...) takes more than features and feature_columns")
                return updated
            columns, features = source(arguments["feature_columns"]), source(arguments["features"])
            # named as TF1's input_layer scoped its variables (`input_layer/<column>_embedding/embedding_weights`)
            return cst.parse_expression(
                f'self.layer(tf_keras.layers.DenseFeatures, {columns}, name="input_layer")({features})')
        if api.path.startswith("keras.layers."):
            return self._keras_layer(api.path.rsplit(".", 1)[1], original, updated)
        if api.path.startswith(GRAPH_APIS):
            self.analysis.problems.append(f"the network calls {api.path} (TF1 graph state a Keras model does not have)")
        return updated

    def _tf1_layer(self, path: str, call: cst.Call) -> cst.BaseExpression:
        keras_class, positional = TF1_LAYERS[path]
        inputs, arguments = None, []
        # TF1's dropout drops nothing and its batch normalization uses the moving statistics unless told
        # training=True; Keras's would train in fit.
        training = "False"
        self.batch_norm |= keras_class == "BatchNormalization"
        for index, arg in enumerate(call.args):
            keyword = arg.keyword.value if arg.keyword else None
            if arg.star or (keyword is None and index > positional):
                self.analysis.problems.append(f"{path}(...) arguments beyond the first {positional + 1} must be given by keyword")
            elif keyword in TF1_LAYER_COLLECTION_ARGUMENTS:
                self.analysis.problems.append(f"{path}({keyword}=...) is not migrated (TF1 collections)")
            elif keyword in TF1_LAYER_REGULARIZERS:
                arguments.append(f"{keyword}={self._regularizer(path, keyword, arg.value)}")
            elif keyword == "inputs" or (keyword is None and index == 0):
                inputs = source(arg.value)
            elif keyword == "training":
                training = source(arg.value)
            else:
                arguments.append(f"{keyword}={source(arg.value)}" if keyword else source(arg.value))
        rate_given = any(a.startswith("rate=") for a in arguments) or any(a.keyword is None for a in call.args[1:2])
        if keras_class == "Dropout" and not rate_given:
            arguments.insert(0, "0.5")  # TF1 dropout's default rate
        call_training = f", training={training}" if keras_class in TRAINING_LAYERS else ""
        made = ", ".join(["tf_keras.layers." + keras_class, *arguments])
        return cst.parse_expression(f"self.layer({made})({inputs}{call_training})")

    def _regularizer(self, path: str, keyword: str, value: cst.BaseExpression) -> str:
        """A Keras layer's regularizer for a TF1 layer's: `keras.regularizers.l2(...)` and the like (already
        tf_keras's: leave_Call), a function of the weight as it is."""
        if isinstance(value, cst.Lambda) or source(value).startswith("tf_keras.regularizers."):  # (leave_Call)
            return source(value)
        self.analysis.problems.append(
            f"{path}({keyword}=...) is not a keras.regularizers function or a lambda of the weight"
        )
        return source(value)

    def _keras_layer(self, name: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        plain = cst.SimpleWhitespace("")
        arguments = "".join(
            ", " + source(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=plain))
            for arg in updated.args
        )
        made = cst.parse_expression(f"self.layer(tf_keras.layers.{name}{arguments})")
        self.keras_regularizer |= any(arg.keyword and arg.keyword.value.endswith("_regularizer") for arg in updated.args)
        if name in KERAS_LAYERS:
            return made
        self.analysis.problems.append(
            f"keras.layers.{name} in model_fn is not migrated"
            + (" (call Dropout(...)(x, training=mode == ModeKeys.TRAIN) where it is made)" if name == "Dropout" else "")
        )
        return updated


def class_code(
    shape: ModelFnShape, optimizer: str, methods: str = "", doc: str | None = None, distributed: bool = False
) -> str:
    """The class a model_fn becomes (text, at column 0); `methods`: more of its body (model_fn_paths); `doc`:
    its docstring's text, when it is not a model_fn's class; `distributed`: the Estimator trained under
    RunConfig(train_distribute=...), whose TF1 optimizer scaled the loss by 1/replicas."""
    function = shape.function.name.value
    doc = doc or (
        f"`{function}` as a Keras model: its network in `call` (each layer made once, named as the\n"
        "    Estimator named it), its loss in `compute_loss`, its optimizer compiled in."
    )
    forward = "".join(source(s) for s in shape.forward)
    needs_params = "params" in shape.parameters
    call_params = "params = self.params\n" if needs_params and "params" in names_in(cst.Module(shape.forward)) else ""
    loss_code = "".join(source(s) for s in shape.loss_statements)
    loss_params = "params = self.params\n" if needs_params and "params" in names_in(cst.Module(shape.loss_statements)) else ""
    reads = names_in(cst.Module(shape.loss_statements))
    unpacked = [(n, v) for n, v in (("features", "x"), ("labels", "y"), (shape.output, "y_pred")) if n in reads]
    body = lambda code: textwrap.indent(textwrap.dedent(code).lstrip("\n"), " " * 8)  # noqa: E731
    return (
        f"class {shape.class_name}(model_fns.EstimatorModel):\n"
        f'    """{doc}"""\n\n'
        f"    def __init__(self, params=None):\n"
        f"        super().__init__(params)\n"
        f"        self.compile(optimizer={optimizer})\n\n"
        "    def call(self, features, training=False):\n"
        + body(call_params + forward)
        + f"        return {shape.output}\n\n"
        f"    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None):\n"
        f"        {', '.join(n for n, _ in unpacked)} = {', '.join(v for _, v in unpacked)}\n"
        + body(loss_params + loss_code)
        + (f"        return model_fns.replica_loss({shape.loss})  # as TF1 optimizers minimized it under a strategy\n"
           if distributed else f"        return {shape.loss}\n")
        + methods
    )


def keras_optimizer_code(shape: ModelFnShape, resolver: ApiResolver) -> tuple[str, str]:
    """The Keras optimizer expression and the module it needs (`tf_keras`, or `canned`/`rmsprop` of compat)."""
    expression, module = keras_optimizer(shape.optimizer, shape.optimizer, resolver)
    return source(expression), module


def _is_docstring(statement: cst.BaseStatement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, cst.SimpleString | cst.ConcatenatedString)
    )


def _first_line(statement: cst.BaseStatement) -> str:
    return source(statement).strip().splitlines()[0]
