"""A custom model_fn Estimator: the most common shape in real code."""
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()


def model_fn(features, labels, mode, params):
    net = tf.layers.dense(features["x"], params["units"], activation=tf.nn.relu)
    logits = tf.layers.dense(net, params["classes"])
    predictions = {"classes": tf.argmax(logits, axis=1), "probabilities": tf.nn.softmax(logits)}
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    if mode == tf.estimator.ModeKeys.EVAL:
        metrics = {"accuracy": tf.metrics.accuracy(labels, predictions["classes"])}
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)
    optimizer = tf.train.AdamOptimizer(params["learning_rate"])
    train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def input_fn():
    x = tf.random.normal([256, 8])
    y = tf.random.uniform([256], maxval=3, dtype=tf.int32)
    return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(32)


config = tf.estimator.RunConfig(model_dir="/tmp/custom", save_checkpoints_steps=100)
estimator = tf.estimator.Estimator(
    model_fn=model_fn, config=config, params={"units": 32, "classes": 3, "learning_rate": 1e-3}
)
estimator.train(input_fn=input_fn, max_steps=1000)
print(estimator.evaluate(input_fn=input_fn, steps=10))
