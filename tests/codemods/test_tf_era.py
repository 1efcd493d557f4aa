"""Which TensorFlow a module was written for: APIs only 1.x's plain namespace had, read from the code."""

import pytest

from codemods.tf_era import written_for_tf1


@pytest.mark.parametrize("source", [
    "import tensorflow as tf\nopt = tf.train.AdamOptimizer(0.1)\n",
    "import tensorflow as tf\ntf.logging.set_verbosity(tf.logging.INFO)\n",
    "import tensorflow\nx = tensorflow.placeholder(tensorflow.float32)\n",
    "from tensorflow.contrib import tpu as contrib_tpu\n",
    "import tensorflow as tf\nwith tf.Session() as s:\n    pass\n",
    "import tensorflow as tf\nf = tf.estimator.inputs.numpy_input_fn(x)\n",
])
def test_tensorflow_1_programs(source):
    assert written_for_tf1(source)


@pytest.mark.parametrize("source", [
    # the same APIs through compat.v1 run on 2.x: nothing to tell
    "import tensorflow as tf\nopt = tf.compat.v1.train.AdamOptimizer(0.1)\n",
    "import tensorflow.compat.v1 as tf\nx = tf.placeholder(tf.float32)\n",
    # 2.x APIs, strings and comments
    "import tensorflow as tf\nm = tf.estimator.DNNClassifier(hidden_units=[2])\nopt = tf.keras.optimizers.Adam()\n",
    'import tensorflow as tf\n"""optimizer (str or tf.train.Optimizer): a name or object"""\n# tf.Session\n',
    "import numpy as np\nnp.logging = 1\n",
    "def broken(:\n",
])
def test_tensorflow_2_programs_and_the_undecidable(source):
    assert not written_for_tf1(source)
