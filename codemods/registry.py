"""Rules register themselves here; `load_rules()` imports every module of `codemods.rules`.

Adding a rule touches no central list: write `codemods/rules/<what_it_fixes>.py` with a `Rule` subclass
decorated with `@register`, and its fixture tests.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import ClassVar

import libcst as cst

_RULES: list[Rule] = []


class Rule:
    """One construct, one rule: `leave` returns the replacement for a node of `node_types`.

    `leave` receives the original node (for facts, qualified names and positions) and the updated node
    (children already rewritten). It returns the updated node unchanged when the node is not its business.
    """

    rule_id: ClassVar[str]
    node_types: ClassVar[tuple[type[cst.CSTNode], ...]]
    # A rule that puts its node inside another statement (a `with` block) runs after the others of its node type:
    # what it returns is no longer the node they look for. Rules that add statements before a node use
    # `ctx.put_before` instead.
    wraps_statement: ClassVar[bool] = False

    def leave(self, original, updated, ctx):  # pragma: no cover - interface
        raise NotImplementedError

    def interested(self, node: cst.CSTNode, ctx) -> bool:
        """Whether `leave` may change or record anything for `node` (an original node of one of `node_types`),
        asked before the traversal: a subtree holding no node some rule is interested in is not entered. A rule
        overriding it returns False only where its `leave` returns the node as it is and records nothing. For a
        call, by default, `ctx.call_matters`: what the rules acting on calls read of one."""
        return not isinstance(node, cst.Call) or ctx.call_matters(node)


def register(cls: type[Rule]) -> type[Rule]:
    _RULES.append(cls())
    return cls


# Registered before the others, whose modules follow in name order: on a node several rules act on, the
# unsupported-api TODO (which TensorFlow API is kept, and what to do) comes first; the tf.contrib TODO and the
# tf.estimator one last (they speak only for what no other rule rewrote or marked).
_FIRST = ("unsupported_api",)
_LAST = ("contrib_names", "estimator_leftovers")


def load_rules() -> list[Rule]:
    import codemods.rules as package

    names = [module.name for module in pkgutil.iter_modules(package.__path__)]
    ordered = [f"{package.__name__}.{name}" for name in [*_FIRST, *sorted(set(names) - set(_FIRST) - set(_LAST)), *_LAST]]
    for name in ordered:
        importlib.import_module(name)
    # in this order whatever imported a rule's module first (a test naming its rule); a module's rules as defined
    return sorted(_RULES, key=lambda rule: ordered.index(type(rule).__module__))
