"""A custom-model_fn Estimator written for TensorFlow 1.x, for tests/test_tf1_era_names.py: its TensorFlow
names are 1.x's plain ones (`tf.app.flags`, `tf.logging`, `tf.layers.dense`, `tf.get_variable` in a
`tf.variable_scope`, `tf.nn.dropout(x, keep_prob)`, `tf.losses`, `tf.metrics`, `tf.summary.scalar`,
`tf.train.AdamOptimizer`, a dataset's `make_one_shot_iterator()`, a dimension's `.value`), none of which means the
same in TensorFlow 2.
The reference run gives it TensorFlow 1.x's API (tests/legacy/run_as_tf1.py: its `import tensorflow` is
`tensorflow.compat.v1` under TF 2.15); `migrate rewrite` spells each name `tf.compat.v1.<name>`. Fixed batch
order, a checkpoint every 10 steps (step 0 included); dropout's keep probability is a flag (1.0 in the tests:
no random op). With --results, the estimator is evaluated on all of digits and predicts its first 20 examples.
With --export_dir it is exported, fed raw features described by placeholders built in `main`, as CTR projects
(DeepFM and its copies) gave `build_raw_serving_input_receiver_fn` their serving inputs.
"""

import json

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

tf.app.flags.DEFINE_string("model_dir", None, "where checkpoints go")
tf.app.flags.DEFINE_integer("max_steps", 20, "steps to train, in total")
tf.app.flags.DEFINE_float("keep_prob", 0.5, "dropout's keep probability")
tf.app.flags.DEFINE_string("results", None, "where the evaluation and predictions go (JSON)")
tf.app.flags.DEFINE_string("export_dir", None, "where the SavedModel goes")
FLAGS = tf.app.flags.FLAGS
BATCH = 32


def input_fn(mode):
    digits = load_digits()
    x, y = (digits.data / 16.0).astype(np.float32), digits.target.astype(np.int32)
    dataset = tf.data.Dataset.from_tensor_slices(({"pixels": x}, y))
    if mode == tf.estimator.ModeKeys.TRAIN:
        dataset = dataset.repeat()
    return dataset.batch(BATCH).make_one_shot_iterator().get_next()


def predict_input_fn():
    digits = load_digits()
    return tf.data.Dataset.from_tensor_slices({"pixels": (digits.data[:20] / 16.0).astype(np.float32)}).batch(8)


def model_fn(features, labels, mode, params):
    with tf.variable_scope("hidden"):
        width = features["pixels"].get_shape()[1].value  # a Dimension in TensorFlow 1.x
        w = tf.get_variable("w", [width, 32], initializer=tf.glorot_uniform_initializer(seed=1))
        net = tf.nn.relu(tf.matmul(features["pixels"], w))
    if mode == tf.estimator.ModeKeys.TRAIN:
        net = tf.nn.dropout(net, params["keep_prob"])
    logits = tf.layers.dense(net, 10, name="logits", kernel_initializer=tf.glorot_uniform_initializer(seed=2))
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"classes": tf.argmax(logits, 1), "logits": logits})
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    tf.summary.scalar("cross_entropy", loss)
    if mode == tf.estimator.ModeKeys.EVAL:
        accuracy = tf.metrics.accuracy(labels, tf.argmax(logits, 1))
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"accuracy": accuracy})
    optimizer = tf.train.AdamOptimizer(params["learning_rate"])
    train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def main(_):
    tf.logging.set_verbosity(tf.logging.INFO)
    config = tf.estimator.RunConfig(model_dir=FLAGS.model_dir, save_checkpoints_steps=10)
    estimator = tf.estimator.Estimator(model_fn=model_fn, config=config,
                                       params={"keep_prob": FLAGS.keep_prob, "learning_rate": 0.01})
    estimator.train(lambda: input_fn(tf.estimator.ModeKeys.TRAIN), max_steps=FLAGS.max_steps)
    if FLAGS.results:
        metrics = estimator.evaluate(lambda: input_fn(tf.estimator.ModeKeys.EVAL))
        predictions = list(estimator.predict(predict_input_fn))
        with tf.gfile.GFile(FLAGS.results, "w") as out:
            json.dump({"metrics": {k: float(v) for k, v in metrics.items()},
                       "classes": [int(p["classes"]) for p in predictions],
                       "logits": [p["logits"].tolist() for p in predictions]}, out)
    if FLAGS.export_dir:
        feature_spec = {"pixels": tf.placeholder(dtype=tf.float32, shape=[None, 64], name="pixels")}
        serving_input_receiver_fn = tf.estimator.export.build_raw_serving_input_receiver_fn(feature_spec)
        estimator.export_savedmodel(FLAGS.export_dir, serving_input_receiver_fn)


if __name__ == "__main__":
    tf.app.run()
