"""Estimators returned by a project's functions (codemods/project/facts.estimator_factories): a variable assigned
the call of one holds an estimator, so its methods called with the input_fn by position (`model.train(input_fn,
steps=...)`, as a real course project's train.py called the estimator its build_model.py returned) are
Estimator's, rewritten for the target; without that the loop target left them to the keras target's methods."""

from __future__ import annotations

import ast

from codemods.project.facts import estimator_factories
from tests.conftest import MIGRATE, run

BUILD = """\
import tensorflow as tf


def build_model():
    config = tf.estimator.RunConfig(model_dir="./model", save_checkpoints_steps=2)
    model = tf.estimator.Estimator(model_fn, config=config)
    return model
"""
TRAIN = """\
import tensorflow as tf

from build_model import build_model


def train(input_fn):
    model = build_model()
    model.train(input_fn, steps=None)
    return model.evaluate(input_fn)
"""


def _factories(source: str) -> set[str]:
    return estimator_factories(ast.parse(source))


def test_functions_returning_an_estimator_they_build_are_factories():
    assert _factories(BUILD) == {"build_model"}
    direct = "def make(c):\n    return tf.compat.v1.estimator.DNNClassifier(hidden_units=[4], feature_columns=c)\n"
    assert _factories(direct) == {"make"}


def test_other_functions_are_not():
    sklearn = "def make():\n    return ensemble.RandomForestClassifier()\n"
    bare = "from tensorflow.estimator import DNNClassifier\n\ndef make(c):\n    return DNNClassifier(c)\n"
    sometimes = ("def make(c, canned):\n    if canned:\n        return tf.estimator.LinearRegressor(c)\n"
                 "    return None\n")
    method = "class Builder:\n    def make(self):\n        return tf.estimator.LinearRegressor(c)\n"
    assert _factories(sklearn) == _factories(bare) == _factories(sometimes) == _factories(method) == set()


def _rewritten(tmp_path, **modules: str) -> str:
    tree = tmp_path / "project"
    tree.mkdir()
    for name, source in modules.items():
        (tree / f"{name}.py").write_text(source)
    run([MIGRATE, "rewrite", "--target", "loop", "--out", tmp_path / "out", tree])
    return (tmp_path / "out" / "train.py").read_text()


def test_an_estimator_from_a_sibling_modules_factory_trains_with_the_targets_loop(tmp_path):
    train = _rewritten(tmp_path, build_model=BUILD, train=TRAIN)
    assert "estimator_loop.train(model, input_fn, steps=None)" in train
    assert "return estimator_training.evaluate(model, input_fn)" in train


def test_a_function_of_the_module_named_as_a_factory_that_is_not_one_shadows_it(tmp_path):
    own = TRAIN.replace("from build_model import build_model\n", "\ndef build_model():\n    return Trainer()\n")
    train = _rewritten(tmp_path, build_model=BUILD, train=own)
    assert "model.train(input_fn, steps=None)" in train and "estimator_loop" not in train
