"""A linear classifier of the digits, checkpointing every 50 steps."""
import sys

import tensorflow as tf

from data import eval_input_fn, result_line, train_input_fn

model_dir, steps = sys.argv[1], int(sys.argv[2])
columns = [tf.feature_column.numeric_column("pixels", shape=[64])]
config = tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=50, keep_checkpoint_max=3)
classifier = tf.estimator.LinearClassifier(feature_columns=columns, n_classes=10, config=config)
classifier.train(input_fn=train_input_fn, max_steps=steps)
print(result_line(classifier.evaluate(input_fn=eval_input_fn)))
