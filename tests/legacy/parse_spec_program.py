"""Parsing specs of canned-estimator input, for tests/test_parsing_specs.py: the input of `migrate rewrite` and,
unchanged, the legacy reference. Prints each spec (and the error of a label named like a feature) one per line."""

import tensorflow as tf

age = tf.feature_column.numeric_column("age")
city = tf.feature_column.categorical_column_with_vocabulary_list("city", ["a", "b"])
columns = [age, tf.feature_column.embedding_column(city, 2), tf.feature_column.bucketized_column(age, [18, 65])]

specs = [
    tf.estimator.classifier_parse_example_spec(columns, label_key="label"),
    tf.estimator.classifier_parse_example_spec(columns, "label", tf.string, "none", weight_column="weight"),
    tf.estimator.regressor_parse_example_spec(columns, label_key="price", label_dimension=3,
                                              weight_column=tf.feature_column.numeric_column("w", dtype=tf.float64)),
    tf.compat.v1.estimator.classifier_parse_example_spec(
        [tf.compat.v1.feature_column.numeric_column("x", shape=(2,))], "y", label_default=0),
]
for spec in specs:
    print(sorted((key, repr(value)) for key, value in spec.items()))
try:
    tf.estimator.regressor_parse_example_spec(columns, label_key="age")
except ValueError as error:
    print(type(error).__name__, str(error).split(",")[0])
