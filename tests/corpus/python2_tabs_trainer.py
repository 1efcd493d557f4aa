# A Python 2.7 trainer of the TF 1.4 era, edited in two editors: most blocks indented with four spaces, some
# with a tab, which Python 2 read as indenting to the next multiple of eight columns.
import argparse

import numpy as np
import tensorflow as tf

NUM_EXAMPLES = 1000
USAGE = """Trains a classifier on random points, one evaluation an epoch.
	python python2_tabs_trainer.py --model_dir DIR --epochs N
"""


def make_input_fn(features, labels, batch_size):
    def input_fn():
	dataset = tf.data.Dataset.from_tensor_slices((features, labels))
	return dataset.batch(batch_size)
    return input_fn


def main(args):
    features = {"x": np.random.rand(NUM_EXAMPLES, 4).astype(np.float32)}
    labels = (features["x"].sum(axis=1) > 2).astype(np.int32)
    config = tf.estimator.RunConfig(model_dir=args.model_dir, save_checkpoints_steps=NUM_EXAMPLES / args.batch_size)
    classifier = tf.estimator.DNNClassifier(
	feature_columns=[tf.feature_column.numeric_column("x", shape=[4])],
        hidden_units=[8],
	config=config)
    for epoch in xrange(args.epochs):
	classifier.train(input_fn=make_input_fn(features, labels, args.batch_size), steps=NUM_EXAMPLES / args.batch_size)
        metrics = classifier.evaluate(input_fn=make_input_fn(features, labels, args.batch_size))
	if metrics["accuracy"] >= 0:
	    print "epoch %d: accuracy %.3f" % (epoch, round(metrics["accuracy"], 3))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=USAGE)
    parser.add_argument("--model_dir", default="/tmp/python2_tabs_trainer")
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=3)
    main(parser.parse_args())
