"""InMemoryEvaluatorHook under both its names -> compat.estimator_training.InMemoryEvaluator (codemods/runtime_tier.py);
its run against the Estimator: tests/test_in_memory_evaluator.py."""

from __future__ import annotations

import pytest

from codemods.transformer import migrate_source

PROGRAM = """\
import tensorflow as tf


def main(columns, train_input_fn, eval_input_fn):
    estimator = tf.estimator.DNNClassifier(hidden_units=[8], feature_columns=columns, model_dir="/tmp/dnn")
    evaluator = {hook}(estimator, eval_input_fn, every_n_iter=10, name="held_out")
    estimator.train(train_input_fn, max_steps=30, hooks=[evaluator])
"""


@pytest.mark.parametrize("hook", ["tf.estimator.experimental.InMemoryEvaluatorHook",
                                  "tf.contrib.estimator.InMemoryEvaluatorHook"])
def test_both_names_become_the_callback(hook):
    code = migrate_source(PROGRAM.format(hook=hook)).code
    assert 'evaluator = estimator_training.InMemoryEvaluator(estimator, eval_input_fn, every_n_iter=10, name="held_out")' \
        in code
    assert "TODO(migrate)" not in code and "InMemoryEvaluatorHook" not in code
