"""A migrated numpy_input_fn reads the values its arguments had when it was made, as numpy_input_fn kept its
arrays: a name the scope binds again later (the next split's data in the same variables, a loop or a
comprehension over datasets) is kept by the lambda (`lambda x=x: ...`). Run for real: the migrated code is
executed and its batches read."""

import textwrap

import numpy as np
import pytest
import tensorflow as tf

from codemods.transformer import migrate_source
from tests.conftest import import_program

SOURCE = '''\
import numpy as np
import tensorflow as tf

x, y = np.arange(4.0), np.zeros(4)
train_input = tf.compat.v1.estimator.inputs.numpy_input_fn(x={"x": x}, y=y, batch_size=4, num_epochs=1,
                                                           shuffle=False)
x, y = np.arange(10.0, 14.0), np.ones(4)  # the test split, in the same variables
test_input = tf.compat.v1.estimator.inputs.numpy_input_fn(x={"x": x}, y=y, batch_size=4, num_epochs=1,
                                                          shuffle=False)
parts = [np.arange(3.0) + 100 * k for k in range(3)]
part_inputs = [tf.compat.v1.estimator.inputs.numpy_input_fn(x={"x": part}, batch_size=3, shuffle=False)
               for part in parts]
by_epoch = []
for epochs in (1, 2):
    by_epoch.append(tf.compat.v1.estimator.inputs.numpy_input_fn(x={"x": parts[0]}, batch_size=6, num_epochs=epochs,
                                                                 shuffle=False))
'''


def _first_batch(input_fn):
    return next(iter(input_fn()))


@pytest.fixture(scope="module")
def migrated(tmp_path_factory):
    code = migrate_source(SOURCE).code
    program = tmp_path_factory.mktemp("numpy_input_fns") / "migrated.py"
    program.write_text(code)
    return code, vars(import_program(program))  # (it restores TF_USE_LEGACY_KERAS, which the module sets)


def test_each_input_fn_reads_the_data_it_was_made_with(migrated):
    code, namespace = migrated
    assert "lambda x=x, y=y: (" in code and "lambda part=part: (" in code and "lambda epochs=epochs: (" in code
    features, labels = _first_batch(namespace["train_input"])
    np.testing.assert_array_equal(features["x"], np.arange(4.0))
    np.testing.assert_array_equal(labels, np.zeros(4))
    features, labels = _first_batch(namespace["test_input"])
    np.testing.assert_array_equal(features["x"], np.arange(10.0, 14.0))
    for k, part_input in enumerate(namespace["part_inputs"]):
        np.testing.assert_array_equal(_first_batch(part_input)["x"], np.arange(3.0) + 100 * k)
    sizes = [int(tf.shape(batch["x"])[0]) for batch in namespace["by_epoch"][0]()], \
        [int(tf.shape(batch["x"])[0]) for batch in namespace["by_epoch"][1]()]
    assert sizes == ([3], [6])  # one epoch of 3 examples, then two in one batch of 6


def test_names_bound_once_are_read_as_written(migrated):
    code = migrate_source(textwrap.dedent('''\
        import numpy as np
        import tensorflow as tf

        images = np.zeros([4, 2])
        train_input = tf.compat.v1.estimator.inputs.numpy_input_fn(x={"x": images}, batch_size=2, shuffle=False)
        ''')).code
    assert "train_input = lambda: (" in code
    assert migrate_source(migrated[0]).code == migrated[0]  # and a second rewrite leaves the kept values
