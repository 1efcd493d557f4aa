"""Canned Estimators trained under RunConfig(train_distribute=MirroredStrategy) on two replicas (two
logical CPUs), for tests/test_train_distribute.py (sources, not modules).

Each is run as is by the legacy environment (the reference) and, rewritten with `--target keras`, by the
modern one. A tf.data input_fn gives 16 examples per batch, in order; the Estimator gives each replica whole
batches, so a step trains on 32. A checkpoint at step 0, every --save_steps (default: --max_steps) and at
--max_steps; evaluate()'s metrics (one
replica, as the Estimator evaluated without eval_distribute) go to --metrics_out.
"""

TEMPLATE = '''\
import argparse
import json

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

# Two replicas on one CPU. ReductionToOneDevice: TF 2.15's default all-reduce hangs on CPU-only graphs.
_cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(_cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
tf1 = tf.compat.v1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=20)
    parser.add_argument("--save_steps", type=int, default=None)
    parser.add_argument("--metrics_out", required=True)
    args = parser.parse_args()

    digits = load_digits()
    images = (digits.images / 16.0 + 0.05).astype(np.float32)
    labels = {labels}

    def train_input_fn():
        return tf.data.Dataset.from_tensor_slices(({{"x": images}}, labels)).repeat().batch(16)

    columns = [tf1.feature_column.numeric_column("x", shape=[8, 8])]
    strategy = tf.distribute.MirroredStrategy(
        ["/cpu:0", "/cpu:1"], cross_device_ops=tf.distribute.ReductionToOneDevice()
    )
    config = tf1.estimator.RunConfig(
        train_distribute=strategy,
        save_checkpoints_steps=args.save_steps or args.max_steps,
        keep_checkpoint_max=10,
        tf_random_seed=7,
    )
    model = {constructor}
    model.train(input_fn=train_input_fn, max_steps=args.max_steps{train_hooks})
    eval_input_fn = tf1.estimator.inputs.numpy_input_fn(
        x={{"x": images}}, y=labels, batch_size=100, num_epochs=1, shuffle=False
    )
    metrics = model.evaluate(input_fn=eval_input_fn)
    with open(args.metrics_out, "w") as out:
        json.dump({{key: float(value) for key, value in metrics.items()}}, out)


if __name__ == "__main__":
    main()
'''

PROGRAMS = {
    # v2 head: each replica's mean loss scaled by 1/2 (Keras: the compiled loss under the strategy's scope).
    "dnn_classifier_mirrored_v2": TEMPLATE.format(
        labels="digits.target.astype(np.int32)",
        constructor="tf.estimator.DNNClassifier(\n"
        "        feature_columns=columns,\n"
        "        hidden_units=[32, 16],\n"
        "        n_classes=10,\n"
        '        optimizer="Adagrad",\n'
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
        train_hooks="",
    ),
    # v1 head: each replica's loss summed over its batch, unscaled; TF1 Momentum slots. With a hook: fit
    # and the loop step by step (fit: one step per call; the loop: strategy.run per step, not in chunks).
    "dnn_regressor_mirrored_v1": TEMPLATE.format(
        labels="np.stack([digits.target / 10.0, images.mean(axis=(1, 2))], axis=1).astype(np.float32)",
        constructor="tf1.estimator.DNNRegressor(\n"
        "        feature_columns=columns,\n"
        "        hidden_units=[32, 16],\n"
        "        label_dimension=2,\n"
        "        optimizer=tf1.train.MomentumOptimizer(0.0005, momentum=0.9),\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
        train_hooks=", hooks=[tf.estimator.StepCounterHook(every_n_steps=5, output_dir=args.model_dir)]",
    ),
    # Batch normalization: each replica's moving statistics (synchronised on read), as both keep them.
    "dnn_classifier_batch_norm_mirrored_v2": TEMPLATE.format(
        labels="digits.target.astype(np.int32)",
        constructor="tf.estimator.DNNClassifier(\n"
        "        feature_columns=columns,\n"
        "        hidden_units=[32, 16],\n"
        "        n_classes=10,\n"
        "        batch_norm=True,\n"
        '        optimizer="Adagrad",\n'
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
        train_hooks="",
    ),
}

# A custom model_fn (its loss a mean: the TF1 optimizer scaled it by 1/replicas), the same harness. For
# tests/test_train_distribute.py's custom model_fn test; PARAMS at module level, so the test builds the class.
CUSTOM_MODEL_FN = '''

PARAMS = {"units": 32, "learning_rate": 0.1}


def model_fn(features, labels, mode, params):
    net = tf1.layers.flatten(features["x"])
    net = tf1.layers.dense(net, params["units"], activation=tf.nn.relu)
    logits = tf1.layers.dense(net, 10, name="logits")
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"class_ids": tf.argmax(logits, 1)})
    loss = tf1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    if mode == tf.estimator.ModeKeys.EVAL:
        accuracy = tf1.metrics.accuracy(labels=labels, predictions=tf.argmax(logits, 1))
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"accuracy": accuracy})
    optimizer = tf1.train.AdagradOptimizer(params["learning_rate"])
    train_op = optimizer.minimize(loss, global_step=tf1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
'''
CUSTOM_PROGRAMS = {
    "custom_model_fn_mirrored": TEMPLATE.format(
        labels="digits.target.astype(np.int32)",
        constructor="tf.estimator.Estimator(model_fn, model_dir=args.model_dir, config=config, params=PARAMS)",
        train_hooks="",
    ).replace("\n\ndef main():", CUSTOM_MODEL_FN + "\n\ndef main():"),
}
