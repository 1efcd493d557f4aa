"""One pass over the original tree applies every rule; `migrate_source` is the entry point.

A single traversal (rather than one codemod after another) keeps every node's position pointing into the
input file, which is what the report's `line` promises. Rules see a `RuleContext`: the target, the
module's facts, qualified-name resolution, and helpers to record findings, leave TODO comments and ask
for imports (added afterwards by LibCST's AddImportsVisitor, whatever the module's existing imports).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import libcst as cst
from libcst.codemod import CodemodContext, ContextAwareTransformer
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import PositionProvider, QualifiedNameProvider, ScopeProvider

from codemods.api import ApiResolver
from codemods.facts import ProgramFacts, collect_facts
from codemods.findings import Finding, todo_comment
from codemods.registry import Rule, load_rules

TARGETS = ("keras", "loop")
_STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)


@dataclass
class MigrationResult:
    code: str
    findings: list[Finding]
    changed: bool


class RuleContext:
    """What a rule may read and do while the tree is being transformed."""

    def __init__(self, transformer: MigrationTransformer, module: cst.Module, target: str, exact: bool):
        self.target = target
        self.exact = exact  # emit the exact-resume runtime (compat.exact / the exact loop)
        self._transformer = transformer
        self.resolver = ApiResolver(transformer.get_metadata, module)
        self.facts: ProgramFacts = collect_facts(module, self.resolver)
        self.findings: list[Finding] = []
        self.statement_stack: list[cst.CSTNode] = []
        self.pending_todos: dict[int, list[str]] = defaultdict(list)
        self.tf = self._tensorflow_name(module)

    @property
    def current_statement(self) -> cst.CSTNode:
        return self.statement_stack[-1]

    def record(self, node: cst.CSTNode, rule: str, migrated: bool, message: str) -> None:
        position = self._transformer.get_metadata(PositionProvider, node).start
        self.findings.append(Finding(rule, position.line, position.column, migrated, message))

    def todo(self, node: cst.CSTNode, rule: str, message: str, statement: cst.CSTNode | None = None) -> None:
        """Leave `node` as it is, with a TODO comment on its statement and a report entry."""
        self.record(node, rule, False, message)
        comment = todo_comment(rule, message)
        pending = self.pending_todos[id(statement or self.current_statement)]
        if comment not in pending:
            pending.append(comment)

    def need_import(self, module: str, obj: str | None = None, asname: str | None = None) -> None:
        AddImportsVisitor.add_needed_import(self._transformer.context, module, obj, asname)

    def need_tensorflow(self) -> str:
        self.need_import("tensorflow", asname=None if self.tf == "tensorflow" else self.tf)
        return self.tf

    def _tensorflow_name(self, module: cst.Module) -> str:
        """The module's name for `tensorflow` itself; `tf` may be bound to tensorflow.compat.v1 instead."""
        for statement in module.body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.Import):
                        for alias in small.names:
                            if cst.helpers.get_full_name_for_node(alias.name) == "tensorflow":
                                return alias.asname.name.value if alias.asname else "tensorflow"
        scope = self._transformer.get_metadata(ScopeProvider, module)
        return "tf" if "tf" not in scope else "tf2"


class MigrationTransformer(ContextAwareTransformer):
    METADATA_DEPENDENCIES = (QualifiedNameProvider, PositionProvider, ScopeProvider)

    def __init__(self, context: CodemodContext, target: str, rules: list[Rule], exact: bool = False):
        super().__init__(context)
        self.target = target
        self.exact = exact
        self.rules_by_type: dict[type, list[Rule]] = defaultdict(list)
        for rule in rules:
            for node_type in rule.node_types:
                self.rules_by_type[node_type].append(rule)
        self.ctx: RuleContext | None = None

    def visit_Module(self, node: cst.Module) -> bool:
        self.ctx = RuleContext(self, node, self.target, self.exact)
        return True

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, _STATEMENTS):
            self.ctx.statement_stack.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node, updated_node):
        result = super().on_leave(original_node, updated_node)
        for rule in self.rules_by_type.get(type(original_node), ()):
            if not isinstance(result, cst.CSTNode):
                break
            result = rule.leave(original_node, result, self.ctx)
        if isinstance(original_node, _STATEMENTS):
            self.ctx.statement_stack.pop()
            todos = self.ctx.pending_todos.pop(id(original_node), [])
            if todos and isinstance(result, _STATEMENTS):
                result = _with_comments(result, todos)
        return result


def _with_comments(statement, comments: list[str]):
    present = {line.comment.value for line in statement.leading_lines if line.comment}
    new_lines = [cst.EmptyLine(comment=cst.Comment(text)) for text in comments if text not in present]
    return (
        statement.with_changes(leading_lines=[*statement.leading_lines, *new_lines])
        if new_lines
        else statement
    )


_RULES: list[Rule] | None = None


def migrate_source(source: str, target: str = "keras", exact: bool = False) -> MigrationResult:
    """Rewrite one module's source for `target` ("keras" or "loop"), with exact resume if `exact`.

    Raises libcst.ParserSyntaxError for source LibCST cannot parse.
    """
    global _RULES
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}; expected one of {', '.join(TARGETS)}")
    if _RULES is None:
        _RULES = load_rules()
    module = cst.parse_module(source)
    context = CodemodContext()
    wrapper = cst.MetadataWrapper(module)
    transformer = MigrationTransformer(context, target, _RULES, exact)
    new_module = wrapper.visit(transformer)
    new_module = AddImportsVisitor(context).transform_module(new_module)
    code = new_module.code
    if code != source:
        cst.parse_module(code)  # never hand back code that does not parse
    findings = sorted(transformer.ctx.findings, key=lambda f: (f.line, f.col, f.rule))
    return MigrationResult(code, findings, changed=code != source)
