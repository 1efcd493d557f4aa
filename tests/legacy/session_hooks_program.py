"""SessionRunHooks of a custom model_fn, for tests/test_session_hooks.py: the input of `migrate rewrite` (the
model_fn is kept as written and its hooks run against its graph: compat.wrapped_hooks) and, unchanged, the
legacy reference run.

The hooks are the ones Estimator code writes: a `LoggingTensorHook` in the EstimatorSpec's training_hooks (and one
logging the global step variable itself), and one
given to train(hooks=...) logging the loss by its tensor's name every 4 steps (their lines at INFO level on stderr); a
hook of the program's own in train(hooks=...) that fetches the loss by object and the logits by name in
before_run, reads the global step with `run_context.session.run` after each step, and requests a stop at
step 12 (train is given no limit and an endless input: the hook alone ends it); one making a variable in begin() and raising it with an assign op of its own at step 8
(Estimator's checkpoints held it); summaries of the model_fn's own (a scalar, a histogram), which Estimator wrote
to model_dir every save_summary_steps (5), with its `loss`; a `ProfilerHook` in training_hooks tracing every 5 steps into model_dir/profile (its
output_dir read from the `config` the model_fn is given); a `SummarySaverHook` in training_hooks writing the
model_fn's summaries (`merge_all()`) every 3 steps into model_dir/hook_summaries; efficientdet's hook class in
training_hooks asking for an out-of-memory error's tensor allocations (a callback once migrated); an evaluation hook
fetching the batch loss by name. What the hooks saw is written
as JSON (--record) to compare with the migrated program's.
"""

import argparse
import json
import os

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits


def input_fn():
    digits = load_digits()
    x, y = (digits.data / 16.0).astype(np.float32), digits.target.astype(np.int32)
    return tf.data.Dataset.from_tensor_slices(({"pixels": x}, y)).batch(64)


class RecordingHook(tf.compat.v1.train.SessionRunHook):
    """Records the loss, the mean logit and the global step after every step; stops at `stop_at`."""

    def __init__(self, stop_at=None):
        self.stop_at = stop_at
        self.records = []

    def begin(self):
        self.global_step = tf.compat.v1.train.get_global_step()
        self.loss = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.LOSSES)[0]

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs({"loss": self.loss, "logits": "logits/BiasAdd:0"})

    def after_run(self, run_context, run_values):
        step = int(run_context.session.run(self.global_step))
        self.records.append({"step": step, "loss": float(run_values.results["loss"]),
                             "mean_logit": float(np.mean(run_values.results["logits"]))})
        if self.stop_at is not None and step >= self.stop_at:
            run_context.request_stop()


class FlagHook(tf.compat.v1.train.SessionRunHook):
    """criteo/deepr's early-stopping signal: a variable made in begin(), raised by running an assign op of its own
    through run_context.session once `raise_at` is reached; records the flag it fetched at every step."""

    def __init__(self, raise_at):
        self.raise_at = raise_at
        self.seen = []

    def begin(self):
        with tf.compat.v1.variable_scope("signal_early_stopping", reuse=tf.compat.v1.AUTO_REUSE):
            self.flag = tf.compat.v1.get_variable(
                "STOP", [], tf.bool, tf.compat.v1.constant_initializer(False),
                collections=[tf.compat.v1.GraphKeys.GLOBAL_VARIABLES], trainable=False)
        self.raise_flag = tf.compat.v1.assign(self.flag, True)

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self.flag)

    def after_run(self, run_context, run_values):
        self.seen.append(bool(run_values.results))
        if len(self.seen) == self.raise_at:
            run_context.session.run(self.raise_flag)


EVAL_RECORDS = RecordingHook()


def model_fn(features, labels, mode, config):
    with tf.compat.v1.variable_scope("hidden"):
        w = tf.compat.v1.get_variable("w", [64, 16], initializer=tf.compat.v1.glorot_uniform_initializer(seed=1))
        hidden = tf.nn.relu(tf.matmul(features["pixels"], w))
    logits = tf.compat.v1.layers.dense(hidden, 10, name="logits",
                                       kernel_initializer=tf.compat.v1.glorot_uniform_initializer(seed=2))
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    tf.compat.v1.summary.scalar("mean_logit", tf.reduce_mean(logits))
    tf.compat.v1.summary.histogram("hidden", hidden)
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss, evaluation_hooks=[EVAL_RECORDS], eval_metric_ops={
            "accuracy": tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))})
    train_op = tf.compat.v1.train.AdamOptimizer(0.01).minimize(loss, tf.compat.v1.train.get_global_step())
    logging_hook = tf.compat.v1.train.LoggingTensorHook({"loss": loss}, every_n_iter=5)
    step_logger = tf.compat.v1.train.LoggingTensorHook({"global_step": tf.compat.v1.train.get_global_step()},
                                                       every_n_iter=5)
    profiler = tf.compat.v1.train.ProfilerHook(save_steps=5, output_dir=os.path.join(config.model_dir, "profile"))

    class OomReportingHook(tf.compat.v1.train.SessionRunHook):  # efficientdet's: more said on an out-of-memory error

        def before_run(self, run_context):
            return tf.compat.v1.train.SessionRunArgs(
                fetches=[], options=tf.compat.v1.RunOptions(report_tensor_allocations_upon_oom=True))

    summary_hook = tf.compat.v1.train.SummarySaverHook(
        save_steps=3, output_dir=os.path.join(config.model_dir, "hook_summaries"),
        summary_op=tf.compat.v1.summary.merge_all())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                      training_hooks=[logging_hook, step_logger, profiler, summary_hook,
                                                      OomReportingHook()])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--record", required=True)
    args = parser.parse_args()
    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)

    config = tf.estimator.RunConfig(save_summary_steps=5)
    estimator = tf.estimator.Estimator(model_fn=model_fn, model_dir=args.model_dir, config=config)
    recording = RecordingHook(stop_at=12)
    loss_logger = tf.estimator.LoggingTensorHook({"loss": "sparse_softmax_cross_entropy_loss/value:0"}, every_n_iter=4)
    flag = FlagHook(raise_at=8)
    estimator.train(input_fn=lambda: input_fn().repeat(), hooks=[recording, loss_logger, flag])
    metrics = estimator.evaluate(input_fn=input_fn)
    with open(args.record, "w") as out:
        json.dump({"train": recording.records, "flags": flag.seen, "eval": [r["loss"] for r in EVAL_RECORDS.records],
                   "metrics": {key: float(value) for key, value in metrics.items()}}, out)


if __name__ == "__main__":
    main()
