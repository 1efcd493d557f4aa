"""LinearClassifier fed by an input_fn that returns a tf.data.Dataset."""
import tensorflow as tf


def train_input_fn(batch_size=128):
    features = {"age": tf.random.uniform([1024], 18, 90), "hours": tf.random.uniform([1024], 0, 80)}
    labels = tf.cast(features["hours"] > 40, tf.int32)
    return tf.data.Dataset.from_tensor_slices((features, labels)).shuffle(1024).repeat().batch(batch_size)


columns = [tf.feature_column.numeric_column("age"), tf.feature_column.numeric_column("hours")]
model = tf.estimator.LinearClassifier(
    feature_columns=columns,
    model_dir="/tmp/linear_ds",
    config=tf.estimator.RunConfig(save_checkpoints_steps=200),
)
model.train(input_fn=train_input_fn, steps=2000)
