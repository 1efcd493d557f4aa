"""Early stopping on an eval metric, as the Estimator API offered it."""
import numpy as np
import tensorflow as tf

x = np.random.rand(300, 3).astype(np.float32)
y = (x[:, 0] > 0.5).astype(np.int32)
columns = [tf.feature_column.numeric_column("x", shape=(3,))]
classifier = tf.estimator.DNNClassifier(
    hidden_units=[8], feature_columns=columns, model_dir="/tmp/early",
    config=tf.estimator.RunConfig(save_checkpoints_steps=100),
)
stop = tf.estimator.experimental.stop_if_no_decrease_hook(classifier, "loss", max_steps_without_decrease=1000)
train_input = tf.compat.v1.estimator.inputs.numpy_input_fn(x={"x": x}, y=y, num_epochs=None, shuffle=True)
classifier.train(input_fn=train_input, hooks=[stop], max_steps=10000)
