"""absl-flags style trainer: settings from flags, train then evaluate and predict."""
import numpy as np
import tensorflow as tf
from absl import app, flags

FLAGS = flags.FLAGS
flags.DEFINE_string("model_dir", "/tmp/flags_model", "where checkpoints go")
flags.DEFINE_integer("save_steps", 100, "checkpoint cadence")
flags.DEFINE_integer("train_steps", 1000, "total steps")


def main(_):
    pixels = np.random.rand(256, 16).astype(np.float32)
    labels = np.random.randint(0, 4, size=256)
    columns = [tf.feature_column.numeric_column("pixels", shape=(16,))]
    config = tf.estimator.RunConfig(model_dir=FLAGS.model_dir, save_checkpoints_steps=FLAGS.save_steps)
    classifier = tf.estimator.DNNClassifier(
        hidden_units=[32, 16], feature_columns=columns, n_classes=4, dropout=0.1, config=config
    )
    train_input = tf.compat.v1.estimator.inputs.numpy_input_fn(
        x={"pixels": pixels}, y=labels, batch_size=32, num_epochs=None, shuffle=True
    )
    classifier.train(input_fn=train_input, max_steps=FLAGS.train_steps)
    eval_input = tf.compat.v1.estimator.inputs.numpy_input_fn(x={"pixels": pixels}, y=labels, shuffle=False)
    print(classifier.evaluate(input_fn=eval_input))
    print(list(classifier.predict(input_fn=eval_input))[:3])


if __name__ == "__main__":
    app.run(main)
