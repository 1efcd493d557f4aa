"""Train, evaluate, then export for TF Serving: wide & deep with a parsing receiver; a regressor exported with
the old export_savedmodel name and raw tensors; a third model whose receiver is written by hand."""
import os

import numpy as np
import tensorflow as tf
from tensorflow import estimator as tfe

flags = tf.compat.v1.flags
flags.DEFINE_string("model_dir", "/tmp/serving", "where checkpoints go")
flags.DEFINE_string("export_dir", "/tmp/serving/export", "where SavedModels go")
flags.DEFINE_integer("train_steps", 2000, "total steps")
FLAGS = flags.FLAGS

OCCUPATIONS = ["clerk", "engineer", "teacher", "nurse"]


def build_columns():
    age = tf.feature_column.numeric_column("age")
    occupation = tf.feature_column.categorical_column_with_vocabulary_list("occupation", OCCUPATIONS)
    city = tf.feature_column.categorical_column_with_hash_bucket("city", hash_bucket_size=100)
    wide = [occupation, city, tf.feature_column.bucketized_column(age, [25, 35, 45, 55])]
    deep = [age, tf.feature_column.indicator_column(occupation), tf.feature_column.embedding_column(city, 8)]
    return wide, deep


def synthetic(n, seed):
    rng = np.random.RandomState(seed)
    features = {
        "age": rng.randint(18, 70, n).astype(np.float32),
        "occupation": rng.choice(OCCUPATIONS, n),
        "city": np.char.add("city", rng.randint(0, 300, n).astype(str)),
    }
    return features, (features["age"] > 40).astype(np.int32)


def input_fn(seed, epochs):
    def _fn():
        features, labels = synthetic(4096, seed)
        return tf.data.Dataset.from_tensor_slices((features, labels)).repeat(epochs).batch(128)

    return _fn


def serving_input_receiver_fn():
    receiver = {"age": tf.compat.v1.placeholder(tf.float32, [None], name="age")}
    return tfe.export.ServingInputReceiver(receiver, receiver)


def main(_):
    wide, deep = build_columns()
    config = tfe.RunConfig(model_dir=FLAGS.model_dir, save_checkpoints_steps=500)
    model = tfe.DNNLinearCombinedClassifier(
        linear_feature_columns=wide, dnn_feature_columns=deep, dnn_hidden_units=[64, 32], config=config
    )
    model.train(input_fn=input_fn(0, None), max_steps=FLAGS.train_steps)
    print(model.evaluate(input_fn=input_fn(1, 1)))
    feature_spec = tf.feature_column.make_parse_example_spec(wide + deep)
    serving_fn = tfe.export.build_parsing_serving_input_receiver_fn(feature_spec)
    exported = model.export_saved_model(FLAGS.export_dir, serving_fn)
    print("exported to", exported.decode("utf-8"))

    regressor = tf.compat.v1.estimator.LinearRegressor(
        feature_columns=[tf.feature_column.numeric_column("age")], model_dir=os.path.join(FLAGS.model_dir, "age")
    )
    regressor.train(input_fn=input_fn(2, None), steps=500)
    regressor.export_savedmodel(
        os.path.join(FLAGS.export_dir, "age"),
        tf.compat.v1.estimator.export.build_raw_serving_input_receiver_fn({"age": tf.zeros([1])}),
        strip_default_attrs=True,
    )

    by_hand = tfe.LinearClassifier(
        feature_columns=[tf.feature_column.numeric_column("age")], model_dir=os.path.join(FLAGS.model_dir, "hand")
    )
    by_hand.train(input_fn=input_fn(3, None), steps=500)
    by_hand.export_saved_model(os.path.join(FLAGS.export_dir, "hand"), serving_input_receiver_fn)


if __name__ == "__main__":
    tf.compat.v1.app.run(main)
