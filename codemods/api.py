"""Which TensorFlow API a name in the source denotes, whatever the import alias.

Imports (`import tensorflow.compat.v1 as tf`, `from tensorflow import estimator`) are resolved from the
module's import table when that is unambiguous, by LibCST's QualifiedNameProvider when it is not.
Programs also alias by assignment (`tf1 = tf.compat.v1`); `ApiResolver` follows those module-level aliases
too. Every spelling is
reduced to an `Api`: the path below the TensorFlow root (`estimator.DNNClassifier`) and whether it was
reached through `compat.v1`, which matters because v1 canned heads sum the loss where v2 heads average it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import QualifiedName, QualifiedNameSource
from libcst.metadata.base_provider import LazyValue

from codemods.bindings import ModuleBindings
from codemods.syntax import name_counts

_ROOTS = (
    ("tensorflow.compat.v1.", True),
    ("tensorflow.compat.v2.", False),
    ("tensorflow_estimator.compat.v1.", True),
    ("tensorflow_estimator.compat.v2.", False),
    ("tensorflow_estimator.", False),
    ("tensorflow.", False),
)


@dataclass(frozen=True)
class Api:
    path: str  # e.g. "estimator.DNNClassifier", "train.AdamOptimizer"
    v1: bool  # reached through compat.v1

    def is_one_of(self, *paths: str) -> bool:
        return self.path in paths


# Estimator's private modules (`from tensorflow.python.estimator.export import export_output`, TF 1.x's and
# tensorflow_estimator's) -> the public path of the same objects, and whether that path is TF 1.x's (its input
# helpers were v1 only). Canned estimator modules are not here: their classes are the v1 estimators.
_PRIVATE_MODULES = (
    ("python.estimator.export.export_output.", "estimator.export.", False),
    ("python.estimator.export.export_lib.", "estimator.export.", False),
    ("python.estimator.export.export.", "estimator.export.", False),
    ("python.estimator.model_fn.", "estimator.", False),
    ("python.estimator.mode_keys.", "estimator.", False),
    ("python.estimator.run_config.", "estimator.", False),
    ("python.estimator.estimator.", "estimator.", False),
    ("python.estimator.training.", "estimator.", False),
    ("python.estimator.exporter.", "estimator.", False),
    ("python.estimator.inputs.numpy_io.", "estimator.inputs.", True),
    ("python.estimator.inputs.pandas_io.", "estimator.inputs.", True),
)


# tf.contrib.learn's RunConfig, which TensorFlow 1.x's tf.estimator estimators took too: a subclass of
# tf.estimator.RunConfig with the same checkpoint and summary settings and defaults (its own, a session's GPU
# fraction and the like, stay TODOs where they are given: RunConfig's rules do not take them)
_RENAMED = {
    "contrib.learn.RunConfig": "estimator.RunConfig",
    "contrib.learn.python.learn.estimators.run_config.RunConfig": "estimator.RunConfig",
    "contrib.learn.python.learn.RunConfig": "estimator.RunConfig",
}


def api_from_qualified_name(name: str) -> Api | None:
    if name in ("tensorflow", "tensorflow.compat.v2"):
        return Api("", False)
    if name == "tensorflow.compat.v1":
        return Api("", True)
    for prefix, v1 in _ROOTS:
        if name.startswith(prefix):
            path = name[len(prefix) :]
            if path in _RENAMED:
                return Api(_RENAMED[path], True)
            for private, public, public_v1 in _PRIVATE_MODULES:
                if path.startswith(private) and "." not in path[len(private):]:
                    return Api(public + path[len(private):], v1 or public_v1)
            return Api(path, v1)
    return None


def dotted_name(node: cst.BaseExpression) -> str | None:
    """`a.b.c` for a Name/Attribute chain, None for anything else."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = dotted_name(node.value)
        return None if head is None else f"{head}.{node.attr.value}"
    return None


class ApiResolver:
    """Resolves expressions to `Api`s in one module.

    When every name bound to TensorFlow (by an import, or a module-level alias assignment) is bound once,
    at module level, and nowhere else, every use of that name means that binding: names resolve from the
    import table alone. Otherwise (rebound, shadowed by a parameter, imported inside a function or under
    try/except, a star import) LibCST's qualified-name analysis of the whole module decides, as it would
    have for every module; `scope_analysis` computes it, and is only called then.
    """

    def __init__(
        self,
        module: cst.Module,
        bindings: ModuleBindings,
        scope_analysis: Callable[[], Mapping[cst.CSTNode, Collection[QualifiedName]]],
        always_analyse: bool = False,  # for tests comparing both ways
    ):
        self._bindings = bindings
        # The program was written for TensorFlow 1.x (codemods/tf_era.py): its `tf.estimator` is compat.v1's.
        self._tf1_program = False
        # node -> its API: rules ask about the same nodes many times (each node is kept, so no id is reused)
        self._apis: dict[cst.CSTNode, Api | None] = {}
        self._qualified_names: Mapping[cst.CSTNode, Collection[QualifiedName]] | None = None
        self._aliases: dict[str, str] = {}
        if not always_analyse and self._tensorflow_names_bound_once(module):
            self._aliases = self._module_aliases(module)
            if all(len(bindings.by_name[alias]) == 1 for alias in self._aliases):
                return
            self._aliases = {}
        self._qualified_names = scope_analysis()
        self._aliases = self._module_aliases(module)

    @property
    def tf1_program(self) -> bool:
        return self._tf1_program

    @tf1_program.setter
    def tf1_program(self, value: bool) -> None:
        self._tf1_program, self._apis = value, {}

    @property
    def bindings(self) -> ModuleBindings:
        return self._bindings

    @property
    def used_scope_analysis(self) -> bool:
        return self._qualified_names is not None

    def _tensorflow_names_bound_once(self, module: cst.Module) -> bool:
        """Whether each name an import binds to TensorFlow (or a name that reads as TensorFlow's own, like
        `tensorflow`) is bound once in the whole module: at module level, or by an import in a function whose
        body holds every occurrence of the name (`def main(): import tensorflow as tf`), where each one means
        that import as surely."""
        if self._bindings.star_import:
            return False
        module_counts = None
        for name, bindings in self._bindings.by_name.items():
            tensorflow = api_from_qualified_name(name + ".x") is not None or any(
                binding.imported is not None and api_from_qualified_name(binding.imported) is not None
                for binding in bindings
            )
            if not tensorflow or (len(bindings) == 1 and bindings[0].module_level) or _imported_alike(bindings):
                continue
            binding = bindings[0]
            if len(bindings) > 1 or binding.imported is None or not isinstance(binding.scope, cst.FunctionDef):
                return False
            # its body only: decorators, defaults and annotations are evaluated where the function is defined
            module_counts = module_counts or name_counts(module)
            if name_counts(binding.scope.body)[name] != module_counts[name]:
                return False
        return True

    def _qualified(self, node: cst.CSTNode) -> set[str]:
        if self._qualified_names is not None:
            names = self._qualified_names.get(node, ())
            return self._resolve_aliases(names() if isinstance(names, LazyValue) else names)
        full_name = cst.helpers.get_full_name_for_node(node)
        if full_name is None:
            return set()
        head, _, rest = full_name.partition(".")
        bindings = self._bindings.by_name.get(head)
        if not bindings or len(bindings) > 1 and not _imported_alike(bindings):
            return set()
        imported = bindings[0].imported
        # A variable: an alias when _module_aliases found it to be one (then bound once, at module level).
        name = self._aliases.get(head, head) if imported is None else imported
        return {name + ("." + rest if rest else "")}

    def _resolve_aliases(self, qualified_names: Collection[QualifiedName]) -> set[str]:
        names = set()
        for qname in qualified_names:
            name = qname.name
            if qname.source is QualifiedNameSource.LOCAL:
                head, _, rest = name.partition(".")
                if head in self._aliases:
                    name = self._aliases[head] + ("." + rest if rest else "")
            names.add(name)
        return names

    def _module_aliases(self, module: cst.Module) -> dict[str, str]:
        """`tf1 = tf.compat.v1` at module level: alias name -> qualified TensorFlow name."""
        aliases: dict[str, str] = {}
        for statement in module.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if (
                    isinstance(small, cst.Assign)
                    and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)
                    and isinstance(small.value, cst.Name | cst.Attribute)  # (a call's value is no alias of its API)
                ):
                    for name in self._qualified(small.value):
                        if api_from_qualified_name(name) is not None:
                            aliases[small.targets[0].target.value] = name
        return aliases

    def api(self, node: cst.BaseExpression) -> Api | None:
        """The TensorFlow API `node` names, or None when it is not (unambiguously) one."""
        if node not in self._apis:
            self._apis[node] = self._api(node)
        return self._apis[node]

    def _api(self, node: cst.BaseExpression) -> Api | None:
        apis = {api_from_qualified_name(name) for name in self._qualified(node)} - {None}
        if len(apis) != 1:
            return None
        api = apis.pop()
        if self.tf1_program and not api.v1 and api.path.startswith("estimator."):
            return Api(api.path, True)  # TensorFlow 1.x's tf.estimator: the v1 estimators (codemods/tf_era.py)
        return api

    def call_api(self, node: cst.CSTNode) -> Api | None:
        """The API a call calls, or None (`f(...)()` calls what `f` returned: no API)."""
        if not isinstance(node, cst.Call) or isinstance(node.func, cst.Call):
            return None
        return self.api(node.func)


def _imported_alike(bindings) -> bool:
    """Whether every binding of a name is a module-level import of one module (a notebook importing tensorflow as
    tf in two cells): each use of the name means that module."""
    first = bindings[0].imported
    return first is not None and all(binding.module_level and binding.imported == first for binding in bindings)
