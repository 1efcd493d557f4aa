"""Between-graph replication as TF1's distributed guide wrote it: a cluster spec, a server, replica device
setters and a chief. The rewrite keeps it (TF1 clusters have no TF2 counterpart but tf.distribute)."""
import sys

import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()


def main(job_name, task_index):
    cluster = tf.train.ClusterSpec({"ps": ["ps0:2222"], "worker": ["worker0:2222", "worker1:2222"]})
    server = tf.train.Server(cluster, job_name=job_name, task_index=task_index)
    if job_name == "ps":
        server.join()
        return
    with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:%d" % task_index, cluster=cluster)):
        global_step = tf.train.get_or_create_global_step()
        features = tf.random.normal([64, 10])
        labels = tf.reduce_sum(features, axis=1, keepdims=True)
        predictions = tf.layers.dense(features, 1)
        loss = tf.losses.mean_squared_error(labels, predictions)
        train_op = tf.train.AdagradOptimizer(0.01).minimize(loss, global_step=global_step)
    hooks = [tf.train.StopAtStepHook(last_step=100000)]
    with tf.train.MonitoredTrainingSession(
        master=server.target, is_chief=(task_index == 0), checkpoint_dir="/tmp/train_logs", hooks=hooks
    ) as mon_sess:
        while not mon_sess.should_stop():
            mon_sess.run(train_op)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
