"""Multi-GPU trainer: MirroredStrategy through RunConfig, an RMSProp wide model, a tf.data pipeline over
TFRecord files; a second model also evaluated across the replicas."""
import argparse
import os

import tensorflow as tf

tf1 = tf.compat.v1

FEATURES = {
    "age": tf.io.FixedLenFeature([1], tf.float32),
    "hours": tf.io.FixedLenFeature([1], tf.float32),
    "label": tf.io.FixedLenFeature([1], tf.int64),
}


def parse(serialized):
    example = tf.io.parse_single_example(serialized, FEATURES)
    label = example.pop("label")
    return example, label


def make_input_fn(pattern, batch_size, training):
    def input_fn():
        files = tf.data.Dataset.list_files(pattern, shuffle=training)
        records = files.interleave(tf.data.TFRecordDataset, cycle_length=4)
        if training:
            records = records.shuffle(10000).repeat()
        return records.map(parse).batch(batch_size).prefetch(2)

    return input_fn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="/data/census")
    parser.add_argument("--job_dir", default="/tmp/multi_gpu")
    parser.add_argument("--steps", type=int, default=20000)
    args = parser.parse_args()

    columns = [tf.feature_column.numeric_column("age"), tf.feature_column.numeric_column("hours")]
    strategy = tf.distribute.MirroredStrategy()
    config = tf.estimator.RunConfig(
        model_dir=args.job_dir,
        train_distribute=strategy,
        save_checkpoints_steps=1000,
        keep_checkpoint_max=3,
    )
    wide = tf.estimator.LinearClassifier(
        feature_columns=columns,
        optimizer=tf.keras.optimizers.legacy.RMSprop(learning_rate=0.001, momentum=0.9),
        config=config,
    )
    wide.train(input_fn=make_input_fn(os.path.join(args.data, "train-*"), 64, True), max_steps=args.steps)

    # A second run on one device, evaluated across the replicas as well: stays an Estimator.
    eval_config = tf.estimator.RunConfig(
        model_dir=args.job_dir + "_eval", train_distribute=strategy, eval_distribute=strategy
    )
    checked = tf.estimator.LinearClassifier(feature_columns=columns, optimizer="RMSProp", config=eval_config)
    checked.train(input_fn=make_input_fn(os.path.join(args.data, "train-*"), 64, True), steps=100)
    print(checked.evaluate(input_fn=make_input_fn(os.path.join(args.data, "eval-*"), 256, False)))


if __name__ == "__main__":
    main()
