"""Run a program written with tf_slim under the legacy environment: `python run_with_tf_slim.py PROGRAM ARGS...`.

tf-slim 1.1 (its last release) reads `tensorflow.python.framework.ops.Tensor` and `.IndexedSlices` in `batch_norm`,
`dropout` and `optimize_loss`; TensorFlow 1.x, which those programs ran on, defined them there, TensorFlow 2.15 no
longer does. The aliases are given back (as compat.tf1_programs.keep_tf_slim_working gives them to a migrated
program), then the program runs as `__main__`.
"""

import runpy
import sys

import tensorflow as tf
from tensorflow.python.framework import ops

if __name__ == "__main__":
    ops.Tensor, ops.IndexedSlices = tf.Tensor, tf.IndexedSlices
    program = sys.argv[1]
    sys.argv = sys.argv[1:]
    runpy.run_path(program, run_name="__main__")
