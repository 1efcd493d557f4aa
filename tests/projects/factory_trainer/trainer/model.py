"""The model: feature columns and the estimator factory."""
import tensorflow as tf


def feature_columns():
    return [tf.feature_column.numeric_column("pixels", shape=[64])]


def build_estimator(config, hidden_units):
    return tf.estimator.DNNClassifier(
        feature_columns=feature_columns(),
        hidden_units=hidden_units,
        n_classes=10,
        config=config,
    )
