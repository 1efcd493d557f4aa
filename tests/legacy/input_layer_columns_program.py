"""A custom model_fn over the census tutorial's kinds of feature columns, for tests/test_input_layer_columns.py: both
the input of `migrate rewrite` and, unchanged, the legacy reference run.

`tf.compat.v1.feature_column.input_layer` over a numeric column, a bucketized one, an indicator of a vocabulary
list, an embedding of a hashed column and an embedding of a cross (the two embeddings are variables of the input
layer: `input_layer/<column>_embedding/embedding_weights`), TF1 dense layers looped over params, TF1 Adagrad.
Generated census-like rows, fixed batch order, a checkpoint every 10 steps (step 0 included). With --results, the
estimator is evaluated on every row, predicts the first 20, and is exported with a parsing receiver of the columns'
tf.Examples, whose signature then serves the first 20 rows (all written as JSON).
"""

import argparse
import json
import os

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1


def _rows(count=512):
    rng = np.random.RandomState(0)
    features = {
        "age": rng.randint(18, 80, size=count).astype(np.float32),
        "education": rng.choice(["Bachelors", "HS-grad", "Masters", "Doctorate"], size=count),
        "occupation": rng.choice(["Tech", "Sales", "Craft", "Exec", "Other"], size=count),
        "hours": rng.uniform(10, 60, size=count).astype(np.float32),
    }
    labels = ((features["age"] > 40) & (features["hours"] > 35)).astype(np.int32)
    return features, labels


education = tf.feature_column.categorical_column_with_vocabulary_list(
    "education", ["Bachelors", "HS-grad", "Masters", "Doctorate"])
occupation = tf.feature_column.categorical_column_with_hash_bucket("occupation", hash_bucket_size=20)
PARAMS = {
    "feature_columns": [
        tf.feature_column.numeric_column("hours"),
        tf.feature_column.bucketized_column(tf.feature_column.numeric_column("age"), boundaries=[25, 35, 45, 55]),
        tf.feature_column.indicator_column(education),
        tf.feature_column.embedding_column(occupation, dimension=4),
        tf.feature_column.embedding_column(
            tf.feature_column.crossed_column([education, "occupation"], hash_bucket_size=50), dimension=3),
    ],
    "hidden_units": [16, 8],
    "n_classes": 2,
}


def model_fn(features, labels, mode, params):
    net = tf1.feature_column.input_layer(features, params["feature_columns"])
    for units in params["hidden_units"]:
        net = tf1.layers.dense(net, units=units, activation=tf.nn.relu)
    logits = tf1.layers.dense(net, params["n_classes"], activation=None)
    predicted_classes = tf.argmax(logits, 1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"class_ids": predicted_classes[:, tf.newaxis],
                                                             "probabilities": tf.nn.softmax(logits)})
    loss = tf1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    accuracy = tf1.metrics.accuracy(labels=labels, predictions=predicted_classes, name="acc_op")
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"accuracy": accuracy})
    optimizer = tf1.train.AdagradOptimizer(learning_rate=0.1)
    train_op = optimizer.minimize(loss, global_step=tf1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def train_input_fn():
    return tf.data.Dataset.from_tensor_slices(_rows()).repeat().batch(32)


def eval_input_fn():
    return tf.data.Dataset.from_tensor_slices(_rows()).batch(128)


def _examples(count):
    """The first `count` rows as serialized tf.Examples."""
    features, _ = _rows()
    examples = []
    for index in range(count):
        feature = {name: tf.train.Feature(float_list=tf.train.FloatList(value=[features[name][index]]))
                   for name in ("age", "hours")}
        feature.update({name: tf.train.Feature(bytes_list=tf.train.BytesList(value=[features[name][index].encode()]))
                        for name in ("education", "occupation")})
        examples.append(tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString())
    return examples


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=20)
    parser.add_argument("--results")
    args = parser.parse_args()
    classifier = tf.estimator.Estimator(model_fn=model_fn, model_dir=args.model_dir, params=PARAMS,
                                        config=tf.estimator.RunConfig(save_checkpoints_steps=10))
    classifier.train(input_fn=train_input_fn, max_steps=args.max_steps)
    if args.results:
        evaluation = classifier.evaluate(input_fn=eval_input_fn)
        predictions = [prediction["probabilities"].tolist()
                       for prediction, _ in zip(classifier.predict(input_fn=eval_input_fn), range(20))]
        receiver = tf.estimator.export.build_parsing_serving_input_receiver_fn(
            tf.feature_column.make_parse_example_spec(PARAMS["feature_columns"]))
        export_dir = classifier.export_saved_model(os.path.join(args.model_dir, "export"), receiver)
        serve = tf.saved_model.load(export_dir).signatures["serving_default"]
        served = serve(examples=tf.constant(_examples(20)))
        with open(args.results, "w") as results:
            json.dump({"evaluation": {key: float(value) for key, value in evaluation.items()},
                       "probabilities": predictions,
                       "served": {key: value.numpy().tolist() for key, value in served.items()}}, results)


if __name__ == "__main__":
    main()
