import tensorflow as tf

estimator = tf.estimator.LinearClassifier(feature_columns=[])
print("training", estimator
