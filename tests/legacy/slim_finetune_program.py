"""Fine-tuning from a pretrained checkpoint as tf-slim programs did: a Scaffold whose init_fn runs slim's
`assign_from_checkpoint_fn` over `get_variables_to_restore(exclude=["logits"])` (the global step, not in
the pretrained checkpoint, skipped: `ignore_missing_vars=True`) (the new head, zero-initialised,
trains from scratch), and a histogram summary of each trainable variable named by `v.op.name`. For
tests/test_slim_finetune.py. TensorFlow 1.x code, run by the legacy reference as 1.x ran it
(tests/legacy/run_as_tf1.py). Writes the pretrained checkpoint to --pretrained when it is not there, trains to
--max_steps from scratch, and writes every variable's value to --results as JSON.
"""

import argparse
import json
import os

import numpy as np
import tensorflow as tf
import tf_slim as slim


def network(x):
    net = slim.fully_connected(x, 6, scope="backbone/fc1")
    return slim.fully_connected(net, 3, activation_fn=None, weights_initializer=tf.zeros_initializer(),
                                scope="logits")


def make_pretrained(path):
    with tf.Graph().as_default():
        network(tf.zeros([1, 4]))
        with tf.Session() as sess:
            for variable in tf.global_variables():
                shape = variable.shape.as_list()
                sess.run(variable.assign(np.linspace(-0.5, 0.5, int(np.prod(shape))).reshape(shape)))
            tf.train.Saver().save(sess, path)


def model_fn(features, labels, mode, params):
    logits = network(features["x"])
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    for variable in tf.trainable_variables():
        tf.summary.histogram(variable.op.name, variable)
    variables_to_restore = slim.get_variables_to_restore(exclude=["logits"])
    init_assign = slim.assign_from_checkpoint_fn(params["pretrained"], variables_to_restore, ignore_missing_vars=True)
    scaffold = tf.train.Scaffold(init_fn=lambda scaffold, sess: init_assign(sess))
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, scaffold=scaffold)


def input_fn():
    x = np.linspace(-1, 1, 64, dtype=np.float32).reshape(16, 4)
    return tf.data.Dataset.from_tensor_slices(({"x": x}, np.arange(16) % 3)).repeat().batch(4)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=10)
    parser.add_argument("--results", required=True)
    parser.add_argument("--pretrained", required=True)
    args = parser.parse_args()
    if not os.path.exists(args.pretrained + ".index"):
        make_pretrained(args.pretrained)
    config = tf.estimator.RunConfig(save_checkpoints_steps=5, save_summary_steps=5)
    estimator = tf.estimator.Estimator(model_fn, model_dir=args.model_dir, config=config,
                                       params={"pretrained": args.pretrained})
    estimator.train(input_fn, max_steps=args.max_steps)
    values = {name: estimator.get_variable_value(name).tolist() for name in estimator.get_variable_names()
              if name.startswith(("backbone", "logits"))}
    with open(args.results, "w") as out:
        json.dump(values, out)


if __name__ == "__main__":
    main()
