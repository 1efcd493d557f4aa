"""The rewrite never hands back code that does not parse (codemods.transformer._check_parses)."""

import libcst as cst
import pytest

from codemods.transformer import _check_parses


def test_code_python_rejects_and_libcst_rejects_raises():
    with pytest.raises(cst.ParserSyntaxError):
        _check_parses("def f(:\n    pass\n")


def test_syntax_newer_than_this_python_is_judged_by_libcst():
    _check_parses("type Point = tuple[float, float]\n")  # Python 3.12 syntax; this is 3.11


def test_code_python_accepts_passes():
    _check_parses("import tensorflow as tf\nmodel = tf.keras.Sequential()\n")
