import tensorflow as tf

config = tf.estimator.RunConfig(save_checkpoints_steps=10
estimator = tf.estimator.DNNClassifier(hidden_units=[4], config=config)
