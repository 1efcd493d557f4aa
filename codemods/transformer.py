"""One pass over the original tree applies every rule; `migrate_source` is the entry point.

A single traversal (rather than one codemod after another) keeps every node's position pointing into the
input file, which is what the report's `line` promises. Rules see a `RuleContext`: the target, the
module's facts, qualified-name resolution, and helpers to record findings, leave TODO comments and ask
for imports (added afterwards by codemods.imports, whatever the module's existing imports).
"""

from __future__ import annotations

import ast
import itertools
from collections import defaultdict
from dataclasses import dataclass, field, replace

import libcst as cst
from libcst.metadata import QualifiedNameProvider

from codemods import TARGETS
from codemods.api import ApiResolver
from codemods.bindings import ModuleBindings
from codemods.facts import ProgramFacts, collect_facts
from codemods.findings import EstimatorTier, Finding, todo_comment
from codemods.imports import (
    RUNTIME_PACKAGE,
    NeededImport,
    add_imports,
    bound_names,
    imported_names,
    names_in,
    remove_unused_imports,
    tidy_import_block,
)
from codemods.keras2_switch import set_before_tensorflow
from codemods.output_check import SilentBreakage, silent_breakage
from codemods.positions import start_positions
from codemods.project.facts import ProjectFacts, module_facts
from codemods.registry import Rule, load_rules
from codemods.runtime_tier import ESTIMATOR_METHODS
from codemods.syntax import children_listed_once, subtrees_containing
from codemods.tf_era import uses_tf1_names, written_for_tf1

_STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)
# by exact type: an isinstance check against LibCST's abstract base classes, on every node, costs more
_STATEMENT_TYPES = frozenset(
    {cst.SimpleStatementLine, cst.If, cst.For, cst.While, cst.Try, cst.TryStar, cst.With, cst.FunctionDef, cst.ClassDef,
     cst.Match}
)
# The methods rules rewrite on any receiver (an estimator's, a dataset's): `call_matters`
_RULE_METHODS = frozenset({*ESTIMATOR_METHODS, "experimental_export_all_saved_models", "make_one_shot_iterator",
                           "make_initializable_iterator"})


@dataclass
class MigrationResult:
    code: str
    findings: list[Finding]
    changed: bool
    estimators: list[EstimatorTier] = field(default_factory=list)  # the tier each estimator got


class RuleContext:
    """What a rule may read and do while the tree is being transformed."""

    def __init__(self, transformer: MigrationTransformer, module: cst.Module, target: str, exact: bool):
        self.target = target
        self.exact = exact  # emit the exact-resume runtime (compat.exact / the exact loop)
        self._transformer = transformer
        self.bindings = ModuleBindings.of(module)
        self.resolver = ApiResolver(
            module, self.bindings, lambda: transformer.metadata_wrapper.resolve(QualifiedNameProvider)
        )
        self.resolver.tf1_program = transformer.project is not None and transformer.project.tf1
        # the project names what TensorFlow 2 lacks: its TensorFlow names are TF1's (codemods/rules/tf1_names.py)
        self.tf1_names = transformer.project is not None and transformer.project.tf1_names
        self.facts: ProgramFacts = collect_facts(module, self.resolver, exact, transformer.project, transformer.source)
        self._recorded: list[tuple[cst.CSTNode, str, bool, str]] = []  # positions resolved at the end: findings()
        self._said: set[tuple[str, str]] = set()  # record_once's
        self.module, self._text = module, None  # (mentions)
        self._mentioned: dict[str, bool] = {}  # (mentions)
        self._positions: dict[int, tuple[int, int]] | None = None  # (_starts)
        self._decided_calls: set[int] | None = None  # (call_matters)
        self.contrib_call_functions: set[int] | None = None  # (rules/contrib_names.py, once per module)
        self.contrib_attribute_values: set[int] | None = None  # (rules/contrib_modules.py, once per module)
        self.assigned_attributes: set[int] | None = None  # (rules/dataset_iterator_method.py, once per module)
        self.contrib_moved_aliases: dict[str, str] | None = None  # (rules/contrib_modules.py, once per module)
        self.contrib_assigned_modules: dict[int, str] | None = None  # (rules/contrib_modules.py, once per module)
        self.contrib_as_is_aliases: dict[str, str] | None = None  # (rules/contrib_modules.py, once per module)
        self.statement_stack: list[cst.CSTNode] = []
        self.pending_todos: dict[int, list[str]] = defaultdict(list)
        # id of a statement -> the tf.estimator names it spells, as spelled: rules/estimator_leftovers.py
        self.estimator_leftovers: dict[int, dict[str, str]] = {}
        self.estimator_leftovers_within: dict[int, dict[str, str]] = {}  # id of a def or class -> those in its body
        self.tf = self._tensorflow_name(module, self.bindings)
        self.imported_names: dict[str, str] = {}  # name the migrated code imports -> module it comes from
        self.needed_imports: list[NeededImport] = []
        # Rewritten nodes a rule removed from their statement for another rule to emit elsewhere, keyed by
        # the id of the original node (a TrainSpec assignment folded into its train_and_evaluate).
        self.moved: dict[int, cst.CSTNode] = {}
        # Statements rules put before a statement (by the id of the original), written once every rule has seen it.
        self.preludes: dict[int, list[cst.BaseStatement]] = defaultdict(list)

    def mentions(self, word: str) -> bool:
        """Whether the module's text holds `word` (a cheap test before a rule resolves names)."""
        if word not in self._mentioned:  # (asked for every node of some types: the text is searched once a word)
            if self._text is None:
                self._text = self._transformer.source if self._transformer.source is not None else self.module.code
            self._mentioned[word] = word in self._text
        return self._mentioned[word]

    @property
    def imports_tensorflow(self) -> bool:
        """Whether the module binds a name imported from tensorflow (or tensorflow_estimator)."""
        return any(
            binding.imported is not None and binding.imported.split(".")[0] in ("tensorflow", "tensorflow_estimator")
            for bindings in self.bindings.by_name.values() for binding in bindings
        )

    @property
    def current_statement(self) -> cst.CSTNode:
        return self.statement_stack[-1]

    def record(self, node: cst.CSTNode, rule: str, migrated: bool, message: str) -> None:
        """A report entry on `node`, a node of the module as it was parsed."""
        self._recorded.append((node, rule, migrated, message))
        self._positions = None

    @property
    def recorded(self) -> bool:
        """Whether any rule has reported anything (every change comes with a report entry)."""
        return bool(self._recorded)

    @property
    def migrated_something(self) -> bool:
        """Whether any rule has migrated a construct (not only left TODOs)."""
        return any(migrated for _, _, migrated, _ in self._recorded)

    def findings(self, module: cst.Module) -> list[Finding]:
        """The report entries recorded so far, with the positions of their nodes in `module` (the parsed one)."""
        starts = self._starts(module)
        findings = [Finding(rule, *starts[id(node)], migrated, message) for node, rule, migrated, message in self._recorded]
        return sorted(findings, key=lambda f: (f.line, f.col, f.rule))

    def call_matters(self, call: cst.Call) -> bool:
        """Whether a rule acting on calls may act on `call` (Rule.interested): it names a TensorFlow API, it is a
        call the facts or the run-time tier decided on, a method some rule rewrites (`.train`, `.evaluate`,
        `.make_one_shot_iterator`; any, in a module naming tf.contrib), or it is given `tf.estimator` itself."""
        if self._decided_calls is None:
            runtime, units = self.facts.runtime, self.facts.estimators.values()
            self._decided_calls = {*runtime.calls, *runtime.kept_calls, *runtime.constructor_problems,
                                   *self.facts.session_replacements, *(id(unit.call) for unit in units)} | {
                id(call) for unit in units for calls in (unit.model_calls, unit.builtin_hook_calls,
                                                          unit.input_fn_calls, unit.saver_hook_calls,
                                                          unit.export_api_calls) for call in calls}
        func = call.func
        return (id(call) in self._decided_calls
                or isinstance(func, cst.Attribute) and (func.attr.value in _RULE_METHODS or self.mentions("contrib"))
                or any(isinstance(arg.value, cst.Attribute) and arg.value.attr.value == "estimator" for arg in call.args)
                or self.resolver.call_api(call) is not None)

    def _starts(self, module: cst.Module) -> dict[int, tuple[int, int]]:
        """The positions of the recorded nodes and of the estimator constructors: one walk of the module's code
        for both (the recorded nodes are known once the traversal is done)."""
        if self._positions is None:
            nodes = [node for node, *_ in self._recorded] + [call for call, _ in self.facts.runtime.estimator_calls]
            self._positions = start_positions(module, nodes)
        return self._positions

    def estimator_tiers(self, module: cst.Module) -> list[EstimatorTier]:
        """The tier each estimator constructor of the module got, with its position in `module` (the parsed one)
        and, for a kept one, why (the run-time tier's reasons, tier 1's, or the TODOs recorded at it)."""
        calls = self.facts.runtime.estimator_calls
        if not calls:
            return []
        runtime, units = self.facts.runtime, {id(unit.call): unit for unit in self.facts.estimators.values()}
        todos: dict[int, list[str]] = defaultdict(list)
        for node, _, migrated, message in self._recorded:
            if not migrated:
                todos[id(node)].append(message)
        starts = self._starts(module)
        tiers = []
        for call, name in calls:
            unit, kind = units.get(id(call)), runtime.kind(call)
            if unit is not None and unit.migratable and not unit.runtime:
                tier, reasons = "rewritten", []
            elif kind in ("canned", "keras_estimator"):
                tier, reasons = "run-time", []
            elif kind in ("wrapped", "wrapped_tpu"):
                tier, reasons = "wrapped", []
            else:
                tier = "kept"
                reasons = runtime.constructor_problems.get(id(call)) or (unit.problems if unit else []) or todos[id(call)] \
                    or [f"{name} stays TF1 (see the TODO at its class)"]
            tiers.append(EstimatorTier(name, tier, *starts[id(call)], tuple(dict.fromkeys(map(str, reasons)))))
        return tiers

    def forget_removed_imports(self, still_imported: set[str]) -> None:
        """Drop what was recorded about an import statement the rewrite then removed (left unused: its TODOs
        went with it), given the names the module's imports still bind."""
        self._recorded = [entry for entry in self._recorded if not (
            isinstance(entry[0], (cst.Import, cst.ImportFrom)) and bound_names(entry[0])
            and not bound_names(entry[0]) & still_imported)]

    def todo(self, node: cst.CSTNode, rule: str, message: str, statement: cst.CSTNode | None = None) -> None:
        """Leave `node` as it is, with a TODO comment on its statement and a report entry."""
        self.record(node, rule, False, message)
        comment = todo_comment(rule, message)
        pending = self.pending_todos[id(statement or self.current_statement)]
        if comment not in pending:
            pending.append(comment)

    def put_before(self, statement: cst.CSTNode, new: list[cst.BaseStatement]) -> None:
        """Write `new` right before `statement` (an original statement node), whatever else rules make of it."""
        self.preludes[id(statement)].extend(new)

    def record_once(self, node: cst.CSTNode, rule: str, migrated: bool, message: str) -> None:
        """`record`, once per module for each (rule, message): a change made at every use of a name is one
        finding, at the first."""
        if (rule, message) not in self._said:
            self._said.add((rule, message))
            self.record(node, rule, migrated, message)

    def need_import(self, module: str, obj: str | None = None, asname: str | None = None) -> None:
        needed = NeededImport(module, obj, asname)
        if needed not in self.needed_imports:
            self.needed_imports.append(needed)
        self.imported_names[asname or obj or module.split(".")[0]] = module

    def need_compat(self, name: str) -> None:
        """`from estimator_migrate.compat import name`: the runtime module the migrated code calls."""
        self.need_import(RUNTIME_PACKAGE, name)

    def need_tensorflow(self) -> str:
        self.need_import("tensorflow", asname=None if self.tf == "tensorflow" else self.tf)
        return self.tf

    @staticmethod
    def _tensorflow_name(module: cst.Module, bindings: ModuleBindings) -> str:
        """The module's name for `tensorflow` itself; `tf` may be bound to tensorflow.compat.v1 instead."""
        for statement in module.body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.Import):
                        for alias in small.names:
                            if cst.helpers.get_full_name_for_node(alias.name) == "tensorflow":
                                return alias.asname.name.value if alias.asname else "tensorflow"
        module_level_tf = any(binding.module_level for binding in bindings.by_name.get("tf", ()))
        return "tf2" if module_level_tf else "tf"


class MigrationTransformer(cst.CSTTransformer):
    # A plain transformer, not a ContextAwareTransformer: that one's matcher-decorator dispatch on every
    # node cost more than the rules themselves (measured).
    # No metadata up front: positions come from codemods.positions for the reported nodes only, qualified names
    # from codemods.api, which asks `metadata_wrapper` for LibCST's scope analysis only for modules whose
    # TensorFlow names are ambiguous (it costs more than the rules).
    METADATA_DEPENDENCIES = ()

    def __init__(
        self,
        metadata_wrapper: cst.MetadataWrapper,
        target: str,
        rules: list[Rule],
        exact: bool = False,
        project: ProjectFacts | None = None,
        source: str | None = None,
    ):
        super().__init__()
        self.metadata_wrapper = metadata_wrapper
        self.source = source  # the module's text, when the caller has it (else regenerated where needed)
        self.target = target
        self.exact = exact
        self.project = project
        self.rules_by_type: dict[type, list[Rule]] = defaultdict(list)
        for rule in sorted(rules, key=lambda rule: rule.wraps_statement):  # stable: registration order otherwise
            for node_type in rule.node_types:
                self.rules_by_type[node_type].append(rule)
        self.ctx: RuleContext | None = None
        self._removed_spacing: dict[int, list[cst.EmptyLine]] = {}  # block depth -> a removed statement's blank lines
        self._entered: set[int] = set()  # ids of the nodes whose children the traversal visits

    def visit_Module(self, node: cst.Module) -> bool:
        self.ctx = RuleContext(self, node, self.target, self.exact)
        self._removed_spacing = {}
        # Only subtrees holding a node some rule acts on are entered: LibCST rebuilds every node it passes, and
        # most of a module's nodes are names, literals and whitespace inside expressions no rule reads.
        self._entered = subtrees_containing(node, self.rules_by_type.keys(), self._interesting)
        return True

    def _interesting(self, node: cst.CSTNode) -> bool:
        return any(rule.interested(node, self.ctx) for rule in self.rules_by_type[type(node)])

    # The rules are dispatched by node type below: LibCST's lookup of visit_<Node>/leave_<Node> (and of
    # visit_<Node>_<field> around each child) by name, on every node, is skipped.
    def on_visit(self, node: cst.CSTNode) -> bool:
        if type(node) is cst.Module:
            return self.visit_Module(node)
        if id(node) not in self._entered:  # visit_Module fills _entered
            return False
        if type(node) in _STATEMENT_TYPES:
            self.ctx.statement_stack.append(node)
        return True

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        pass

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        pass

    def on_leave(self, original_node, updated_node):
        result = updated_node
        for rule in self.rules_by_type.get(type(original_node), ()):
            if not isinstance(result, cst.CSTNode):
                break
            result = rule.leave(original_node, result, self.ctx)
        if type(original_node) in _STATEMENT_TYPES:
            self.ctx.statement_stack.pop()
            todos = self.ctx.pending_todos.pop(id(original_node), [])
            if todos and self.ctx.module.body and original_node is self.ctx.module.body[0]:
                # the first statement's comments above it are the module's header: a TODO there is said already
                header = {line.comment.value for line in self.ctx.module.header if line.comment}
                todos = [todo for todo in todos if todo not in header]
            if todos and isinstance(result, _STATEMENTS):
                result = _with_comments(result, todos)
            elif todos and isinstance(result, cst.FlattenSentinel) and result.nodes:  # on the first statement
                result = cst.FlattenSentinel([_with_comments(result.nodes[0], todos), *result.nodes[1:]])
            elif todos:
                raise AssertionError(f"TODOs for a statement that was removed: {todos}")
            result = self._keep_spacing(original_node, result)
            result = _with_prelude(result, self.ctx.preludes.pop(id(original_node), []))
        return result

    def _keep_spacing(self, original, result):
        """A removed statement's blank lines go to the next statement of its block that has none (a RunConfig
        removed between a function and the code after it would leave them touching)."""
        depth = len(self.ctx.statement_stack)
        for deeper in [d for d in self._removed_spacing if d > depth]:
            del self._removed_spacing[deeper]  # a block ended
        if isinstance(result, cst.RemovalSentinel):
            blank = [line for line in original.leading_lines if line.comment is None]
            self._removed_spacing[depth] = self._removed_spacing.get(depth, blank) or blank
        elif depth in self._removed_spacing:
            blank = self._removed_spacing.pop(depth)
            if isinstance(result, _STATEMENTS) and not result.leading_lines:
                result = result.with_changes(leading_lines=blank)
        return result


def _with_prelude(result, prelude: list[cst.BaseStatement]):
    """`result` (a statement, or statements) with `prelude` before it, taking over its leading lines."""
    if not prelude:
        return result
    if isinstance(result, cst.RemovalSentinel):
        return cst.FlattenSentinel(prelude)
    following = list(result.nodes) if isinstance(result, cst.FlattenSentinel) else [result]
    first = prelude[0].with_changes(leading_lines=[*following[0].leading_lines, *prelude[0].leading_lines])
    return cst.FlattenSentinel([first, *prelude[1:], following[0].with_changes(leading_lines=[]), *following[1:]])


def _with_comments(statement, comments: list[str]):
    present = {line.comment.value for line in statement.leading_lines if line.comment}
    new_lines = [cst.EmptyLine(comment=cst.Comment(text)) for text in comments if text not in present]
    return (
        statement.with_changes(leading_lines=[*statement.leading_lines, *new_lines])
        if new_lines
        else statement
    )


_RULES: list[Rule] | None = None


def migrate_source(
    source: str, target: str = "keras", exact: bool = False, project: ProjectFacts | None = None
) -> MigrationResult:
    """Rewrite one module's source for `target` ("keras" or "loop"), with exact resume if `exact`; `project`
    says what the rest of the project keeps (None: the module is a project of its own).

    Raises libcst.ParserSyntaxError for source LibCST cannot parse, and SilentBreakage where the rewrite would
    leave a name TensorFlow 2 lacks with no TODO (codemods/output_check.py: a bug of the rewrite).
    """
    global _RULES
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}; expected one of {', '.join(TARGETS)}")
    if _RULES is None:
        _RULES = load_rules()
    module = cst.parse_module(source)
    if project is None:  # a module of its own: what it keeps, read from the source rather than regenerated
        project = module_facts(source, written_for_tf1(source), uses_tf1_names(source))
    # No defensive copy: the tree was parsed here and is not shared.
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)
    transformer = MigrationTransformer(wrapper, target, _RULES, exact, project, source)
    with children_listed_once():
        new_module = tidy_import_block(module, add_imports(wrapper.visit(transformer), transformer.ctx.needed_imports))
    tiers = transformer.ctx.estimator_tiers(module)
    if not transformer.ctx.recorded:
        # Nothing to migrate: the source as it was, not LibCST's code for it, which is not always the same text
        # (LibCST 1.8 drops the space in `except A :`: Instagram/LibCST#1457).
        silent = silent_breakage(source)
        if silent:
            raise SilentBreakage(silent)
        return MigrationResult(source, [], False, tiers)
    clashes = _clashing_names(module, transformer.ctx.bindings, transformer.ctx.imported_names)
    if clashes:
        reason = ("the module was left as it is: a name clash",)
        return MigrationResult(source, clashes, False, [replace(t, tier="kept", reasons=reason) for t in tiers])
    code_of = _StatementCode()
    code = code_of(new_module)
    if code != source:
        # Counted by Python's parser on the code (which also checks that it parses), not by walking the trees.
        tree = _parsed(code)
        used_after = names_in(tree) if tree is not None else None
        pruned = remove_unused_imports(module, new_module, source, used_after)
        if pruned is not new_module or used_after is None:
            code = code_of(pruned)
            tree = _check_parses(code, source)
        if pruned is not new_module:
            transformer.ctx.forget_removed_imports(imported_names(pruned))
        if transformer.ctx.migrated_something:
            switched = set_before_tensorflow(pruned, source)
            if switched is not pruned:
                code = code_of(switched)
                tree = _check_parses(code, source)
        silent = silent_breakage(code, tree)
        if silent:
            raise SilentBreakage(silent)
    return MigrationResult(code, transformer.ctx.findings(module), code != source, tiers)


class _StatementCode:
    """A module's code, each top-level statement's generated once: the rewritten module's code is generated up to
    three times (as rewritten, its unused imports pruned, the Keras 2 switch added), and each time after the first
    only a few statements are new. Each entry keeps its statement alive, so no other node can take its id."""

    def __init__(self):
        self._code: dict[int, tuple[cst.CSTNode, str]] = {}

    def __call__(self, module: cst.Module) -> str:
        if not module.has_trailing_newline or not module.body:
            return module.code  # (LibCST's own newline handling at the end)
        parts = [module.code_for_node(line) for line in module.header]
        for statement in module.body:
            entry = self._code.get(id(statement))
            if entry is None or entry[0] is not statement:
                entry = self._code[id(statement)] = (statement, module.code_for_node(statement))
            parts.append(entry[1])
        parts += [module.code_for_node(line) for line in module.footer]
        return "".join(parts)


def _check_parses(code: str, source: str) -> ast.Module | None:
    """Never hand back code that does not parse. Python's own parser is the judge (and ten times faster than
    LibCST's); code in syntax newer than this Python's goes to LibCST's grammar, which read the input. Returns
    Python's tree of the code (None: LibCST's syntax only)."""
    try:
        tree = compile(code, "<migrated>", "exec", ast.PyCF_ONLY_AST)
    except SyntaxError:
        cst.parse_module(code)
        return None
    # The parser lets a `from __future__` import pass anywhere, the compiler only first: the rewrite must not move
    # one down (a notebook's joined cells, checked cell by cell, have theirs further down already)
    if "__future__" in code and _misplaced_future_import(tree) and not _misplaced_future_import(_parsed(source)):
        raise SyntaxError("from __future__ imports must occur at the beginning of the file (in the migrated code)")
    return tree


def _parsed(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except SyntaxError:
        return None  # (syntax only LibCST reads: not judged)


def _misplaced_future_import(tree: ast.Module | None) -> bool:
    if tree is None:
        return True
    body = tree.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]  # the docstring
    leading = len(list(itertools.takewhile(_is_future_import, body)))
    return any(_is_future_import(statement) for statement in body[leading:])


def _is_future_import(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.ImportFrom) and statement.module == "__future__"


def _clashing_names(module: cst.Module, bindings: ModuleBindings, imported: dict[str, str]) -> list[Finding]:
    """The module's own bindings of a name the migrated code would import (`for prediction in ...` against
    `from estimator_migrate.compat import prediction`): the migrated code would call the user's object. Such a module is
    left as it is, with one finding per clash."""
    clashing = []
    for name, origin in imported.items():
        for binding in bindings.by_name.get(name, ()):
            if not _imports(binding.node, name, origin):
                clashing.append((name, origin, binding.node))
                break
    starts = start_positions(module, [node for *_, node in clashing])
    clashes = [
        Finding(
            "name-clash",
            *starts[id(node)],
            False,
            f"not migrated: the module binds `{name}`, the name under which the migrated code imports "
            f"{origin}{'.' + name if origin == RUNTIME_PACKAGE else ''}; rename it and run again",
        )
        for name, origin, node in clashing
    ]
    return sorted(clashes, key=lambda f: (f.line, f.col))


def _imports(node: cst.CSTNode, name: str, module: str) -> bool:
    """Whether `node` is an import binding `name` to what the migrated code imports under it."""
    if isinstance(node, cst.ImportFrom):
        return cst.helpers.get_full_name_for_node(node.module) == module
    if isinstance(node, cst.Import):
        return any(cst.helpers.get_full_name_for_node(alias.name) == module for alias in node.names)
    return False
