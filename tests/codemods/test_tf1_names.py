"""TensorFlow 1.x names -> tf.compat.v1 (codemods/rules/tf1_names.py, codemods/tf1_api.py)."""

from __future__ import annotations

import textwrap

from codemods.tf1_api import _table
from codemods.tf1_api_names import CHANGED, MISSING, MODULES, TENSORFLOW_VERSION
from codemods.transformer import migrate_source

TF1_PROGRAM = textwrap.dedent("""\
    import tensorflow as tf


    def model(features, keep_prob):
        tf.logging.info("building")
        net = tf.layers.dense(features, 8)
        net = tf.nn.dropout(net, keep_prob)
        tf.summary.scalar("mean", tf.reduce_mean(net))
        return tf.nn.relu(net)


    if __name__ == "__main__":
        tf.app.run()
    """)


def test_the_table_is_the_installed_tensorflows():
    """Made by `python -m codemods.tf1_api` from the TensorFlow migrated programs run on: regenerate it when
    that changes."""
    import tensorflow as tf

    modules, missing, changed, version = _table()
    assert TENSORFLOW_VERSION == version == tf.__version__
    assert (frozenset(modules), frozenset(missing), frozenset(changed)) == (MODULES, MISSING, CHANGED)
    assert {"logging", "app", "layers"} <= MODULES and "train.AdamOptimizer" in MISSING
    assert {"nn.dropout", "summary.scalar"} <= CHANGED and "nn.relu" not in CHANGED | MISSING


def test_a_tf1_program_keeps_its_names_meaning_through_compat_v1():
    code = migrate_source(TF1_PROGRAM).code
    switch = 'import os\n\nos.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.keras as the program had it: Keras 2\n'
    assert code == switch + TF1_PROGRAM.replace("tf.logging", "tf.compat.v1.logging").replace(
        "tf.layers", "tf.compat.v1.layers").replace("tf.nn.dropout", "tf.compat.v1.nn.dropout").replace(
        "tf.summary", "tf.compat.v1.summary").replace("tf.reduce_mean", "tf.compat.v1.reduce_mean").replace(
        "tf.app", "tf.compat.v1.app")
    assert migrate_source(code).code == code  # nothing TensorFlow 2 lacks is left: a second rewrite keeps it


def test_a_tensorflow_2_program_keeps_its_names():
    """`tf.nn.dropout(net, rate)` in a program naming nothing TensorFlow 2 lacks is TensorFlow 2's."""
    source = TF1_PROGRAM.replace('    tf.logging.info("building")\n', "").replace("tf.layers.dense", "tf.keras.layers.Dense"
                                                                                 ).replace("tf.app.run()", "main()")
    assert migrate_source(source).code == source


def test_every_module_of_a_tf1_project_that_names_tensorflow_is_rewritten(tmp_path):
    """A module with nothing else to migrate (the network alone) is parsed too when its project's names are
    TF1's: its `tf.nn.dropout(net, keep_prob)` keeps TF1's meaning; a module of another project keeps its own."""
    from tests.conftest import MIGRATE, run

    project, other = tmp_path / "tree" / "trainer", tmp_path / "tree" / "tf2_project"
    project.mkdir(parents=True)
    other.mkdir()
    (project / "task.py").write_text("import tensorflow as tf\n\nfrom trainer import model\n\n\n"
                                     "def main(_):\n    tf.logging.info(model)\n\n\ntf.app.run(main)\n")
    network = "import tensorflow as tf\n\n\ndef network(net, keep_prob):\n    return tf.nn.dropout(net, keep_prob)\n"
    (project / "model.py").write_text(network)
    (other / "model.py").write_text(network)
    run([MIGRATE, "rewrite", tmp_path / "tree"])
    assert "return tf.compat.v1.nn.dropout(net, keep_prob)" in (project / "model.py").read_text()
    assert "tf.compat.v1.app.run(main)" in (project / "task.py").read_text()
    assert (other / "model.py").read_text() == network


def test_modules_tensorflow_2_lacks_imported_from_tensorflow_come_from_compat_v1():
    """`from tensorflow import flags, gfile, logging, app` stopped a migrated program at its first line
    (TensorFlow 2 has none of them); the names TensorFlow 2 has stay in their import, comments too."""
    import tensorflow.compat.v1 as tf1

    source = textwrap.dedent("""\
        import tensorflow as tf
        from tensorflow import app, flags, logging
        from tensorflow import (
            gfile,  # TF1's file API
            nn,
        )

        flags.DEFINE_string("model_dir", "/tmp/model", "where the checkpoints go")
        FLAGS = flags.FLAGS


        def main(_):
            logging.info("starting in %s (exists: %s)", FLAGS.model_dir, gfile.Exists(FLAGS.model_dir))
            print(nn.relu(-1.0))


        if __name__ == "__main__":
            app.run(main)
        """)
    code = migrate_source(source).code
    assert ("import tensorflow as tf\nfrom tensorflow import (\n    nn,\n)\nfrom tensorflow.compat.v1 import app, flags, "
            "logging\nfrom tensorflow.compat.v1 import (\n    gfile,  # TF1's file API\n)\n\n") in code  # isort's order
    namespace: dict = {}
    exec("\n\n".join(code.split("\n\n", 2)[:2]) + "\n", namespace)  # the import block runs on TensorFlow 2
    assert namespace["flags"] is tf1.flags and namespace["gfile"] is tf1.gfile and namespace["logging"] is tf1.logging
    assert migrate_source(code).code == code


def test_flags_error_is_absls_error():
    """TF 1.x's flags re-exported absl's, whose old `FlagsError` is `Error` now (TensorFlow 2.15 has no FlagsError
    either): the same class, under the name it has."""
    import tensorflow.compat.v1 as tf1

    source = textwrap.dedent("""\
        import tensorflow as tf
        from tensorflow import flags


        def check(value):
            if not value:
                raise flags.FlagsError("no value")
            if value < 0:
                raise tf.flags.FlagsError("negative")
        """)
    code = migrate_source(source).code
    assert 'raise flags.Error("no value")' in code and 'raise tf.compat.v1.flags.Error("negative")' in code
    assert tf1.flags.Error.__name__ == "Error" and not hasattr(tf1.flags, "FlagsError")
