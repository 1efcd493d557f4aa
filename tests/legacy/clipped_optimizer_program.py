"""Canned estimators trained with clipped gradients, as the Machine Learning Crash Course's exercises wrote them
(TensorFlow 1.x: `tf.contrib.estimator.clip_gradients_by_norm`), for tests/test_clipped_optimizer.py.

A LinearRegressor on one feature of values in the thousands, GradientDescent clipped to a global norm of 5 (without
the clipping it diverges to a NaN loss), trained in five periods of `steps / periods` steps, each followed by a
predict() over the data and its RMSE; its weight and bias read with get_variable_value. Then a DNNClassifier over
variable-length string terms (TFRecord-free: from_generator, padded_batch) with an embedding column of a vocabulary
list, Adam clipped to a global norm of 0.1 (the embedding's gradients are sparse), evaluated; its embedding read with
get_variable_value. Their model_dirs: model_dir/linear and model_dir/dnn. Everything read goes to the results file
(JSON). tf.contrib is TensorFlow 1.x's: the test runs the reference under 2.15 respelled.
"""

from __future__ import print_function

import json
import math
import sys

import numpy as np
import pandas as pd
import tensorflow as tf
from tensorflow.python.data import Dataset

rng = np.random.RandomState(0)
california_housing_dataframe = pd.DataFrame({
    "total_rooms": rng.uniform(100, 5000, 400),
    "median_house_value": rng.uniform(50, 500, 400),
})
california_housing_dataframe["median_house_value"] /= 1000.0
TERMS = ["great", "bad", "boring", "fun", "movie", "plot", "awful", "loved"]


def my_input_fn(features, targets, batch_size=1, shuffle=True, num_epochs=None):
    features = {key: np.array(value) for key, value in dict(features).items()}
    ds = Dataset.from_tensor_slices((features, targets))
    ds = ds.batch(batch_size).repeat(num_epochs)
    if shuffle:
        ds = ds.shuffle(buffer_size=10000)
    features, labels = ds.make_one_shot_iterator().get_next()
    return features, labels


def train_model(learning_rate, steps, batch_size, model_dir, input_feature="total_rooms"):
    periods = 5
    steps_per_period = steps / periods
    my_feature_data = california_housing_dataframe[[input_feature]]
    targets = california_housing_dataframe["median_house_value"]
    feature_columns = [tf.feature_column.numeric_column(input_feature)]
    training_input_fn = lambda: my_input_fn(my_feature_data, targets, batch_size=batch_size, shuffle=False)
    prediction_input_fn = lambda: my_input_fn(my_feature_data, targets, num_epochs=1, shuffle=False)
    my_optimizer = tf.train.GradientDescentOptimizer(learning_rate=learning_rate)
    my_optimizer = tf.contrib.estimator.clip_gradients_by_norm(my_optimizer, 5.0)
    linear_regressor = tf.estimator.LinearRegressor(
        feature_columns=feature_columns,
        optimizer=my_optimizer,
        model_dir=model_dir,
    )
    root_mean_squared_errors = []
    for period in range(0, periods):
        linear_regressor.train(input_fn=training_input_fn, steps=steps_per_period)
        predictions = linear_regressor.predict(input_fn=prediction_input_fn)
        predictions = np.array([item["predictions"][0] for item in predictions])
        root_mean_squared_error = math.sqrt(np.mean((predictions - targets) ** 2))
        print("  period %02d : %0.2f" % (period, root_mean_squared_error))
        root_mean_squared_errors.append(root_mean_squared_error)
    weight = linear_regressor.get_variable_value("linear/linear_model/%s/weights" % input_feature)
    bias = linear_regressor.get_variable_value("linear/linear_model/bias_weights")
    return root_mean_squared_errors, weight, bias


def reviews():
    for index in range(120):
        words = [TERMS[(index * 7 + k * 3) % len(TERMS)] for k in range(1 + index % 5)]
        yield {"terms": words}, [float(("great" in words) or ("loved" in words))]


def _input_fn(num_epochs=None):
    ds = Dataset.from_generator(reviews, ({"terms": tf.string}, tf.float32), ({"terms": [None]}, [1]))
    ds = ds.padded_batch(25, ds.output_shapes)
    ds = ds.repeat(num_epochs)
    features, labels = ds.make_one_shot_iterator().get_next()
    return features, labels


def train_embeddings(steps, model_dir):
    terms_column = tf.feature_column.categorical_column_with_vocabulary_list(key="terms", vocabulary_list=TERMS)
    my_optimizer = tf.train.AdamOptimizer(learning_rate=0.02)
    my_optimizer = tf.contrib.estimator.clip_gradients_by_norm(my_optimizer, 0.1)
    dnn_classifier = tf.estimator.DNNClassifier(
        feature_columns=[tf.feature_column.embedding_column(terms_column, dimension=2)],
        hidden_units=[4],
        optimizer=my_optimizer,
        model_dir=model_dir,
        config=tf.estimator.RunConfig(tf_random_seed=3),
    )
    dnn_classifier.train(input_fn=lambda: _input_fn(), steps=steps)
    evaluation_metrics = dnn_classifier.evaluate(input_fn=lambda: _input_fn(num_epochs=1))
    embedding = dnn_classifier.get_variable_value(
        "dnn/input_from_feature_columns/input_layer/terms_embedding/embedding_weights")
    return evaluation_metrics, embedding


if __name__ == "__main__":
    model_dir, results = sys.argv[1], sys.argv[2]
    rmses, weight, bias = train_model(learning_rate=0.00002, steps=100, batch_size=5, model_dir=model_dir + "/linear")
    metrics, embedding = train_embeddings(steps=30, model_dir=model_dir + "/dnn")
    with open(results, "w") as out:
        json.dump({"rmse": rmses, "weight": weight.tolist(), "bias": bias.tolist(), "embedding": embedding.tolist(),
                   "metrics": {key: float(value) for key, value in metrics.items()}}, out)
