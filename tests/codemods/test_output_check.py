"""The rewrite never hands back code that does not parse (codemods.transformer._check_parses)."""

import libcst as cst
import pytest

from codemods.transformer import _check_parses


def test_code_python_rejects_and_libcst_rejects_raises():
    with pytest.raises(cst.ParserSyntaxError):
        _check_parses("def f(:\n    pass\n", "")


def test_syntax_newer_than_this_python_is_judged_by_libcst():
    _check_parses("type Point = tuple[float, float]\n", "")  # Python 3.12 syntax; this is 3.11


def test_code_python_accepts_passes():
    _check_parses("import tensorflow as tf\nmodel = tf.keras.Sequential()\n", "")


def test_a_future_import_the_rewrite_moved_down_raises():
    """Python's parser lets it pass; the compiler does not (a SyntaxError when the program runs)."""
    source = '"""Doc."""\nfrom __future__ import division\nimport tensorflow as tf\n'
    _check_parses(source, source)
    with pytest.raises(SyntaxError, match="from __future__ imports must occur at the beginning"):
        _check_parses('"""Doc."""\nimport os\nfrom __future__ import division\n', source)
    # a notebook's joined cells: their future imports were further down already
    joined = "__migrate_cell__(0)\nfrom __future__ import division\n"
    _check_parses("import os\n" + joined, joined)
