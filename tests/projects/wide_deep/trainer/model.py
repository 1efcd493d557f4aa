"""Feature columns and the estimator factory."""
import tensorflow as tf

from trainer import inputs


def feature_columns():
    age = tf.feature_column.numeric_column("age")
    hours = tf.feature_column.numeric_column("hours_per_week")
    age_buckets = tf.feature_column.bucketized_column(age, boundaries=[25, 35, 45, 55, 65])
    education = tf.feature_column.categorical_column_with_vocabulary_list("education", inputs.EDUCATION)
    occupation = tf.feature_column.categorical_column_with_hash_bucket("occupation", hash_bucket_size=20)
    wide_columns = [
        age_buckets,
        education,
        occupation,
        tf.feature_column.crossed_column([age_buckets, "education"], hash_bucket_size=50),
    ]
    deep_columns = [
        age,
        hours,
        tf.feature_column.indicator_column(education),
        tf.feature_column.embedding_column(occupation, dimension=4),
    ]
    return wide_columns, deep_columns


def build_estimator(config, model_type, linear_optimizer="Ftrl", dnn_optimizer="Adagrad", hidden_units=(32, 16)):
    wide_columns, deep_columns = feature_columns()
    if model_type == "wide":
        return tf.estimator.LinearClassifier(
            feature_columns=wide_columns, optimizer=linear_optimizer, config=config
        )
    if model_type == "deep":
        return tf.estimator.DNNClassifier(
            feature_columns=deep_columns,
            hidden_units=list(hidden_units),
            optimizer=dnn_optimizer,
            config=config,
        )
    return tf.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=wide_columns,
        linear_optimizer=linear_optimizer,
        dnn_feature_columns=deep_columns,
        dnn_hidden_units=list(hidden_units),
        dnn_optimizer=dnn_optimizer,
        config=config,
    )
