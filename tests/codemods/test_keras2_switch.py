"""A migrated module sets TF_USE_LEGACY_KERAS first, before anything imports TensorFlow (codemods/keras2_switch.py):
`tf.keras` is Keras 2 as the program had it, and TensorFlow's import skips Keras 3."""

import textwrap

from codemods.transformer import migrate_source
from tests.conftest import MODERN_PYTHON, run

SWITCH = 'os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.keras as the program had it: Keras 2'
TRAINING = """
est = tf.estimator.LinearRegressor(feature_columns=[tf.feature_column.numeric_column("x")], model_dir="/tmp/m")
est.train(input_fn, steps=10)
"""


def _migrated(head: str, rest: str = TRAINING) -> str:
    return migrate_source(textwrap.dedent(head) + textwrap.dedent(rest)).code


def test_the_switch_goes_first_after_docstring_and_future_imports():
    code = _migrated('''\
        """The program."""
        from __future__ import print_function
        import sys

        import tensorflow as tf
        ''')
    assert code.startswith(f'"""The program."""\nfrom __future__ import print_function\nimport os\n\n{SWITCH}\nimport sys\n\n'
                           "import tensorflow as tf\n")
    assert migrate_source(code).code == code  # a second rewrite leaves it


def test_one_import_os_the_programs_own_moved_up_with_its_comment():
    code = _migrated("""\
        # Licence.
        import tensorflow as tf
        # paths
        import os
        """)
    assert code.startswith(f"# Licence.\n# paths\nimport os\n\n{SWITCH}\nimport tensorflow as tf\n")
    assert code.count("import os") == 1


def test_before_sibling_imports_and_code_which_may_import_tensorflow_first():
    code = _migrated("""\
        import numpy as np
        from trainer import model
        tf_log_level = "3"
        import tensorflow as tf
        """)
    assert code.startswith(f"import os\n\n{SWITCH}\nimport numpy as np\nfrom trainer import model\n")
    # the runtime (which imports TensorFlow) comes with the program's own TensorFlow import, not before its code
    assert 'tf_log_level = "3"\nimport tensorflow as tf\nfrom estimator_migrate.compat import' in code


def test_left_alone_a_module_naming_the_switch_or_migrating_nothing():
    chosen = 'import os\nos.environ["TF_USE_LEGACY_KERAS"] = "0"\nimport tensorflow as tf\n'
    assert _migrated(chosen).startswith(chosen + "from estimator_migrate.compat import")  # the runtime after it
    assert "TF_USE_LEGACY_KERAS" not in migrate_source("import tensorflow as tf\nx = tf.constant(1)\n").code


def test_the_migrated_program_runs_with_keras_2_and_without_keras_3(tmp_path):
    """Measured in a real process: the migrated module's `tf.keras` is tf_keras's, and Keras 3 was never imported
    (without the switch TensorFlow 2.21's import loads it: 3 s of a 7.5 s start on the CI machine)."""
    program = tmp_path / "program.py"
    program.write_text(_migrated("import sys\nimport tensorflow as tf\n", textwrap.dedent("""
        def input_fn():
            return tf.data.Dataset.from_tensors(({"x": [[1.0]]}, [[2.0]])).repeat()
        """) + TRAINING.replace("/tmp/m", str(tmp_path / "model")) + textwrap.dedent("""
        print(tf.keras.__name__.startswith("tf_keras"), "keras.src" in sys.modules)
        """)))
    assert run([MODERN_PYTHON, program]).stdout.split()[-2:] == ["True", "False"]


def test_a_todo_above_the_first_statement_stays_on_it_a_header_goes_above_the_switch():
    import libcst as cst

    from codemods.keras2_switch import set_before_tensorflow

    source = '"""Doc."""\n# Header.\n\n# TODO(migrate): rule: what to do\nimport tensorflow.contrib.learn as learn\n'
    code = set_before_tensorflow(cst.parse_module(source), source).code
    assert code == ('"""Doc."""\n# Header.\n\nimport os\n'
                    f"\n{SWITCH}\n# TODO(migrate): rule: what to do\nimport tensorflow.contrib.learn as learn\n")
