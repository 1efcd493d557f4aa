"""`tf.Session` + `tf.train.Saver` training loops in the common shape -> a Keras model and the program's own
loop, each session call replaced by what it did, checkpointing with `tf.train.CheckpointManager`.

The shape (TF1's tutorials and most projects), statements of one module-level function:

    global_step = tf.train.get_or_create_global_step()
    features, labels = tf.data.make_one_shot_iterator(dataset).get_next()   # or x = tf.placeholder(dtype, shape)
    <the network from features, the loss from labels>                       # as in a model_fn
    train_op = tf.train.AdamOptimizer(...).minimize(loss, global_step=global_step)
    saver = tf.train.Saver(max_to_keep=K)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        <the program's loop, in any control flow, where sess appears only in>
            sess.run(train_op [, feed_dict={x: ..., y: ...}])  /  _, loss_value = sess.run([train_op, loss], ...)
            sess.run(global_step)  /  tf.train.global_step(sess, global_step)
            saver.save(sess, path, global_step=...)  /  saver.restore(sess, path)

The graph becomes a compat.model_fns.EstimatorModel class, as a MonitoredTrainingSession's does; the loop
stays the program's. A training step reads the next batch of the same iterator (restarted with the session,
as a one-shot iterator was) or takes the fed arrays, and raises tf.errors.OutOfRangeError when the input
ends, as sess.run did. The saver's checkpoints keep their names (`<path>-<step>`) and retention. Anything
else is kept with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from codemods.api import ApiResolver
from codemods.graph_training import (
    BatchRenamer,
    WrappedGraph,
    applied_gradients_loss,
    bound_names,
    calls_in,
    class_problems,
    global_step_variable,
    graph_block,
    graph_statements,
    is_global_step,
    is_method,
    is_underscore,
    minimized_loss,
    one_shot_input,
    session_function,
    wrapped_problems,
)
from codemods.model_fns import ModelFnReader, ModelFnShape, class_name, names_in, training_parts
from codemods.syntax import call_arguments, fast_visit, is_none, name_counts, single_assignment
from codemods.templates import source

SESSION_API = "Session"
SESSION_PARAMS = ("target", "graph", "config")
SAVER_API = "train.Saver"
SAVER_PARAMS = (
    "var_list", "reshape", "sharded", "max_to_keep", "keep_checkpoint_every_n_hours", "name", "restore_sequentially",
    "saver_def", "builder", "defer_build", "allow_empty", "write_version", "pad_step_number", "save_relative_paths",
    "filename",
)
# Saver arguments that change what or how it saves beyond what a CheckpointManager keeps: with these the loop stays.
SAVER_UNSUPPORTED = ("saver_def", "builder", "defer_build", "pad_step_number", "filename")
SAVE_PARAMS = (
    "sess", "save_path", "global_step", "latest_filename", "meta_graph_suffix", "write_meta_graph", "write_state",
    "strip_default_attrs", "save_debug_info",
)
INITIALIZER_APIS = (
    "global_variables_initializer", "local_variables_initializer", "initializers.global_variables",
    "initializers.local_variables", "initialize_all_variables", "initialize_local_variables", "tables_initializer",
)
ALL_VARIABLES_APIS = ("global_variables", "all_variables")
PLACEHOLDER_API = "placeholder"
GLOBAL_STEP_FUNCTION = "train.global_step"
DEFAULT_MAX_TO_KEEP = "5"  # tf.compat.v1.train.Saver's
# Names the migrated code binds in the function.
LOOP_NAMES = ("model", "train_step", "checkpoint_manager", "input_iterator")
STEP = "int(model.optimizer.iterations)"  # the global step's value, as sess.run(global_step) returned it


@dataclass
class SaverLoop:
    """A `with tf.Session() as sess:` training loop the rewrite migrates, and what its replacement is written from."""

    session: cst.With  # its `with` line becomes the model and its checkpointing; its statements stay
    shape: ModelFnShape | None  # the graph as a class (tier 1); None when `wrapped` keeps it as written
    # ("iterator", dataset expression) or ("feed", [(dtype, shape) of the features and labels placeholders])
    batches: tuple[str, object]
    directory: str  # code of the checkpoints' directory, and of their name (the saver's path split)
    checkpoint_name: str
    max_to_keep: str
    every_n_hours: str | None
    uses_os: bool  # the directory or name is computed with os.path
    replacements: dict[int, cst.CSTNode | cst.RemovalSentinel]  # ids of the session's nodes -> what replaces them
    removed: set[int] = field(default_factory=set)  # ids of the graph statements (now in the class) removed
    calls: set[int] = field(default_factory=set)  # ids of the calls in what it replaces
    graph: cst.With | None = None  # the `with tf.Graph().as_default():` around it, unwrapped
    dropped: list[str] = field(default_factory=list)  # what is not carried over (said in the report)
    wrapped: WrappedGraph | None = None
    what = "tf.Session"

    @property
    def model_name(self) -> str:
        """The name the migrated model's code takes: its class's, or the nested model_fn's."""
        return self.wrapped.name if self.wrapped is not None else self.shape.class_name


def tf_session_call(statement: cst.CSTNode, resolver: ApiResolver) -> cst.Call | None:
    """The tf.Session call of `with tf.Session(...) as sess:`."""
    if not isinstance(statement, cst.With) or len(statement.items) != 1:
        return None
    item = statement.items[0].item
    if isinstance(item, cst.Call):
        api = resolver.call_api(item)
        if api is not None and api.path == SESSION_API:
            return item
    return None


def analyze_saver_session(
    session: cst.With, functions: list[cst.FunctionDef], module: cst.Module, resolver: ApiResolver
) -> tuple[cst.Call, SaverLoop | list[str]] | None:
    """(the Saver call, the loop replacing `with tf.Session() as sess:` or why it is kept), or None when the
    session saves with no Saver of its function (not a Saver loop). `functions`: the enclosing defs."""
    sess = session.items[0].asname
    if sess is None or not isinstance(sess.name, cst.Name):
        return None
    savers = {
        call.func.value.value
        for call in calls_in(session.body)
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in ("save", "restore")
        and isinstance(call.func.value, cst.Name) and call.args and _is_name(call.args[0].value, sess.name.value)
    }
    where = session_function(session, functions, module, resolver)
    scope = functions[-1] if functions else module
    found = [(name, _saver_statement(name, scope, resolver)) for name in sorted(savers)]
    found = [(name, statement) for name, statement in found if statement is not None]
    if not found:
        return None
    saver_call = single_assignment(found[0][1])[1]
    if isinstance(where, list):
        return saver_call, where
    if len(found) > 1:
        return saver_call, ["the session saves with more than one Saver"]
    body = list((where[1] or where[0]).body.body)
    if found[0][1] not in body[: body.index(session)]:
        return saver_call, [f"`{found[0][0]} = tf.train.Saver(...)` is not a statement before the session"]
    return saver_call, _SaverLoopReader(session, where[0], where[1], found[0][0], found[0][1], resolver).read()


def _saver_statement(name: str, scope: cst.FunctionDef | cst.Module, resolver: ApiResolver) -> cst.CSTNode | None:
    """The statement of `scope` (or of its graph block) assigning `name = tf.train.Saver(...)`."""
    for statement in _flat_body(scope, resolver):
        assignment = single_assignment(statement)
        if assignment is not None and assignment[0] == name and _api(assignment[1], resolver) == SAVER_API:
            return statement
    return None


def _flat_body(scope: cst.FunctionDef | cst.Module, resolver: ApiResolver) -> list[cst.BaseStatement]:
    statements = scope.body if isinstance(scope, cst.Module) else scope.body.body
    return [t for s in statements for t in (s.body.body if graph_block(s, resolver) else [s])]


def _api(node: cst.BaseExpression, resolver: ApiResolver) -> str | None:
    api = resolver.call_api(node) if isinstance(node, cst.Call) else None
    return api.path if api is not None else None


def _is_name(node: cst.BaseExpression, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


class _SaverLoopReader:
    """Reads one `with tf.Session() as sess:` of a function whose statements build its graph."""

    def __init__(self, session, function, graph, saver, saver_statement, resolver: ApiResolver):
        self.session, self.function, self.graph, self.resolver = session, function, graph, resolver
        self.saver, self.saver_statement = saver, saver_statement
        self.sess = session.items[0].asname.name.value
        self.analysis = ModelFnReader(resolver)
        self.problems = self.analysis.problems
        self.dropped: list[str] = []
        self.initializer_names: set[str] = set()  # variables holding a variables initializer
        # expressions the migrated code evaluates where the session was (the input, the saver's arguments)
        self.emitted: list[cst.BaseExpression] = []

    def read(self) -> SaverLoop | list[str]:
        body = list((self.graph or self.function).body.body)
        at = body.index(self.session)
        before = body[:at]
        self._session_arguments()
        initializers = [s for s in before if self._is_initializer(s)]
        batches, input_statements, renames = self._batches(before)
        if batches is None:
            return self.problems or [
                "the input is neither `features, labels = tf.data.make_one_shot_iterator(dataset).get_next()` "
                "(or `dataset.make_one_shot_iterator().get_next()`) nor two tf.placeholder(dtype, shape) fed with "
                "feed_dict"
            ]
        input_at = max(body.index(s) for s in input_statements)
        # `global_step = tf.Variable(0, trainable=False, name="global_step")`: emitted as get_or_create_global_step()
        made_steps = {id(s): made for s in before if (made := global_step_variable(s, self.resolver)) is not None}
        steps = [s for s in before[:input_at] if is_global_step(s, self.resolver) or id(s) in made_steps]
        # (one made after the input is read by training_parts as a model_fn's is)
        self.global_steps = {single_assignment(s)[0] for s in before
                             if is_global_step(s, self.resolver) or id(s) in made_steps}
        others = [s for s in before[input_at + 1 :] if s is not self.saver_statement and s not in initializers]
        region = graph_statements(others, set(renames), self.resolver)
        self.initializer_names = {single_assignment(s)[0] for s in initializers}
        renamed = [made_steps.get(id(s), s).visit(BatchRenamer(renames)) for s in region]
        clashing = ({"features", "labels"} - set(renames)) & set().union(*(names_in(s) for s in region))
        if clashing:
            self.problems.append(f"the training code uses {', '.join(sorted(clashing))} besides the input's batch")
        self.train_op = self._train_op(region)
        loss = minimized_loss(renamed, self.train_op) if self.train_op else None
        applied = applied_gradients_loss(renamed, self.train_op) if self.train_op and loss is None else None
        if loss is None and applied is None:
            return self.problems + [
                "the session runs no `train_op` assigned `optimizer.minimize(loss, global_step=...)` (or "
                "`apply_gradients(..., global_step=...)` of one `compute_gradients(loss)`) before it"
            ]
        removed = [*steps, *input_statements, *region, *initializers, self.saver_statement]
        bound = set().union(*(bound_names(s) for s in removed))
        loop_problems = len(self.problems)
        steps_made = [made_steps.get(id(s), s) for s in steps]
        parts = training_parts(
            steps_made + renamed, cst.Name(loss), cst.Name(self.train_op), self.analysis, bound | {"features", "labels"},
            where=f"{self.function.name.value}()",
        ) if loss is not None else None
        graph_problems = self.problems[loop_problems:]  # why the graph is not a class: tier 2 keeps it as written
        del self.problems[loop_problems:]
        self.loss = loss = loss or applied
        self.batches = batches
        replacements = self._session_replacements()
        saver = self._saver_arguments()
        save_path = self._save_path()
        statements = [t for s in self.function.body.body for t in (body if s is self.graph else [s])]
        removed_ids = {id(s) for s in removed}
        kept = [s for s in statements if id(s) not in removed_ids and s is not self.session]
        migrated_body = self.session.body.visit(_Replacer(replacements))
        self._name_problems(kept, migrated_body, bound | {self.sess})
        if parts is not None:
            graph_problems += class_problems(parts, self.function, statements, self.session, bound)
        if self.problems:
            return list(dict.fromkeys(self.problems + graph_problems))
        shape, wrapped = None, None
        if parts is None or graph_problems:
            name = self.function.name.value
            wrapped = WrappedGraph(f"{name}_graph", name, steps_made + renamed, loss, self.train_op)
            problems = wrapped_problems(wrapped, [*kept, *self.session.body.body], self.function)
            if problems:
                return list(dict.fromkeys(graph_problems + problems))
        else:
            shape = ModelFnShape(
                self.function, class_name(f"{self.function.name.value}_model"), parts.forward, parts.output,
                parts.loss_statements, loss, parts.optimizer, (), body, parts.training_only,
            )
        calls = {id(node) for statement in removed for node in calls_in(statement)} | {id(self.session.items[0].item)}
        return SaverLoop(
            self.session, shape, batches, save_path[0], save_path[1], saver[0], saver[1], save_path[2], replacements,
            removed_ids, calls, self.graph, self.dropped, wrapped,
        )

    def _session_arguments(self) -> None:
        call = self.session.items[0].item
        arguments, problems = call_arguments(call, SESSION_PARAMS)
        self.problems.extend(problems)
        target = arguments.get("target")
        if target is not None and not (isinstance(target, cst.SimpleString) and target.evaluated_value == ""):
            self.problems.append("tf.Session(target=...) names a remote TF1 server (use a tf.distribute strategy)")
        if "graph" in arguments and not is_none(arguments["graph"]):
            self.problems.append("tf.Session(graph=...) runs a graph of its own (the function's default graph migrates)")
        if "config" in arguments and not is_none(arguments["config"]):
            self.dropped.append("the session's config (TF2 has no sessions; threads: tf.config.threading)")

    def _is_initializer(self, node: cst.CSTNode) -> bool:
        """Whether `node` is `init = <variables initializer>` or such an initializer expression."""
        assignment = single_assignment(node)
        if assignment is not None:
            return self._is_initializer(assignment[1])
        if isinstance(node, cst.List | cst.Tuple):
            return bool(node.elements) and all(self._is_initializer(e.value) for e in node.elements)
        path = _api(node, self.resolver)
        if path in INITIALIZER_APIS:
            return True
        if path == "group":
            return all(arg.keyword is None and self._is_initializer(arg.value) for arg in node.args)
        return isinstance(node, cst.Name) and node.value in self.initializer_names

    def _batches(self, statements):
        """(("iterator", dataset) | ("feed", [(dtype, shape), (dtype, shape)]), the statements making the input,
        {batch name: "features" | "labels"}), or (None, [], {})."""
        iterator_at, features, labels, dataset, made = one_shot_input(statements, self.resolver, self.problems)
        placeholders = {}
        for statement in statements:
            assignment = single_assignment(statement)
            if assignment is not None and _api(assignment[1], self.resolver) == PLACEHOLDER_API:
                placeholders[assignment[0]] = statement
        if iterator_at is not None and not placeholders:
            self.emitted.append(dataset)
            return ("iterator", dataset), made, {features: "features", labels: "labels"}
        if iterator_at is None and len(placeholders) == 2:
            return self._fed(statements, placeholders)
        if placeholders:
            self.problems.append("the graph has placeholders other than a features and a labels one fed with feed_dict")
        return None, [], {}

    def _fed(self, statements, placeholders):
        """The feed input: which placeholder is the features' (the one the network reads first), their specs."""
        order = [s for s in statements if s not in placeholders.values()]
        first = next((names_in(s) & set(placeholders) for s in order if names_in(s) & set(placeholders)), set())
        if len(first) != 1:
            self.problems.append("the network does not read one placeholder (the features) before the other (the labels)")
            return None, [], {}
        features = first.pop()
        labels = next(name for name in placeholders if name != features)
        specs = []
        for name in (features, labels):
            arguments, problems = call_arguments(single_assignment(placeholders[name])[1], ("dtype", "shape", "name"))
            shape = arguments.get("shape")
            if problems or "dtype" not in arguments or shape is None or is_none(shape):
                self.problems.append(f"placeholder {name} has no shape (the migrated step's input signature needs one)")
                return None, [], {}
            specs.append((source(arguments["dtype"]), source(shape)))
            self.emitted += [arguments["dtype"], shape]
        self.placeholders = (features, labels)
        return ("feed", specs), list(placeholders.values()), {features: "features", labels: "labels"}

    def _train_op(self, region) -> str | None:
        """The name the session's sess.run calls fetch that the graph assigns `<optimizer>.minimize(...)` (or
        `apply_gradients(..., global_step=...)` of one `compute_gradients(loss)`)."""
        fetched = set()
        for call in calls_in(self.session.body):
            if is_method(call.func, self.sess, "run") and call.args:
                value = call.args[0].value
                elements = [e.value for e in value.elements] if isinstance(value, cst.List | cst.Tuple) else [value]
                fetched |= {e.value for e in elements if isinstance(e, cst.Name)}
        for name in sorted(fetched):
            if minimized_loss(region, name) is not None or applied_gradients_loss(region, name) is not None:
                return name
        return None

    def _session_replacements(self) -> dict[int, cst.CSTNode | cst.RemovalSentinel]:
        """What replaces each session call in the session's statements; problems for the calls that cannot."""
        replacements: dict[int, cst.CSTNode | cst.RemovalSentinel] = {}
        leading = True
        for statement in self.session.body.body:  # initializers first: after a restore they would reset it
            run = self._run_call(statement)
            if leading and run is not None and len(run.args) == 1 and self._is_initializer(run.args[0].value):
                replacements[id(statement)] = cst.RemovalSentinel.REMOVE
                continue
            leading = False
        reader = self

        class Calls(cst.CSTVisitor):
            def visit_Assign(self, node):
                replacement = reader._fetching_assignment(node)
                if replacement is not None:
                    replacements[id(node)] = replacement
                    return False
                return True

            def visit_Call(self, node):
                if id(node) not in replacements:
                    replacement = reader._call(node)
                    if replacement is not None:
                        replacements[id(node)] = replacement
                        return False
                return True

        for statement in self.session.body.body:
            if id(statement) not in replacements:
                fast_visit(statement, Calls())
        return replacements

    def _run_call(self, statement) -> cst.Call | None:
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
            small = statement.body[0]
            if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and is_method(small.value.func, self.sess, "run"):
                return small.value
        return None

    def _fetching_assignment(self, node: cst.Assign) -> cst.Assign | None:
        """`_, loss_value = sess.run([train_op, loss], ...)` -> `loss_value = train_step(...).numpy()`."""
        run = node.value
        if not (isinstance(run, cst.Call) and is_method(run.func, self.sess, "run") and len(node.targets) == 1):
            return None
        fetches, target = run.args[0].value if run.args else None, node.targets[0].target
        if isinstance(fetches, cst.Name) and fetches.value == self.train_op and is_underscore(target):
            return None  # `_ = sess.run(train_op)`: the call is replaced
        if not (isinstance(fetches, cst.List | cst.Tuple) and isinstance(target, cst.List | cst.Tuple)
                and len(fetches.elements) == 2 == len(target.elements)):
            return None
        pairs = {source(f.value): t.value for f, t in zip(fetches.elements, target.elements)}
        if set(pairs) != {self.train_op, self.loss} or not is_underscore(pairs[self.train_op]):
            return None
        step = self._training_step(run, 2)
        if step is None:
            return None
        value = cst.Call(cst.Attribute(step, cst.Name("numpy")))
        return node.with_changes(targets=[cst.AssignTarget(pairs[self.loss])], value=value)

    def _call(self, call: cst.Call) -> cst.BaseExpression | None:
        """What replaces one session call (sess.run, tf.train.global_step, saver.save/restore), or None."""
        if is_method(call.func, self.sess, "run") and call.args:
            fetches = call.args[0].value
            if _is_name(fetches, self.train_op):
                return self._training_step(call, 1)
            if isinstance(fetches, cst.Name) and fetches.value in self.global_steps and len(call.args) == 1:
                return cst.parse_expression(STEP)
            if self._is_initializer(fetches):
                self.problems.append(
                    f"`{_short(call)}` initializes variables after other session calls (it reset what they restored)"
                )
                return None
            if isinstance(fetches, cst.List | cst.Tuple):
                self.problems.append(
                    f"`{_short(call)}`: a list of fetches is migrated as `_, loss_value = sess.run([train_op, loss])` "
                    "only (the global step fetched with train_op has TF1's op order)"
                )
            else:
                self.problems.append(
                    f"`{_short(call)}` runs graph tensors other than train_op, the loss fetched with it and the "
                    "global step"
                )
            return None
        if (
            _api(call, self.resolver) == GLOBAL_STEP_FUNCTION and len(call.args) == 2
            and _is_name(call.args[0].value, self.sess) and _is_name_in(call.args[1].value, self.global_steps)
        ):
            return cst.parse_expression(STEP)
        if is_method(call.func, self.saver, "save"):
            return self._save(call)
        if is_method(call.func, self.saver, "restore"):
            arguments, problems = call_arguments(call, ("sess", "save_path"))
            if problems or set(arguments) != {"sess", "save_path"}:
                self.problems.append(f"`{_short(call)}` is not `{self.saver}.restore(sess, path)`")
                return None
            return cst.parse_expression(f"resume.restore(checkpoint_manager.checkpoint, {source(arguments['save_path'])})")
        return None

    def _training_step(self, run: cst.Call, fetches: int) -> cst.Call | None:
        """`train_step(input_iterator)` or `train_step(<fed features>, <fed labels>)` for `run`'s step."""
        arguments, problems = call_arguments(run, ("fetches", "feed_dict", "options", "run_metadata"))
        if problems or set(arguments) - {"fetches", "feed_dict"}:
            self.problems.append(f"`{_short(run)}`: only the fetches and feed_dict of a training step are migrated")
            return None
        feed = arguments.get("feed_dict")
        if self.batches[0] == "iterator":
            if feed is not None and not is_none(feed):
                self.problems.append("a training step feeds values while the input is a one-shot iterator")
                return None
            return cst.parse_expression("train_step(input_iterator)")
        fed = {}
        if isinstance(feed, cst.Dict):
            fed = {
                e.key.value: e.value for e in feed.elements if isinstance(e, cst.DictElement) and isinstance(e.key, cst.Name)
            }
        if feed is None or not isinstance(feed, cst.Dict) or len(fed) != len(feed.elements) or set(fed) != set(self.placeholders):
            self.problems.append(
                f"`{_short(run)}` does not feed exactly the two placeholders in a dict literal (feed_dict={{x: ..., y: ...}})"
            )
            return None
        features, labels = (source(fed[name]) for name in self.placeholders)
        return cst.parse_expression(f"train_step({features}, {labels})")

    def _save(self, call: cst.Call) -> cst.BaseExpression | None:
        arguments, problems = call_arguments(call, SAVE_PARAMS)
        step = arguments.get("global_step")
        if problems or step is None or is_none(step):
            self.problems.append(
                f"`{_short(call)}` saves without global_step= (a CheckpointManager numbers every checkpoint)"
            )
            return None
        for name, default in (("latest_filename", "None"), ("write_state", "True")):
            if name in arguments and source(arguments[name]) != default:
                self.problems.append(f"{self.saver}.save({name}=...) is not migrated")
        number = "model.optimizer.iterations" if _is_name_in(step, self.global_steps) else source(step)
        return cst.parse_expression(f"checkpoint_manager.save(checkpoint_number={number})")

    def _saver_arguments(self) -> tuple[str, str | None]:
        """(max_to_keep, keep_checkpoint_every_n_hours or None) as code for the CheckpointManager."""
        arguments, problems = call_arguments(single_assignment(self.saver_statement)[1], SAVER_PARAMS)
        self.problems.extend(problems)
        for name in SAVER_UNSUPPORTED:
            if name in arguments and not (is_none(arguments[name]) or source(arguments[name]) == "False"):
                self.problems.append(f"Saver({name}=...) is not migrated")
        var_list = arguments.get("var_list")
        if var_list is not None and not is_none(var_list) and _api(var_list, self.resolver) not in ALL_VARIABLES_APIS:
            self.problems.append("the Saver saves some variables only (var_list=): not migrated")
        keep = arguments.get("max_to_keep")
        if keep is None:
            max_to_keep = DEFAULT_MAX_TO_KEEP
        elif isinstance(keep, cst.Integer):
            max_to_keep = source(keep) if keep.evaluated_value > 0 else "None"  # 0: the Saver kept every one
        else:
            max_to_keep = "None" if is_none(keep) else f"{_parenthesized(keep)} or None"
        hours = arguments.get("keep_checkpoint_every_n_hours")
        self.emitted += [value for value in (keep, hours) if value is not None]
        return max_to_keep, source(hours) if hours is not None and not is_none(hours) else None

    def _save_path(self) -> tuple[str, str, bool]:
        """(directory, checkpoint name, whether os.path splits them) of the path every save writes to."""
        paths = []
        for call in calls_in(self.session.body):
            if is_method(call.func, self.saver, "save"):
                path = call_arguments(call, SAVE_PARAMS)[0].get("save_path")
                if path is not None:
                    paths.append(path)
        if len({source(path) for path in paths}) != 1:
            self.problems.append(f"{self.saver}.save() is not given one and the same path in every call")
            return "", "", False
        path = paths[0]
        self.emitted.append(path)
        made_in_session = set().union(*(bound_names(s) for s in self.session.body.body))
        if names_in(path) & made_in_session:
            self.problems.append(f"the save path {source(path)} is computed in the session (the manager needs it before)")
        join = _os_path_join(path)
        if join is not None and len(join) >= 2 and isinstance(join[-1], cst.SimpleString) and "/" not in join[-1].evaluated_value:
            directory = source(join[0]) if len(join) == 2 else f"os.path.join({', '.join(source(p) for p in join[:-1])})"
            return directory, source(join[-1]), len(join) > 2
        if (
            isinstance(path, cst.BinaryOperation) and isinstance(path.operator, cst.Add)
            and isinstance(path.right, cst.SimpleString) and path.right.evaluated_value.count("/") == 1
            and path.right.evaluated_value.startswith("/")
        ):  # directory + "/name"
            return source(path.left), repr(path.right.evaluated_value[1:]).replace("'", '"'), False
        text = source(path)
        return f"os.path.dirname({text})", f"os.path.basename({text})", True

    def _name_problems(self, kept, migrated_body, graph_names: set[str]) -> None:
        """The graph's names (and sess) read outside what the migration replaces; names the loop would rebind."""
        outside = set().union(*(names_in(s) for s in [*kept, migrated_body, *self.emitted]))
        if self.problems:  # session and saver calls not migrated: already said
            graph_names = graph_names - {self.sess, self.saver}
        used = sorted(outside & graph_names)
        if used:
            self.problems.append(
                f"{', '.join(used)}, made for the session, {'is' if len(used) == 1 else 'are'} used otherwise than "
                "in its training step, global step, saves and restores"
            )
        names = set().union(
            *(name_counts(s) for s in [*kept, self.session.body]), *(name_counts(p) for p in self.function.params.params)
        )
        clash = sorted(set(LOOP_NAMES) & names)
        if clash:
            self.problems.append(f"the function already uses {', '.join(clash)}, which the migrated loop binds")


class _Replacer(cst.CSTTransformer):
    """Applies the replacements (keyed by the ids of the original nodes) to a copy of the session's statements."""

    def __init__(self, replacements):
        self.replacements = replacements

    def on_leave(self, original, updated):
        return self.replacements.get(id(original), updated)


def _os_path_join(node: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    """The arguments of `os.path.join(a, b, ...)` written so."""
    if (
        isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "join"
        and source(node.func.value) == "os.path" and all(arg.keyword is None and not arg.star for arg in node.args)
    ):
        return [arg.value for arg in node.args]
    return None


def _is_name_in(node: cst.BaseExpression, names: set[str]) -> bool:
    return isinstance(node, cst.Name) and node.value in names


def _parenthesized(node: cst.BaseExpression) -> str:
    return source(node) if isinstance(node, cst.Name | cst.Attribute | cst.Call | cst.Subscript) else f"({source(node)})"


def _short(node: cst.CSTNode) -> str:
    text = source(node)
    return text if len(text) <= 60 else text[:57] + "..."
