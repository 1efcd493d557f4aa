"""compat.root_logging: after a checkpoint write, TensorFlow's log lines print once, as under an Estimator.

Each case is a fresh process (pytest configures the root logger of its own): TensorFlow's logger at INFO, one
checkpoint write, then one line logged through tf.compat.v1.logging.
"""

from __future__ import annotations

import pytest

from tests.conftest import MODERN_PYTHON, run

PROGRAM = """
import logging, sys
import tensorflow as tf
from estimator_migrate.compat import root_logging

if sys.argv[1] == "configured":
    logging.basicConfig(level=logging.WARNING, format="root: %(message)s")
tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
checkpoint = tf.train.Checkpoint(v=tf.Variable(1.0))
if sys.argv[1] == "bare":
    checkpoint.save(sys.argv[2])
else:
    with root_logging.untouched():
        checkpoint.save(sys.argv[2])
tf.compat.v1.logging.info("after the save")
logging.warning("the program's own warning")
"""


@pytest.mark.parametrize("case, expected", [
    # TensorFlow's own behaviour, which the module exists for: absl configured the root logger during the save
    ("bare", ["INFO:tensorflow:after the save"] * 2),
    ("untouched", ["INFO:tensorflow:after the save"]),
])
def test_tensorflow_lines_print_once_after_a_save(case, expected, tmp_path):
    completed = run([MODERN_PYTHON, "-c", PROGRAM, case, tmp_path / "ckpt"])
    assert [line for line in completed.stderr.splitlines() if line.endswith("after the save")] == expected


def test_a_program_that_configured_logging_keeps_its_handler(tmp_path):
    completed = run([MODERN_PYTHON, "-c", PROGRAM, "configured", tmp_path / "ckpt"])
    lines = completed.stderr.splitlines()
    assert "root: the program's own warning" in lines and "root: after the save" in lines
