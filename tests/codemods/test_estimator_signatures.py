"""The rewrite's tables of Estimator signatures are the real ones (tensorflow_estimator 2.15, legacy environment).

Canned estimators' positional arguments bind to the parameters the real classes take in that position.

`codemods.canned_estimators.CANNED[...].positional` is read from tensorflow_estimator 2.15 in the legacy
environment, both the v1 class (`tf.compat.v1.estimator.X`, TF1's `tf.estimator.X`) and the v2 one: the
table must be a prefix of both signatures, and stop where they part (v1's partitioner parameters).
"""

from __future__ import annotations

import json

from codemods.canned_estimators import CANNED
from codemods.runtime_tier import ESTIMATOR_METHOD_PARAMETERS
from tests.conftest import run

_SIGNATURES = """
import inspect, json, tensorflow as tf
print(json.dumps({f"{version}.{name}": list(inspect.signature(getattr(module, name).__init__).parameters)[1:]
                  for version, module in (("v1", tf.compat.v1.estimator), ("v2", tf.estimator))
                  for name in %r}))
"""


def test_positional_parameters_are_the_shared_prefix_of_the_real_signatures(legacy_python):
    names = [path.rsplit(".", 1)[1] for path in CANNED]
    signatures = json.loads(run([legacy_python, "-c", _SIGNATURES % names]).stdout.strip().splitlines()[-1])
    for path, spec in CANNED.items():
        name = path.rsplit(".", 1)[1]
        v1, v2 = signatures[f"v1.{name}"], signatures[f"v2.{name}"]
        shared = 0
        while shared < min(len(v1), len(v2)) and v1[shared] == v2[shared]:
            shared += 1
        assert spec.positional == tuple(v1[:shared]), name


_METHODS = """
import inspect, json, tensorflow as tf
print(json.dumps({name: list(inspect.signature(getattr(tf.compat.v1.estimator.Estimator, name)).parameters)[1:]
                  for name in %r}))
"""


def test_estimator_method_parameters_are_the_real_ones(legacy_python):
    """What tells an Estimator's `x.evaluate(input_fn=...)` from another object's (contrib.learn's takes metrics=)."""
    signatures = json.loads(run([legacy_python, "-c", _METHODS % sorted(ESTIMATOR_METHOD_PARAMETERS)]).stdout.strip().splitlines()[-1])
    assert {name: tuple(parameters) for name, parameters in signatures.items()} == ESTIMATOR_METHOD_PARAMETERS
