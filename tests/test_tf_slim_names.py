"""codemods/rules/contrib_modules.py renames tf.contrib references to tf_slim by a table of tf-slim's names
(codemods/contrib_moves.py): the
table is the installed tf_slim's (a name it lacks would be an AttributeError in the migrated program; one it has
and the table lacks, a TODO the user did not need)."""

from __future__ import annotations

import inspect
import sys

import tf_slim

from codemods.contrib_moves import FRAMEWORK, LAYERS, LOSSES, METRICS, SLIM


def _public(module, modules: bool = False) -> set[str]:
    """tf_slim's own public names in `module` (not what it imports from TensorFlow); its submodules with `modules`."""
    names = set()
    for name in dir(module):
        value = getattr(module, name)
        if name.startswith("_"):
            continue
        if inspect.ismodule(value):
            if modules and value.__name__.startswith("tf_slim"):
                names.add(name)
        elif (getattr(value, "__module__", None) or "").startswith("tf_slim"):
            names.add(name)
    return names


def test_the_tables_are_the_installed_tf_slims_names():
    layers = sys.modules["tf_slim.layers"]  # (the package attribute `layers` is shadowed by a star import)
    assert _public(layers) == LAYERS
    assert _public(sys.modules["tf_slim.ops.variables"]) | _public(sys.modules["tf_slim.ops.arg_scope"]) == FRAMEWORK
    assert _public(sys.modules["tf_slim.metrics"]) == METRICS
    # tf.contrib.losses' names (TensorFlow 1.15's contrib/losses/__init__.py: loss_ops' and the metric_learning module)
    losses = sys.modules["tf_slim.losses"]
    assert {name for name in _public(sys.modules["tf_slim.losses.loss_ops"])
                      if name in dir(losses)} | {"metric_learning"} == LOSSES and hasattr(losses, "metric_learning")
    assert _public(tf_slim, modules=True) == SLIM
    assert all(hasattr(tf_slim, name) for name in SLIM)  # what the rewrite writes, `tf_slim.<name>`, exists
