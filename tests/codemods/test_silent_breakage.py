"""The rewrite checks its own output (codemods/output_check.py): a name TensorFlow 2 lacks, left where no TODO says
so, is an internal error of that file, never a half-migrated program written to disk."""

from __future__ import annotations

import pytest

from codemods.output_check import SilentBreakage, gone_from_tf2, silent_breakage
from codemods.rules.estimator_leftovers import EstimatorLeftoversRule
from codemods.transformer import migrate_source
from migrate.cli import run


@pytest.mark.parametrize("name, gone", [
    ("tensorflow.estimator.RunConfig", True),
    ("tensorflow.compat.v1.estimator.DNNClassifier", True),
    ("tensorflow_estimator.python.estimator.run_config", True),
    ("tensorflow.contrib.layers.real_valued_column", True),
    ("tensorflow.logging.info", True),
    ("tensorflow.flags", True),
    ("tensorflow.compat.v1.logging.info", False),
    ("tensorflow.compat.v1.flags", False),
    ("tensorflow.nn.relu", False),
    ("tf_keras.callbacks.BackupAndRestore", False),
])
def test_which_names_tensorflow_2_lacks(name, gone):
    assert gone_from_tf2(name) is gone


def test_each_unmarked_name_is_found_by_line():
    code = ("import tensorflow as tf\n"
            "from tensorflow import flags\n"
            "import tensorflow.contrib.layers as layers\n\n\n"
            "def model_fn(features, labels, mode):\n"
            "    tf.logging.info('building')\n"
            "    return tf.estimator.EstimatorSpec(mode)\n")
    assert silent_breakage(code) == [
        (2, "tensorflow.flags"), (3, "tensorflow.contrib.layers"),
        (7, "tensorflow.logging.info"), (8, "tensorflow.estimator.EstimatorSpec"),
    ]


def test_a_todo_above_the_statement_its_definition_or_its_import_covers_it():
    code = ("import tensorflow as tf\n"
            "# TODO(migrate): contrib-api: tf.contrib.layers ...\n"
            "import tensorflow.contrib.layers as layers\n\n"
            "column = layers.real_valued_column('x')  # (the import's TODO says where it stops)\n\n\n"
            "# TODO(migrate): estimator-api: kept\n"
            "@staticmethod\n"
            "def model_fn(features, labels, mode):\n"
            "    if mode == tf.estimator.ModeKeys.TRAIN:\n"
            "        return tf.estimator.EstimatorSpec(mode)\n\n\n"
            "# TODO(migrate): estimator-api: kept\n"
            "config = tf.estimator.RunConfig()\n"
            "kept_v1 = tf.compat.v1.logging.info\n")
    assert silent_breakage(code) == []


def test_a_rule_that_forgets_its_todo_fails_the_file_and_writes_nothing(tmp_path, monkeypatch, capsys):
    """A kept Estimator subclass's model_fn returns tf.estimator.EstimatorSpec: rules/estimator_leftovers speaks
    for it. Without that rule's TODO the output would fail where nothing says so: the check refuses it."""
    program = tmp_path / "train.py"
    program.write_text(
        "import tensorflow as tf\n\n\n"
        "class PinnedEstimator(tf.estimator.Estimator):\n"
        "    def latest_checkpoint(self):\n"
        "        return None\n\n\n"
        "def model_fn(features, labels, mode):\n"
        "    loss = tf.reduce_sum(tf.compat.v1.layers.dense(features['x'], 1))\n"
        "    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=tf.no_op())\n\n\n"
        "estimator = PinnedEstimator(model_fn, model_dir='/tmp/pinned')\n"
    )
    source = program.read_text()
    assert "TODO(migrate)" in migrate_source(source).code  # (with the rule: marked and written)

    monkeypatch.setattr(EstimatorLeftoversRule, "leave", lambda self, original, updated, ctx: updated)
    with pytest.raises(SilentBreakage, match="tensorflow.estimator.EstimatorSpec at line"):
        migrate_source(source)
    assert run(["rewrite", str(program)]) != 0
    errors = [line for line in capsys.readouterr().err.splitlines() if "SilentBreakage" in line]
    assert len(errors) == 1 and "train.py" in errors[0] and "EstimatorSpec" in errors[0]
    assert program.read_text() == source


def test_a_parameter_hiding_an_imported_name_is_not_judged():
    code = ("import tensorflow as tf\n\n\n"
            "def build(tf=tf):\n"
            "    tf.logging.info('building')\n\n\n"
            "tf.logging.info('module level')\n")
    assert silent_breakage(code) == [(8, "tensorflow.logging.info")]


@pytest.mark.parametrize("source", [
    "import tensorflow as tf\n\ncontrib = tf.contrib\nlayer = contrib.layers.fully_connected\n",
    "import tensorflow.compat.v1 as tf\n\nprint(tf.contrib)\n",
    "import tensorflow as tf\nfrom tensorflow.contrib import *\n\nx = layers.fully_connected(tf.zeros([1, 2]), 3)\n",
])
def test_tf_contrib_itself_as_a_value_gets_a_todo(source):
    code = migrate_source(source).code
    assert "TODO(migrate): contrib-api: tf.contrib (removed in TensorFlow 2.0" in code and silent_breakage(code) == []


def test_an_output_left_as_it_was_is_checked_too(monkeypatch):
    from codemods.rules.contrib_names import ContribNamesRule

    monkeypatch.setattr(ContribNamesRule, "leave", lambda self, original, updated, ctx: updated)
    with pytest.raises(SilentBreakage, match="tensorflow.contrib at line 3"):
        migrate_source("import tensorflow as tf\n\ncontrib = tf.contrib\n")


EITHER_TENSORFLOW = ("try:\n    import tensorflow.compat.v1 as tf\nexcept ImportError:\n    import tensorflow as tf\n\n"
                     "tf.logging.set_verbosity(tf.logging.INFO)\n"
                     "estimator = tf.estimator.LinearClassifier(feature_columns=[])\n")


def test_a_name_several_imports_bind_is_gone_only_if_gone_from_each():
    """tf.compat.v1 has `logging` (the try's import wins on TensorFlow 2); neither has `estimator`."""
    assert silent_breakage(EITHER_TENSORFLOW) == [(7, "tensorflow.estimator.LinearClassifier")]


def test_tf_estimator_through_either_tensorflow_import_gets_a_todo():
    code = migrate_source(EITHER_TENSORFLOW).code
    assert "# TODO(migrate): estimator-api: tf.estimator.LinearClassifier: TensorFlow >= 2.16 has no" in code
    assert silent_breakage(code) == []
