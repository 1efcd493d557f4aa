# A Python 2.7 program of the TF 1.4 era: print statements, xrange, integer division, dict.iteritems.
import argparse

import numpy as np
import tensorflow as tf

NUM_EXAMPLES = 1000


def make_input_fn(features, labels, batch_size, epochs):
    def input_fn():
        dataset = tf.data.Dataset.from_tensor_slices((features, labels))
        return dataset.repeat(epochs).batch(batch_size)
    return input_fn


def main(args):
    features = {"x": np.random.rand(NUM_EXAMPLES, 4).astype(np.float32)}
    labels = (features["x"].sum(axis=1) > 2).astype(np.int32)
    for name, column in features.iteritems():
        print "feature %s: %s" % (name, column.shape)
    config = tf.estimator.RunConfig(model_dir=args.model_dir, save_checkpoints_steps=NUM_EXAMPLES / args.batch_size)
    classifier = tf.estimator.DNNClassifier(
        feature_columns=[tf.feature_column.numeric_column("x", shape=[4])],
        hidden_units=[8],
        config=config)
    steps_per_epoch = NUM_EXAMPLES / args.batch_size
    for epoch in xrange(args.epochs):
        classifier.train(input_fn=make_input_fn(features, labels, args.batch_size, 1), steps=steps_per_epoch)
        metrics = classifier.evaluate(input_fn=make_input_fn(features, labels, args.batch_size, 1))
        print "epoch %d: accuracy %.3f" % (epoch, round(metrics["accuracy"], 3))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", default="/tmp/python2_trainer")
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=3)
    main(parser.parse_args())
