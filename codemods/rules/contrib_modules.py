"""References to tf.contrib modules whose code moved -> where it is now (codemods/contrib_moves.py says where):
`tf.contrib.layers.xavier_initializer()` -> `tf_slim.xavier_initializer()`, `tf.contrib.tpu.CrossShardOptimizer` ->
`tf.compat.v1.tpu.CrossShardOptimizer`, `tf.contrib.data.map_and_batch` ->
`tf.compat.v1.data.experimental.map_and_batch`, `tf.contrib.data.batch_and_drop_remainder` ->
`contrib_data.batch_and_drop_remainder` (compat/contrib_data.py, the function TF 1.x defined), `slim =
tf.contrib.slim` -> `slim = tf_slim`; and their imports: `import tensorflow.contrib.slim as slim` / `from
tensorflow.contrib import slim` -> `import tf_slim as slim`, `from tensorflow.contrib import tpu as contrib_tpu` ->
`from tensorflow.compat.v1 import tpu as contrib_tpu`, `from tensorflow.contrib.layers import xavier_initializer` ->
`from tf_slim import xavier_initializer`.

TPU programs (BERT, ALBERT) import tf.contrib modules at module level and reach them only when use_tpu is set: an
import left as it was stops the whole program before it starts, on any machine. A module import is rewritten only
when every use of its name reaches a name the module kept there, or one another rule rewrites (the TPU estimator's
API: codemods/runtime_tier.py); otherwise it keeps its TODO (rules/contrib_names.py), as does any other name.
"""

import libcst as cst

from codemods.api import dotted_name
from codemods.contrib_moves import CONTRIB_DATA, ELSEWHERE, HANDLED, IMPORTED_AS_IS, MOVED
from codemods.imports import RUNTIME_PACKAGE
from codemods.registry import Rule, register
from codemods.syntax import fast_visit, field_ids


def spells_contrib(node: cst.Attribute) -> bool:
    """The chain is written from TensorFlow (`tf.contrib.x`), not from a name imported from it."""
    while isinstance(node, cst.Attribute):
        if node.attr.value == "contrib":
            return True
        node = node.value
    return False


class _Uses(cst.CSTVisitor):
    """Each name's attribute uses (`name.attr`), the names also used otherwise (outside imports), and the
    `name = <attribute chain>` statements: (the chain, the name it is assigned to)."""

    def __init__(self):
        self.attributes: dict[str, set[str]] = {}
        self.bare: set[str] = set()
        self.assigned_chains: list[tuple[cst.Attribute, str]] = []
        self._not_variables: set[int] = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) \
                and isinstance(node.value, cst.Attribute):
            self.assigned_chains.append((node.value, node.targets[0].target.value))

    def visit_Import(self, node) -> bool:
        return False

    def visit_ImportFrom(self, node) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._not_variables.add(id(node.attr))  # (`x.name`'s name is no use of a variable `name`)
        if isinstance(node.value, cst.Name):
            self._not_variables.add(id(node.value))
            self.attributes.setdefault(node.value.value, set()).add(node.attr.value)

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self._not_variables:
            self.bare.add(node.value)


def _uses(ctx) -> _Uses:
    """The module's `_Uses`: one walk, shared by the rule's analyses."""
    if getattr(ctx, "contrib_uses", None) is None:
        ctx.contrib_uses = _Uses()
        fast_visit(ctx.module, ctx.contrib_uses)
    return ctx.contrib_uses


def _contrib_module_names(ctx) -> dict[str, tuple[str, set[str]]]:
    """The module's names bound once to a tf.contrib module and used only as `name.attr`: name -> (the contrib
    module, the attributes used). One walk per module, shared by moved_aliases and as_is_aliases."""
    if not hasattr(ctx, "contrib_module_names"):
        ctx.contrib_module_names = {}
        if ctx.mentions("contrib"):
            uses = _uses(ctx)
            for name, bindings in ctx.bindings.by_name.items():
                imported = {binding.imported for binding in bindings}
                if len(imported) != 1 or name in uses.bare:
                    continue
                (path,) = imported
                if path and path.startswith("tensorflow.contrib."):
                    module = path.removeprefix("tensorflow.contrib.")
                    ctx.contrib_module_names[name] = (module, uses.attributes.get(name, set()))
    return ctx.contrib_module_names


def moved_aliases(ctx) -> dict[str, str]:
    """The module's names bound to a tf.contrib module (`from tensorflow.contrib import tpu as contrib_tpu`, `import
    tensorflow.contrib.slim as slim`) that this rule rewrites, each use `name.attr` reaching a name the module kept
    where it went (or another rule's): name -> the contrib module."""
    if ctx.contrib_moved_aliases is None:
        ctx.contrib_moved_aliases = {
            name: module for name, (module, used) in _contrib_module_names(ctx).items()
            if module in MOVED and module not in IMPORTED_AS_IS
            and used <= MOVED[module][1] | HANDLED.get(module, set())
        }
    return ctx.contrib_moved_aliases


def as_is_aliases(ctx) -> dict[str, str]:
    """The module's names bound to a tf.contrib module whose import stays as written (`from tensorflow.contrib import
    rnn`: IMPORTED_AS_IS), used only as `name.attr` for names the module kept elsewhere: name -> the contrib module.
    Each use is then spelled where it went (`tf.compat.v1.nn.rnn_cell.BasicLSTMCell`), and the import, left unused,
    goes."""
    if ctx.contrib_as_is_aliases is None:
        ctx.contrib_as_is_aliases = {
            name: module for name, (module, used) in _contrib_module_names(ctx).items()
            if module in IMPORTED_AS_IS
            and used <= MOVED[module][1].union(*(names for _, names in ELSEWHERE.get(module, ())))
        }
    return ctx.contrib_as_is_aliases


def assigned_moved_modules(ctx) -> dict[int, str]:
    """The chains naming a moved tf.contrib module assigned to a name (`nest = tf.contrib.framework.nest`) that the
    module binds once and uses only for names the module kept where it went: id of the chain -> the contrib module."""
    if ctx.contrib_assigned_modules is None:
        ctx.contrib_assigned_modules = {}
        if ctx.mentions("contrib"):
            uses = _uses(ctx)
            for chain, name in uses.assigned_chains:
                api = ctx.resolver.api(chain)
                module = api.path.removeprefix("contrib.") if api is not None and api.path.startswith("contrib.") \
                    else None
                if module in MOVED and len(ctx.bindings.by_name.get(name, ())) == 1 \
                        and uses.attributes.get(name, set()) <= MOVED[module][1]:
                    ctx.contrib_assigned_modules[id(chain)] = module
    return ctx.contrib_assigned_modules


def _message(module: str) -> str:
    target = MOVED[module][0]
    where = f"{target}, the same code (`pip install tf-slim`; its layers run on tf_keras's legacy layers)" \
        if target.split(".")[0] == "tf_slim" else f"compat.{target.rsplit('.', 1)[1]}, TF 1.x's code written again" \
        if target.startswith(RUNTIME_PACKAGE) else f"{target}, the same objects"
    return f"tf.contrib.{module.split('.')[0]} (removed in TensorFlow 2.0) -> {where}"


@register
class ContribModulesRule(Rule):
    rule_id = "contrib-modules"
    node_types = (cst.Attribute, cst.Import, cst.ImportFrom)

    def interested(self, node, ctx) -> bool:
        return ctx.mentions("contrib") and (not isinstance(node, cst.Attribute) or self._names_contrib(node, ctx))

    @staticmethod
    def _names_contrib(node: cst.Attribute, ctx) -> bool:
        """`tf.contrib.x...`, or `name.attr` of a name bound to a contrib module whose import stays as written."""
        return spells_contrib(node) or isinstance(node.value, cst.Name) and node.value.value in as_is_aliases(ctx)

    def leave(self, original, updated, ctx):
        if not ctx.mentions("contrib"):
            return updated
        if isinstance(original, cst.Attribute) and not self._names_contrib(original, ctx):
            return updated
        if not updated.deep_equals(original):
            return updated
        if isinstance(original, cst.Import):
            return self._import(original, updated, ctx)
        if isinstance(original, cst.ImportFrom):
            return self._import_from(original, updated, ctx)
        api = ctx.resolver.api(original)
        if api is None or not api.path.startswith("contrib."):
            return updated
        parts = api.path.split(".")[1:]
        if parts == ["slim"] and id(original) not in self.attribute_values(ctx):  # `slim = tf.contrib.slim`
            return self._moved(original, ctx, "slim", "")
        if assigned_moved_modules(ctx).get(id(original)) == ".".join(parts):  # `nest = tf.contrib.framework.nest`
            return self._moved(original, ctx, ".".join(parts), "")
        module, name = ".".join(parts[:-1]), parts[-1]
        if len(parts) < 2 or module not in MOVED:
            return updated
        if module == "data" and name in CONTRIB_DATA:
            ctx.need_compat("contrib_data")
            ctx.record_once(original, self.rule_id, True, f"tf.contrib.data (removed in TensorFlow 2.0): {name} -> "
                            f"compat.contrib_data.{name}, the function TF 1.x defined")
            return cst.parse_expression(f"contrib_data.{name}")
        for target, names in ELSEWHERE.get(module, ()):
            if name in names:
                return self._moved(original, ctx, module, name, target)
        return self._moved(original, ctx, module, name) if name in MOVED[module][1] else updated

    def _moved(self, original, ctx, module: str, name: str, target: str | None = None):
        target = target or MOVED[module][0]
        if target.split(".")[0] == "tf_slim":
            ctx.need_import(target)
        elif target.startswith(RUNTIME_PACKAGE):
            target = target.rsplit(".", 1)[1]
            ctx.need_compat(target)
        else:
            target = target.replace("tensorflow", ctx.need_tensorflow(), 1)
        ctx.record_once(original, self.rule_id, True, _message(module))
        return cst.parse_expression(f"{target}.{name}" if name else target)

    def _import(self, original: cst.Import, updated, ctx):
        """`import tensorflow.contrib.slim as slim` -> `import tf_slim as slim` (the statement's only name, every use
        moved)."""
        if len(original.names) != 1 or original.names[0].asname is None:
            return updated
        (alias,) = original.names
        module = dotted_name(alias.name).removeprefix("tensorflow.contrib.")
        target = MOVED.get(module, ("",))[0]
        if target.split(".")[0] != "tf_slim" or moved_aliases(ctx).get(alias.asname.name.value) != module:
            return updated
        ctx.record(original, self.rule_id, True, _message(module))
        return updated.with_changes(names=[alias.with_changes(name=cst.parse_expression(target))])

    def _import_from(self, original: cst.ImportFrom, updated, ctx):
        """`from tensorflow.contrib import tpu as contrib_tpu` (every use moved) -> `from tensorflow.compat.v1 import
        tpu as contrib_tpu`, `from tensorflow.contrib import slim` -> `import tf_slim as slim`; `from
        tensorflow.contrib.layers import xavier_initializer` -> `from tf_slim import xavier_initializer`."""
        if original.relative or original.module is None or isinstance(original.names, cst.ImportStar):
            return updated
        module = dotted_name(original.module)
        names = [dotted_name(alias.name) for alias in original.names]
        imported = f"{module}.{names[0]}".removeprefix("tensorflow.contrib.") if len(names) == 1 else None
        if module.startswith("tensorflow.contrib") and imported in MOVED:  # a moved module, by its name
            (alias,) = original.names
            bound = alias.asname.name.value if alias.asname else names[0]
            if moved_aliases(ctx).get(bound) != imported:
                return updated
            ctx.record(original, self.rule_id, True, _message(imported))
            target = MOVED[imported][0]
            if target == "tf_slim":
                return cst.Import(names=[cst.ImportAlias(name=cst.Name("tf_slim"),
                                                         asname=cst.AsName(name=cst.Name(bound)))])
            parent, last = target.rsplit(".", 1)
            asname = alias.asname or (cst.AsName(name=cst.Name(bound)) if last != bound else None)
            return updated.with_changes(module=cst.parse_expression(parent),
                                        names=[alias.with_changes(name=cst.Name(last), asname=asname)])
        contrib = module.removeprefix("tensorflow.contrib.")
        moved = MOVED.get(contrib, (None, ())) if contrib not in IMPORTED_AS_IS else (None, ())
        for target, kept in (moved, *ELSEWHERE.get(contrib, ())):
            if target and all(name in kept for name in names):
                ctx.record(original, self.rule_id, True, _message(contrib))
                return updated.with_changes(module=cst.parse_expression(target))
        return updated

    @staticmethod
    def attribute_values(ctx) -> set[int]:
        """Ids of the module's nodes that are the value of an attribute (`tf.contrib.slim` in `tf.contrib.slim.x`)."""
        if ctx.contrib_attribute_values is None:
            ctx.contrib_attribute_values = field_ids(ctx.module, cst.Attribute, "value")
        return ctx.contrib_attribute_values
