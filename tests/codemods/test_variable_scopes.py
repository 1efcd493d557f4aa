"""Variables are told apart by where they are bound (codemods/bindings.NameScopes), not by name: two functions each
binding `estimator` or `config` hold two estimators and two RunConfigs, and what one keeps holds back nothing of
the other's."""

import textwrap

import libcst as cst

from codemods.bindings import ModuleBindings, NameScopes, ScopeTracking
from codemods.transformer import migrate_source

HEADER = '''import numpy as np
import tensorflow as tf


def model_fn(features, labels, mode, params):
    logits = tf.compat.v1.layers.dense(features["x"], 3)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    optimizer = tf.compat.v1.train.AdamOptimizer(learning_rate=0.01)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def train_input_fn():
    features = {"x": np.random.rand(256, 4).astype(np.float32)}
    return tf.data.Dataset.from_tensor_slices((features, np.random.randint(0, 3, 256))).repeat().batch(32)


def train_custom(model_dir):
    config = tf.estimator.RunConfig(save_checkpoints_steps=100)
    estimator = tf.estimator.Estimator(model_fn=model_fn, model_dir=model_dir, config=config)
    estimator.train(input_fn=train_input_fn, max_steps=1000)
'''

BOOSTED = '''

def train_boosted(model_dir):
    columns = [tf.feature_column.numeric_column("x", shape=[4])]
    config = tf.estimator.RunConfig(save_checkpoints_steps=5)
    estimator = tf.estimator.BoostedTreesClassifier(columns, n_batches_per_layer=8, model_dir=model_dir, config=config)
    estimator.train(input_fn=train_input_fn, max_steps=10)
'''


def _keys(source: str) -> dict[tuple[str, int], tuple[int, str]]:
    """(name, line) -> the key NameScopes gives each Name read or stored in `source`."""
    module = cst.parse_module(textwrap.dedent(source))
    scopes = NameScopes(module, ModuleBindings.of(module))
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(cst.metadata.PositionProvider)
    keys = {}

    class Walk(ScopeTracking):
        def visit_Name(self, node):
            keys[(node.value, positions[node].start.line)] = scopes.key(node.value, self.scopes)

    module.visit(Walk())
    return keys


def test_names_resolve_by_pythons_scoping_rules():
    keys = _keys('''
        x = 1
        def local():
            x = 2
            return x
        def reads():
            return x
        def declares():
            global x
            x = 3
        def outer():
            x = 4
            def inner():
                nonlocal x
                x = 5
            def reader():
                return x
        class Holder:
            x = 6
            def method(self):
                return x
        def parameter(x):
            return x
    ''')
    module = keys[("x", 2)][0]
    assert keys[("x", 5)] == keys[("x", 4)] != (module, "x")  # a function's own
    assert keys[("x", 7)] == (module, "x")  # read only: the module's
    assert keys[("x", 10)] == (module, "x")  # global
    assert keys[("x", 14)] == keys[("x", 17)] == keys[("x", 12)] != (module, "x")  # nonlocal, closure: outer's
    assert keys[("x", 19)] != (module, "x")  # the class body's own
    assert keys[("x", 21)] == (module, "x")  # a method does not see its class body's names
    assert keys[("x", 23)] == keys[("x", 22)] != (module, "x")  # a parameter


def _function(code: str, name: str) -> str:
    """The source of the top-level function `name` in `code`."""
    module = cst.parse_module(code)
    return next(module.code_for_node(s) for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == name)


def test_a_function_migrates_as_it_does_alone_beside_a_kept_estimator_of_the_same_variable_names():
    alone = migrate_source(HEADER)
    beside = migrate_source(HEADER + BOOSTED)
    assert [estimator.tier for estimator in alone.estimators] == ["rewritten"]
    assert sorted(estimator.tier for estimator in beside.estimators) == ["kept", "rewritten"]
    assert _function(beside.code, "train_custom") == _function(alone.code, "train_custom")
    assert ".fit(" in _function(beside.code, "train_custom")
    kept = _function(beside.code, "train_boosted")
    assert "BoostedTreesClassifier: gradient boosted trees have no TensorFlow 2 counterpart" in kept
    assert "assigned more than once" not in beside.code


def test_each_function_s_runconfig_is_its_own():
    source = HEADER.replace("RunConfig(save_checkpoints_steps=100)",
                            "RunConfig(save_checkpoints_steps=100, device_fn=lambda op: '/cpu:0')")
    source += BOOSTED.replace("RunConfig(save_checkpoints_steps=5)", "RunConfig(save_checkpoints_steps=5, tf_random_seed=3)")
    code = migrate_source(source).code
    custom, boosted = _function(code, "train_custom"), _function(code, "train_boosted")
    assert "RunConfig(device_fn=...) is not migrated yet" in custom
    assert "RunConfig(device_fn=...)" not in boosted  # the other function's RunConfig's reason is not its own


def test_a_helper_given_the_estimator_as_a_parameter_gets_its_calls_migrated():
    source = HEADER.replace("    estimator.train(input_fn=train_input_fn, max_steps=1000)\n",
                            "    estimator.train(input_fn=train_input_fn, max_steps=1000)\n    show(estimator)\n")
    source += '''

def show(estimator):
    for prediction in estimator.predict(train_input_fn):
        print(prediction)
'''
    code = migrate_source(source).code
    assert "estimator_training.predict(estimator, train_input_fn)" in _function(code, "show")
