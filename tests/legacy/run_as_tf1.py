"""Run a program written for TensorFlow 1.x with 1.x's API and behaviour: `python run_as_tf1.py PROGRAM ARGS...`.

The legacy environment is TensorFlow 2.15, whose plain `tensorflow` namespace is 2.x's: `tf.train.AdamOptimizer`,
`tf.logging`, `tf.layers` are under `tf.compat.v1` only, which holds TensorFlow 1.x's API (the same objects
1.15 exported). The program runs as `__main__` with its own `import tensorflow` (and `import tensorflow as
tf`) bound to `tensorflow.compat.v1`; every other module, TensorFlow's and the Estimator's own included,
imports TensorFlow as usual. TensorFlow 1.x's behaviour (graph mode, TF1 variables and control flow) is
switched on first, as TensorFlow 1.x had it, and `ops.Tensor`, `ops.IndexedSlices` are given back (1.x defined them
there; tf-slim 1.1, where tf.contrib's layers and training loops now are, reads them).
"""

import builtins
import os
import runpy
import sys

import tensorflow
from tensorflow.python.framework import ops


def _import(name, globals=None, locals=None, fromlist=(), level=0):
    if name == "tensorflow" and not fromlist and level == 0:
        return tensorflow.compat.v1
    return builtins.__import__(name, globals, locals, fromlist, level)


if __name__ == "__main__":
    tensorflow.compat.v1.disable_v2_behavior()
    ops.Tensor, ops.IndexedSlices = tensorflow.Tensor, tensorflow.IndexedSlices
    program = sys.argv[1]
    sys.argv = sys.argv[1:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(program)))  # its sibling modules, as `python PROGRAM` finds them
    own_builtins = {**vars(builtins), "__import__": _import}
    runpy.run_path(program, init_globals={"__builtins__": own_builtins}, run_name="__main__")
