"""The rules act in the registry's order (codemods/registry.py), whichever module imported a rule first."""

import importlib

from codemods.registry import _FIRST, _LAST, load_rules


def test_the_order_is_the_registry_s_not_the_imports():
    importlib.import_module("codemods.rules.estimator_leftovers")  # (as a test naming that rule does)
    modules = [type(rule).__module__.rsplit(".", 1)[1] for rule in load_rules()]
    assert modules[0] == _FIRST[0]
    assert [name for name in modules if name in _LAST] == list(_LAST)
    assert modules[-len(_LAST):] == list(_LAST)
    middle = modules[len(_FIRST):-len(_LAST)]
    assert middle == sorted(middle)
