"""A hand-written TF1 training loop with MonitoredTrainingSession checkpointing."""
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

x = tf.random.normal([32, 4])
y = tf.reduce_sum(x, axis=1, keepdims=True)
weights = tf.get_variable("w", shape=[4, 1])
loss = tf.reduce_mean(tf.square(tf.matmul(x, weights) - y))
global_step = tf.train.get_or_create_global_step()
train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=global_step)

hooks = [tf.train.StopAtStepHook(last_step=2000), tf.train.NanTensorHook(loss)]
with tf.train.MonitoredTrainingSession(
    checkpoint_dir="/tmp/mts", save_checkpoint_steps=250, hooks=hooks
) as session:
    while not session.should_stop():
        session.run(train_op)
