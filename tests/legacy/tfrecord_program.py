"""A canned estimator reading TFRecords (a dataset whose length nothing knows before reading it), trained until
the input ends, then on to a step total. Written as Estimator users wrote it; run as it is under TF 2.15 +
tensorflow-estimator, and after `migrate rewrite` (tier 1) under the newest TensorFlow
(tests/test_graph_input.py).

The first train call ends when its two epochs end (36 batches of 100, the last short); the second trains on
to max_steps=50, 14 more steps, which counts on the first having ended at step 36. Checkpoints at 0 and at the
end of each call.
"""

import argparse
import functools
import os

import tensorflow as tf
from sklearn.datasets import load_digits

tf1 = tf.compat.v1


def write_records(path):
    digits = load_digits()
    with tf.io.TFRecordWriter(path) as writer:
        for image, label in zip(digits.images.reshape(-1, 64), digits.target):
            example = tf.train.Example(features=tf.train.Features(feature={
                "x": tf.train.Feature(float_list=tf.train.FloatList(value=image / 16.0)),
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[int(label >= 5)])),
            }))
            writer.write(example.SerializeToString())


def parse(record):
    parsed = tf.io.parse_single_example(record, {
        "x": tf.io.FixedLenFeature([64], tf.float32),
        "label": tf.io.FixedLenFeature([], tf.int64),
    })
    return {"x": parsed["x"]}, parsed["label"]


def train_input_fn(records):
    return tf.data.TFRecordDataset(records).map(parse).repeat(2).batch(100)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    args = parser.parse_args()
    records = os.path.join(os.path.dirname(os.path.abspath(args.model_dir)), "digits.tfrecord")
    write_records(records)

    config = tf1.estimator.RunConfig(save_checkpoints_steps=1000, tf_random_seed=7)
    classifier = tf1.estimator.LinearClassifier(
        feature_columns=[tf1.feature_column.numeric_column("x", shape=[64])],
        optimizer=tf1.train.GradientDescentOptimizer(0.005),
        model_dir=args.model_dir,
        config=config,
    )
    classifier.train(input_fn=functools.partial(train_input_fn, records))
    classifier.train(input_fn=functools.partial(train_input_fn, records), max_steps=50)


if __name__ == "__main__":
    main()
