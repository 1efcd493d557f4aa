"""Python 2 modules: converted to Python 3 with Python 2's meaning of `/` and `round` kept.

The expected values are Python 2.7's own (its documented semantics: `/` floors integers, `round` rounds
half away from zero on the float's exact value and returns a float); TensorFlow's is `tf.compat.v1.div`,
which TF 1.x's `Tensor.__div__` was.
"""

import numpy as np
import pytest
import tensorflow as tf

from codemods.python2 import NotPython2, to_python3
from compat.python2 import classic_division, classic_inplace_division, classic_round
from tests.conftest import MODERN_PYTHON, ROOT, latest_saved_step, migrate_file, run


@pytest.mark.parametrize(
    "dividend, divisor, python2",
    [(7, 2, 3), (-7, 2, -4), (7, -2, -4), (True, 2, 0), (7.0, 2, 3.5), (7, 2.0, 3.5), (1, 3.0, 1 / 3)],
)
def test_classic_division_of_python_numbers_is_python_2s(dividend, divisor, python2):
    result = classic_division(dividend, divisor)
    assert result == python2 and type(result) is type(python2)


def test_classic_division_of_numpy_integers_floors_and_of_floats_does_not():
    np.testing.assert_array_equal(classic_division(np.array([7, -7]), 2), [3, -4])
    assert classic_division(np.int64(7), np.int32(2)) == 3
    np.testing.assert_array_equal(classic_division(np.array([7.0]), 2), [3.5])


def test_classic_division_of_tensors_is_tf1s_div():
    for dividend, divisor in [(tf.constant([7, -7]), 2), (tf.constant([7, -7]), tf.constant([2, 2])),
                              (tf.constant([7.0, -7.0]), 2.0), (tf.Variable([9, -9], dtype=tf.int64), 4)]:
        expected = tf.compat.v1.div(dividend, divisor)
        result = classic_division(dividend, divisor)
        assert result.dtype == expected.dtype
        np.testing.assert_array_equal(result.numpy(), expected.numpy())


def test_classic_inplace_division_divides_the_array_in_place():
    array = np.array([7, 9])
    alias = array
    result = classic_inplace_division(array, 2)
    assert result is alias
    np.testing.assert_array_equal(alias, [3, 4])
    assert classic_inplace_division(7, 2) == 3 and classic_inplace_division(7.0, 2) == 3.5


@pytest.mark.parametrize(
    "number, ndigits, python2",
    [(2.5, 0, 3.0), (-2.5, 0, -3.0), (0.5, 0, 1.0), (1.5, 0, 2.0), (3, 0, 3.0), (2.675, 2, 2.67),
     (1234.5, -1, 1230.0), (1e300, -400, 0.0), (0.1, 2000, 0.1), (np.float32(2.5), 0, 3.0)],
)
def test_classic_round_is_python_2s(number, ndigits, python2):
    result = classic_round(number, ndigits)
    assert result == python2 and type(result) is float


def test_classic_round_keeps_infinities_and_nan():
    assert classic_round(float("inf")) == float("inf")
    assert np.isnan(classic_round(float("nan")))


def test_a_python_2_module_is_converted_with_its_meaning_kept():
    code, findings = to_python3(
        "import tensorflow as tf\n"
        "for i in xrange(3):\n"
        "    print 'step', i / 2, i / 2.0, 7 / 2, round(i)\n"
        "steps = total / float(batch)\n"
        "steps /= 2\n"
        "grid[row][f()] /= 2\n"
    )
    assert code == (
        "import tensorflow as tf\n"
        "from estimator_migrate.compat import python2\n"
        "\n"
        "for i in range(3):\n"
        "    print('step', python2.classic_division(i, 2), i / 2.0, 7 // 2, python2.classic_round(i))\n"
        "steps = total / float(batch)\n"
        "steps = python2.classic_inplace_division(steps, 2)\n"
        "# TODO(migrate): python2: `/=` of a target with side effects: Python 2 floored integers here, Python 3 "
        "does not; write `target = python2.classic_inplace_division(target, value)` with the target evaluated once\n"
        "grid[row][f()] /= 2\n"
    )
    assert [(f.rule, f.line, f.migrated) for f in findings] == [("python2", 1, True), ("python2", 9, False)]
    assert "`/` of integers" in findings[0].message and "round()" in findings[0].message


def test_future_division_and_a_round_of_the_modules_own_stay():
    source = (
        "from __future__ import division, print_function\n"
        "from numpy import round\n"
        "print(a / b, round(x), end='')\n"
        "exec 'x = 1'\n"
    )
    code, findings = to_python3(source)
    assert "estimator_migrate" not in code  # no helper used, nothing imported
    assert "print(a / b, round(x), end='')" in code and "exec('x = 1')" in code
    assert [f.message for f in findings] == ["converted from Python 2 to Python 3 (2to3's fixers)"]


def test_implicit_relative_imports_are_left_as_written():
    # 2to3 would write `from . import model`, which fails in a module run as a script (python trainer/task.py)
    code, _ = to_python3("import model\nprint model.build()\n")
    assert code == "import model\nprint(model.build())\n"


def test_a_module_that_is_not_python_2_either_is_refused():
    with pytest.raises(NotPython2, match="does not parse as Python 2 either"):
        to_python3("def f(:\n    pass\n")


def test_a_module_binding_the_helpers_name_is_refused():
    with pytest.raises(NotPython2, match="binds the name `python2`"):
        to_python3("python2 = True\nprint 1 / 2\n")


def test_tabs_mixed_with_spaces_indent_as_python_2_read_them():
    """Python 2 read a tab as indenting to the next multiple of 8 columns; Python 3 refuses the mix."""
    source = 'def f(x):\n    if x:\n\treturn """a\n\tb"""\n    print "no"\n'
    code, findings = to_python3(source)
    assert code == 'def f(x):\n    if x:\n        return """a\n\tb"""\n    print("no")\n'
    assert findings[0].migrated


def test_tabs_used_alone_stay_tabs():
    code, _ = to_python3("def f(x):\n\tif x:\n\t\tprint x\n")
    assert code == "def f(x):\n\tif x:\n\t\tprint(x)\n"


@pytest.mark.slow
# one target each: tests/conftest.py, "Targets"
@pytest.mark.parametrize(("program", "target"), [("python2_trainer.py", "keras"), ("python2_tabs_trainer.py", "loop")])
def test_a_migrated_python_2_program_takes_python_2s_number_of_steps(program, target, tmp_path):
    # 1000 examples in batches of 32: Python 2's `1000 / 32` is 31 steps an epoch (Python 3's, 31.25)
    program = migrate_file(ROOT / "tests" / "corpus" / program, tmp_path / "out", target)
    model_dir = tmp_path / "model"
    completed = run([MODERN_PYTHON, program, "--model_dir", model_dir, "--epochs", "2", "--batch_size", "32"])
    epochs = [line for line in completed.stdout.splitlines() if line.startswith("epoch ")]
    assert [line.split(":")[0] for line in epochs] == ["epoch 0", "epoch 1"]
    assert latest_saved_step(model_dir) == 62
