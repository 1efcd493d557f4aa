"""Gradient boosted trees: no Keras counterpart in TensorFlow."""
import numpy as np
import tensorflow as tf

x = np.random.rand(400, 4).astype(np.float32)
y = (x.sum(axis=1) > 2).astype(np.int32)
columns = [
    tf.feature_column.bucketized_column(tf.feature_column.numeric_column("f", shape=(4,)), [0.25, 0.5, 0.75])
]
trees = tf.estimator.BoostedTreesClassifier(
    feature_columns=columns, n_batches_per_layer=1, model_dir="/tmp/trees",
    config=tf.estimator.RunConfig(save_checkpoints_steps=50),
)
trees.train(input_fn=tf.compat.v1.estimator.inputs.numpy_input_fn(x={"f": x}, y=y, shuffle=True), max_steps=200)
