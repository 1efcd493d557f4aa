"""NumPy names TF 1.x programs used that NumPy has since removed -> what they were: `np.int` -> `int`, `np.float`
-> `float`, `np.object` -> `object`, `np.float_` -> `np.float64`, `np.NaN` -> `np.nan`, `np.product` -> `np.prod`.

TensorFlow 2.21 installs NumPy 2, where these raise AttributeError ("np.int was a deprecated alias for the builtin
int"): `x.astype(np.int)`, `np.zeros(n, dtype=np.float)` stopped a migrated program that ran on TF 1.x's NumPy.
Each was an alias of what it becomes (NumPy 1.20's and 2.0's release notes list them, with these replacements),
so the program computes what it did (`builtins.int` where the module binds the name `int` itself). An attribute the
module assigns (`np.int = ...`) is left alone, as is everything reached through a name not bound to numpy once, at
module level.
"""

import libcst as cst

from codemods.registry import Rule, register
from codemods.syntax import field_ids

# NumPy 1.20 deprecated these aliases of Python's builtins (removed in 1.24); `bool` and `long` came back in 2.0 as
# NumPy types (np.bool_, C long), no longer the builtins TF 1.x programs meant
BUILTINS = {"int": "int", "float": "float", "complex": "complex", "object": "object", "str": "str",
            "unicode": "str", "bool": "bool", "long": "int"}
# NumPy 2.0 removed these names of NumPy's own objects: their replacements (the 2.0 migration guide's)
RENAMED = {
    "float_": "float64", "complex_": "complex128", "cfloat": "complex128", "singlecomplex": "complex64",
    "longfloat": "longdouble", "clongfloat": "clongdouble", "longcomplex": "clongdouble", "string_": "bytes_",
    "unicode_": "str_", "bool8": "bool_", "int0": "intp", "uint0": "uintp", "object0": "object_", "str0": "str_",
    "bytes0": "bytes_", "void0": "void", "NaN": "nan", "NAN": "nan", "Inf": "inf", "Infinity": "inf",
    "infty": "inf", "PINF": "inf", "product": "prod", "cumproduct": "cumprod", "alltrue": "all",
    "sometrue": "any", "round_": "round",
}
# Values better written as expressions
EXPRESSIONS = {"NINF": "(-{np}.inf)", "PZERO": "0.0", "NZERO": "(-0.0)"}
_NAMES = frozenset(BUILTINS) | frozenset(RENAMED) | frozenset(EXPRESSIONS)
MESSAGE = "NumPy names removed by NumPy 1.24/2.0, which TensorFlow 2.21 installs -> what they were aliases of " \
          "(np.int -> int, np.float_ -> np.float64, np.NaN -> np.nan, ...)"


def _numpy_names(ctx) -> frozenset[str]:
    """The module's names bound once, at module level, to numpy itself (`import numpy as np`)."""
    return frozenset(name for name, bindings in ctx.bindings.by_name.items()
                     if len(bindings) == 1 and bindings[0].imported == "numpy" and bindings[0].module_level)


def _assigned(ctx) -> set[int]:
    """Ids of the attributes the module assigns to or deletes (`np.int = int`): not reads of NumPy's names."""
    return field_ids(ctx.module, cst.AssignTarget, "target") | field_ids(ctx.module, cst.AugAssign, "target") \
        | field_ids(ctx.module, cst.AnnAssign, "target") | field_ids(ctx.module, cst.Del, "target")


@register
class NumpyAliasesRule(Rule):
    rule_id = "numpy-aliases"
    node_types = (cst.Attribute,)
    _facts = None  # (the module, its numpy names, the attributes it assigns): computed once per module

    def interested(self, node, ctx) -> bool:
        return isinstance(node.value, cst.Name) and node.attr.value in _NAMES and ctx.mentions("numpy")

    def leave(self, original, updated, ctx):
        if not isinstance(original.value, cst.Name) or not ctx.mentions("numpy"):
            return updated
        attribute = original.attr.value
        if attribute not in BUILTINS and attribute not in RENAMED and attribute not in EXPRESSIONS:
            return updated
        module = original.value.value
        if self._facts is None or self._facts[0] is not ctx.module:
            self._facts = (ctx.module, _numpy_names(ctx), _assigned(ctx))
        _, numpy_names, assigned = self._facts
        if module not in numpy_names or id(original) in assigned:
            return updated
        ctx.record_once(original, self.rule_id, True, MESSAGE)
        if attribute in BUILTINS:
            builtin = BUILTINS[attribute]
            if builtin not in ctx.bindings.by_name:
                return cst.Name(builtin)
            ctx.need_import("builtins")  # (the module binds the builtin's name somewhere)
            return cst.parse_expression(f"builtins.{builtin}")
        if attribute in RENAMED:
            return updated.with_changes(attr=cst.Name(RENAMED[attribute]))
        return cst.parse_expression(EXPRESSIONS[attribute].format(np=module))
