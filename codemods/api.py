"""Which TensorFlow API a name in the source denotes, whatever the import alias.

LibCST's QualifiedNameProvider resolves imports (`import tensorflow.compat.v1 as tf`,
`from tensorflow import estimator`). Programs also alias by assignment (`tf1 = tf.compat.v1`), which the
provider leaves as a local name; `ApiResolver` follows those module-level aliases too. Every spelling is
reduced to an `Api`: the path below the TensorFlow root (`estimator.DNNClassifier`) and whether it was
reached through `compat.v1`, which matters because v1 canned heads sum the loss where v2 heads average it.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
from libcst.metadata import QualifiedNameProvider, QualifiedNameSource

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


def api_from_qualified_name(name: str) -> Api | None:
    if name in ("tensorflow", "tensorflow.compat.v2"):
        return Api("", False)
    if name == "tensorflow.compat.v1":
        return Api("", True)
    for prefix, v1 in _ROOTS:
        if name.startswith(prefix):
            return Api(name[len(prefix) :], v1)
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
    """Resolves expressions to `Api`s using the metadata of one module."""

    def __init__(self, get_metadata, module: cst.Module):
        self._get_metadata = get_metadata  # a MetadataDependent's get_metadata
        self._aliases: dict[str, str] = {}
        self._aliases = self._module_aliases(module)

    def _qualified(self, node: cst.CSTNode) -> set[str]:
        names = set()
        for qname in self._get_metadata(QualifiedNameProvider, node, ()):
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
                ):
                    for name in self._qualified(small.value):
                        if api_from_qualified_name(name) is not None:
                            aliases[small.targets[0].target.value] = name
        return aliases

    def api(self, node: cst.BaseExpression) -> Api | None:
        """The TensorFlow API `node` names, or None when it is not (unambiguously) one."""
        apis = {api_from_qualified_name(name) for name in self._qualified(node)} - {None}
        return apis.pop() if len(apis) == 1 else None

    def call_api(self, node: cst.CSTNode) -> Api | None:
        """The API a call calls, or None."""
        return self.api(node.func) if isinstance(node, cst.Call) else None
