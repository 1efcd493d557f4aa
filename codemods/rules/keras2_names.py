"""`tf.keras` -> `tf_keras` in a module that makes a model_to_estimator estimator.

Up to TensorFlow 2.15, `tf.keras` was Keras 2; from 2.16 it is Keras 3, which has no `estimator`, no legacy
optimizers, and other layers and checkpoints. tf_keras is Keras 2 continued: in a program written for an
Estimator, every `tf.keras` meant it. compat.keras_estimators runs a tf_keras model, so the module that
hands one to model_to_estimator builds it with tf_keras:

    tf.keras.layers.Dense(3)                 -> tf_keras.layers.Dense(3)
    from tensorflow.keras.layers import Dense -> from tf_keras.layers import Dense
    from tensorflow import keras             -> import tf_keras as keras

`tf.keras.estimator` stays (its model_to_estimator is rewritten whole, codemods/rules/estimator_runtime.py).
A model built in another module reaches compat.keras_estimators as a Keras 3 model only if that module
says `tf.keras`: one error there names the fix.
"""

import libcst as cst

from codemods.api import api_from_qualified_name, dotted_name
from codemods.registry import Rule, register

_KEPT = ("estimator",)  # tf.keras.<name> that tf_keras has no twin of


def _keras_module(dotted: str | None) -> str | None:
    """`layers` for "tensorflow.keras.layers", "" for "tensorflow.keras"; None for any other module."""
    api = api_from_qualified_name(dotted) if dotted else None
    if api is None or not (api.path == "keras" or api.path.startswith("keras.")):
        return None
    return api.path[len("keras."):] if api.path != "keras" else ""


@register
class Keras2NamesRule(Rule):
    rule_id = "keras2-names"
    node_types = (cst.Attribute, cst.ImportFrom)

    def interested(self, node, ctx) -> bool:
        return ctx.facts.runtime.keras_estimators

    def leave(self, original, updated, ctx):
        if not ctx.facts.runtime.keras_estimators:
            return updated
        if isinstance(original, cst.ImportFrom):
            return self._import(original, updated, ctx)
        if original.attr.value in _KEPT:
            return updated
        inner = ctx.resolver.api(original.value)
        if inner is None or inner.path != "keras" or not isinstance(updated.value, (cst.Attribute, cst.Name)):
            return updated
        ctx.need_import("tf_keras")  # (said once, at model_to_estimator's finding)
        return updated.with_changes(value=cst.Name("tf_keras"))

    def _import(self, original: cst.ImportFrom, updated: cst.ImportFrom, ctx):
        if original.relative or isinstance(original.names, cst.ImportStar):
            return updated
        module = dotted_name(original.module)
        submodule = _keras_module(module)
        if submodule is not None and not submodule.startswith(_KEPT):
            ctx.record(original, self.rule_id, True, f"from {module} -> from tf_keras")
            return updated.with_changes(module=cst.parse_expression(".".join(["tf_keras", submodule] if submodule
                                                                              else ["tf_keras"])))
        names = original.names
        if _keras_module(f"{module}.keras") == "" and len(names) == 1 and names[0].name.value == "keras":
            alias = names[0].asname.name.value if names[0].asname else "keras"
            ctx.record(original, self.rule_id, True, f"from {module} import keras -> import tf_keras as {alias}")
            return cst.Import(names=[cst.ImportAlias(cst.Name("tf_keras"),
                                                     asname=cst.AsName(cst.Name(alias)))])
        return updated
