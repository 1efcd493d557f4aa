"""The TensorFlow 1 half of the guide "Migrate checkpoint saving" / fault tolerance (../shared/seeds/001),
written out as its notebook runs it: a hook interrupts training at the fifth step, the classifier is built
again on the same model_dir and trained on. Two changes, both to the data: scikit-learn's digits (8x8,
shipped with the package) instead of MNIST (a download), and the model_dir from the command line instead of
tempfile.mkdtemp() so the test can read it. The last line prints the final step and test accuracy."""
import json
import sys
import tempfile

import numpy as np
import tensorflow.compat.v1 as tf1
from sklearn.datasets import load_digits

digits = load_digits()
x_train, y_train = digits.images[:1500], digits.target[:1500]
x_test, y_test = digits.images[1500:], digits.target[1500:]
x_train, x_test = x_train / 16.0, x_test / 16.0


class InterruptHook(tf1.train.SessionRunHook):
  # A hook for artificially interrupting training.
  def begin(self):
    self._step = -1

  def before_run(self, run_context):
    self._step += 1

  def after_run(self, run_context, run_values):
    if self._step == 5:
      raise RuntimeError('Interruption')


feature_columns = [tf1.feature_column.numeric_column("x", shape=[8, 8])]
config = tf1.estimator.RunConfig(save_summary_steps=1,
                                 save_checkpoints_steps=1)

path = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()

classifier = tf1.estimator.DNNClassifier(
    feature_columns=feature_columns,
    hidden_units=[256, 32],
    optimizer=tf1.train.AdamOptimizer(0.001),
    n_classes=10,
    dropout=0.2,
    model_dir=path,
    config = config
)

train_input_fn = tf1.estimator.inputs.numpy_input_fn(
    x={"x": x_train},
    y=y_train.astype(np.int32),
    num_epochs=10,
    batch_size=50,
    shuffle=True,
)

try:
  classifier.train(input_fn=train_input_fn,
                   hooks=[InterruptHook()],
                   max_steps=10)
except Exception as e:
  print(f'{type(e).__name__}:{e}')

classifier = tf1.estimator.DNNClassifier(
    feature_columns=feature_columns,
    hidden_units=[256, 32],
    optimizer=tf1.train.AdamOptimizer(0.001),
    n_classes=10,
    dropout=0.2,
    model_dir=path,
    config = config
)
classifier.train(input_fn=train_input_fn,
                   max_steps = 10)

eval_input_fn = tf1.estimator.inputs.numpy_input_fn(
    x={"x": x_test},
    y=y_test.astype(np.int32),
    num_epochs=1,
    shuffle=False,
)
metrics = classifier.evaluate(input_fn=eval_input_fn)
print(json.dumps({"global_step": int(metrics["global_step"]), "accuracy": float(metrics["accuracy"])}))
