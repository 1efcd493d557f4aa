"""A custom Estimator fed as TF 1.x's blog posts taught (the "IteratorInitializerHook" pattern): the input_fn
makes placeholders for the arrays, a dataset from them and an initializable iterator, and hands a hook the
function that initializes that iterator with the arrays fed (`sess.run(iterator.initializer, feed_dict=...)`);
the hook calls it in `after_create_session`. TensorFlow 1.x names throughout (run under TF 2.15 by
tests/legacy/run_as_tf1.py; migrated by `migrate rewrite`: tests/test_graph_input.py).

Fixed batch order, a seeded graph (tf_random_seed); checkpoints at step 0 and every 20 steps; 60 steps; then an
evaluation of 5 batches fed by a hook of its own; metrics to --metrics_out. With --canned the estimator is a
DNNClassifier fed the same way (its features a dict).
"""

import argparse
import json

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits


class IteratorInitializerHook(tf.train.SessionRunHook):
    """Hook to initialise data iterator after Session is created."""

    def __init__(self):
        super().__init__()
        self.iterator_initializer_func = None

    def after_create_session(self, session, coord):
        """Initialise the iterator after the session has been created."""
        self.iterator_initializer_func(session)


def get_inputs(batch_size, images, labels, repeat, as_dict=False):
    iterator_initializer_hook = IteratorInitializerHook()

    def inputs():
        with tf.name_scope("Training_data"):
            images_placeholder = tf.placeholder(images.dtype, images.shape)
            labels_placeholder = tf.placeholder(labels.dtype, labels.shape)
            dataset = tf.data.Dataset.from_tensor_slices((images_placeholder, labels_placeholder))
            if repeat:
                dataset = dataset.repeat(None)
            dataset = dataset.batch(batch_size)
            iterator = dataset.make_initializable_iterator()
            next_example, next_label = iterator.get_next()
            iterator_initializer_hook.iterator_initializer_func = \
                lambda sess: sess.run(iterator.initializer,
                                      feed_dict={images_placeholder: images, labels_placeholder: labels})
            return ({"x": next_example} if as_dict else next_example), next_label

    return inputs, iterator_initializer_hook


def model_fn(features, labels, mode, params):
    hidden = tf.layers.dense(features, 16, activation=tf.nn.relu, name="hidden")
    logits = tf.layers.dense(hidden, 10, name="logits")
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=tf.train.get_global_step())
    accuracy = tf.metrics.accuracy(labels, tf.argmax(logits, 1))
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops={"accuracy": accuracy})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--metrics_out", required=True)
    parser.add_argument("--canned", action="store_true")
    args = parser.parse_args()

    digits = load_digits()
    images = (digits.data / 16.0).astype(np.float32)
    labels = digits.target.astype(np.int32)
    config = tf.estimator.RunConfig(save_checkpoints_steps=20, tf_random_seed=1)
    if args.canned:
        estimator = tf.estimator.DNNClassifier(
            hidden_units=[16], feature_columns=[tf.feature_column.numeric_column("x", shape=[64])], n_classes=10,
            optimizer=tf.train.GradientDescentOptimizer(0.5), model_dir=args.model_dir, config=config)
    else:
        estimator = tf.estimator.Estimator(model_fn=model_fn, model_dir=args.model_dir, config=config)
    train_input_fn, train_input_hook = get_inputs(64, images, labels, repeat=True, as_dict=args.canned)
    estimator.train(input_fn=train_input_fn, max_steps=60, hooks=[train_input_hook])
    eval_input_fn, eval_input_hook = get_inputs(200, images, labels, repeat=False, as_dict=args.canned)
    metrics = estimator.evaluate(input_fn=eval_input_fn, steps=5, hooks=[eval_input_hook])
    with open(args.metrics_out, "w") as out:
        json.dump({key: float(value) for key, value in metrics.items()}, out)


if __name__ == "__main__":
    main()
