"""Every place a module binds a name, found in one plain walk: no scope analysis.

LibCST's ScopeProvider answers "which binding does this name use" for every name, and costs more than all
the rules together on an Estimator program (measured: bench/rewrite_throughput.py). Most modules never
need that question answered: they import `tensorflow` once at the top and never bind the name again, so
every use of it means the import. `ModuleBindings` lists the bindings, so that `codemods.api.ApiResolver`
can tell when that is the case and pay for scope analysis only when it is not.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import libcst as cst

from codemods.syntax import fast_visit


@dataclass(frozen=True)
class Binding:
    name: str
    # The node LibCST's scope analysis records for the assignment: the import statement, the def, the
    # class, the parameter, or the Name stored to (so that findings point where LibCST's would).
    node: cst.CSTNode
    imported: str | None  # the dotted name an import binds: `import a.b as c` -> "a.b"; None for others
    module_level: bool
    # The innermost function, class, lambda or comprehension the binding is in (None: at module level).
    scope: cst.CSTNode | None = None


class ModuleBindings(cst.CSTVisitor):
    """Collects `by_name`: name -> its bindings in every scope, in source order; `star_import` is set when
    a `from ... import *` binds names that cannot be listed."""

    def __init__(self) -> None:
        super().__init__()
        self.by_name: dict[str, list[Binding]] = defaultdict(list)
        self.star_import = False
        self._scopes: list[cst.CSTNode] = []  # the functions, classes, lambdas and comprehensions around a node

    @classmethod
    def of(cls, module: cst.Module) -> ModuleBindings:
        bindings = cls()
        fast_visit(module, bindings)
        return bindings

    def _bind(
        self, name: str, node: cst.CSTNode, imported: str | None = None, module_level: bool = False
    ) -> None:
        scope = self._scopes[-1] if self._scopes else None
        self.by_name[name].append(Binding(name, node, imported, module_level or scope is None, scope))

    def _bind_target(self, target: cst.BaseExpression) -> None:
        """Names stored to by an assignment target (`a`, `a, (b, *c)`); attributes and subscripts bind none."""
        if isinstance(target, cst.Name):
            self._bind(target.value, target)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind_target(element.value)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value)

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            dotted = cst.helpers.get_full_name_for_node(alias.name)
            if alias.asname is not None:
                self._bind(alias.asname.name.value, node, dotted)
            else:  # `import a.b` binds `a`; `a.b.c` in the source then names a.b.c as written
                head = dotted.split(".")[0]
                self._bind(head, node, head)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if isinstance(node.names, cst.ImportStar):
            self.star_import = True
            return False
        module = cst.helpers.get_full_name_for_node(node.module) if node.module else ""
        relative = "." * len(node.relative)
        for alias in node.names:
            name = alias.name.value
            imported = f"{relative}{module}.{name}" if module else f"{relative}{name}"
            self._bind(alias.asname.name.value if alias.asname else name, node, imported)
        return False

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._bind_target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind_target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind_target(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind_target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._bind_target(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:  # with ... as x, except ... as x (imports return early)
        self._bind_target(node.name)

    def visit_Global(self, node: cst.Global) -> None:  # the function's assignments to these bind module names
        for item in node.names:
            self._bind(item.name.value, node, module_level=True)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        for item in node.names:
            self._bind(item.name.value, node)

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self._bind_target(node.name)

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        if node.name is not None:
            self._bind_target(node.name)

    def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
        if node.rest is not None:
            self._bind_target(node.rest)

    def visit_Param(self, node: cst.Param) -> None:
        self._bind(node.name.value, node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._bind(node.name.value, node)
        self._scopes.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._scopes.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._bind(node.name.value, node)
        self._scopes.append(node)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._scopes.pop()

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._scopes.append(node)
        self._bind_target(node.target)

    def leave_CompFor(self, original_node: cst.CompFor) -> None:
        self._scopes.pop()

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._scopes.append(node)

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._scopes.pop()


class NameScopes:
    """Which binding a name means where it is read or stored, by Python's rules for functions and classes: a
    function's own name unless it declares it global or nonlocal, else the enclosing functions', else the module's
    (a class body's names are its own, not seen by its methods). Keys are (id of the scope, name), the module's
    scope being `module`'s id: two functions each binding `estimator` hold two variables."""

    def __init__(self, module: cst.Module, bindings: ModuleBindings):
        self._module = id(module)
        self._local: dict[str, set[int]] = defaultdict(set)  # name -> ids of the defs and classes binding it
        self._global: dict[str, set[int]] = defaultdict(set)  # name -> ids of the defs declaring it global
        self._nonlocal: dict[str, set[int]] = defaultdict(set)  # name -> ids of the defs declaring it nonlocal
        self.parameters: set[tuple[int, str]] = set()  # the keys of the functions' parameters
        for name, found in bindings.by_name.items():
            for binding in found:
                if not isinstance(binding.scope, cst.FunctionDef | cst.ClassDef):
                    continue
                if binding.module_level:
                    self._global[name].add(id(binding.scope))
                elif isinstance(binding.node, cst.Nonlocal):
                    self._nonlocal[name].add(id(binding.scope))
                else:
                    self._local[name].add(id(binding.scope))
                    if isinstance(binding.node, cst.Param):
                        self.parameters.add((id(binding.scope), name))

    def key(self, name: str, enclosing: list[cst.FunctionDef | cst.ClassDef]) -> tuple[int, str]:
        """The key of `name` read or stored inside `enclosing` (the defs and classes around it, outermost first)."""
        local = self._local.get(name, ())
        for depth in range(len(enclosing) - 1, -1, -1):
            scope = enclosing[depth]
            if isinstance(scope, cst.ClassDef) and depth != len(enclosing) - 1:
                continue  # a method does not see its class body's names
            if id(scope) in self._global.get(name, ()):
                break
            if id(scope) in local and id(scope) not in self._nonlocal.get(name, ()):
                return id(scope), name
        return self._module, name


class ScopeTracking(cst.CSTVisitor):
    """A visitor keeping `scopes`, the defs and classes around the node it visits (NameScopes.key's `enclosing`);
    subclasses overriding these hooks call them."""

    def __init__(self) -> None:
        super().__init__()
        self.scopes: list[cst.FunctionDef | cst.ClassDef] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool | None:
        self.scopes.append(node)
        return None

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.scopes.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> bool | None:
        self.scopes.append(node)
        return None

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.scopes.pop()
