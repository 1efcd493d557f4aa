"""A TPUEstimator job (the TPU-specific parts must be flagged, not broken)."""
import tensorflow.compat.v1 as tf


def model_fn(features, labels, mode, params):
    logits = tf.layers.dense(features, 10)
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = tf.tpu.CrossShardOptimizer(tf.train.GradientDescentOptimizer(0.01))
    train_op = optimizer.minimize(loss, tf.train.get_global_step())
    return tf.estimator.tpu.TPUEstimatorSpec(mode=mode, loss=loss, train_op=train_op)


def input_fn(params):
    data = tf.data.Dataset.from_tensor_slices((tf.zeros([1024, 32]), tf.zeros([1024], tf.int32)))
    return data.repeat().batch(params["batch_size"], drop_remainder=True)


resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="my-tpu")
config = tf.estimator.tpu.RunConfig(
    cluster=resolver, model_dir="gs://bucket/model", save_checkpoints_steps=1000,
    tpu_config=tf.estimator.tpu.TPUConfig(iterations_per_loop=100),
)
estimator = tf.estimator.tpu.TPUEstimator(model_fn=model_fn, config=config, train_batch_size=128)
estimator.train(input_fn=input_fn, max_steps=10000)
