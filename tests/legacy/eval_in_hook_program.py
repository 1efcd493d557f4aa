"""An Estimator evaluated by one of its training hooks every 7 steps (recommenders' and tutorials' "evaluation
hook": the hook keeps the estimator and calls its evaluate() and predict() from after_run), written as TF 1.x
programs did: the hook fetches the global step and evaluates when it is a multiple of 7, then predicts 40 examples
(more than a batch: the generator restores the checkpoint again for its second) and writes the evaluation's loss to
model_dir's events as a summary. Estimator's evaluate and predict
read the latest checkpoint in a graph of their own; the training went on untouched.

A LinearClassifier (--canned) or a custom model_fn (a dense layer, Adam) on digits; checkpoints at step 0 and
every 10 steps, 30 steps. --results gets each evaluation's (checkpoint step, loss, the predicted logits), the steps a
second hook acting every 4 steps (a SecondOrStepTimer) read when it acted and at its end, the reports of a third
(compare_gan's EveryNSteps base handing run_context and run_values on to its subclass, every 6 steps), and the final
weights.
TensorFlow 1.x names throughout (run under TF 2.15 by tests/legacy/run_as_tf1.py, and migrated by tests/test_eval_in_hook.py).
"""

import argparse
import itertools
import json

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits


class EvalHook(tf.train.SessionRunHook):
    """recommenders' shape: the estimator kept as `self.model` (the name a Keras callback is given its model by), the
    step fetched through a local dict, each evaluation's loss written as a summary by TF1's FileWriterCache."""

    def __init__(self, estimator, input_fn, every_n_steps, evaluations, model_dir):
        self.model = estimator
        self.input_fn = input_fn
        self.every_n_steps = every_n_steps
        self.evaluations = evaluations
        self.model_dir = model_dir
        self.summary_writer = None

    def begin(self):
        self.summary_writer = tf.summary.FileWriterCache.get(self.model_dir)
        self._global_step = tf.train.get_or_create_global_step()

    def before_run(self, run_context):
        requests = {"global_step": self._global_step}
        return tf.train.SessionRunArgs(requests)

    def after_run(self, run_context, run_values):
        step = run_values.results["global_step"]
        if step > 0 and step % self.every_n_steps == 0:
            metrics = self.model.evaluate(input_fn=self.input_fn, steps=3)
            predictions = self.model.predict(input_fn=self.input_fn)
            first = [prediction["logits"].tolist() for prediction in itertools.islice(predictions, 40)]
            predictions.close()
            self.evaluations.append([int(metrics["global_step"]), float(metrics["loss"]), first])
            summary = tf.Summary(value=[tf.Summary.Value(tag="hook_eval_loss", simple_value=metrics["loss"])])
            self.summary_writer.add_summary(summary, step)

    def end(self, session):
        self.summary_writer.flush()


class StepTimerHook(tf.train.SessionRunHook):
    """Acts every few steps by a SecondOrStepTimer, as TensorFlow's own hooks and tensor2tensor's EveryNSteps did: the
    global step fetched in a dict, read as "stale" and read again from the session when the timer triggers."""

    def __init__(self, every_n_steps, triggers):
        self._timer = tf.train.SecondOrStepTimer(every_steps=every_n_steps)
        self._ran_first_step = False
        self.triggers = triggers

    def begin(self):
        self._global_step_tensor = tf.train.get_or_create_global_step()
        self.triggers.append(["begin"])

    def after_create_session(self, session, coord):
        self._timer.reset()
        self.triggers.append(["session created"])

    def before_run(self, run_context):
        return tf.train.SessionRunArgs({"global_step": self._global_step_tensor})

    def after_run(self, run_context, run_values):
        stale_global_step = run_values.results["global_step"]
        if not self._ran_first_step:
            self._timer.update_last_triggered_step(stale_global_step)
            self._ran_first_step = True
        if stale_global_step > 1 and self._timer.should_trigger_for_step(stale_global_step):
            global_step = run_context.session.run(self._global_step_tensor)
            self._timer.update_last_triggered_step(global_step)
            self.triggers.append([int(stale_global_step), int(global_step)])

    def end(self, session):
        self.triggers.append(["end", int(session.run(self._global_step_tensor))])


class EveryNSteps(tf.train.SessionRunHook):
    """compare_gan's base hook: hands run_context and run_values on to its subclasses' every_n_steps_after_run."""

    def __init__(self, every_n_steps):
        self._timer = tf.train.SecondOrStepTimer(every_steps=every_n_steps)
        self._global_step_tensor = None

    def begin(self):
        self._global_step_tensor = tf.train.get_global_step()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step must be created to use EveryNSteps.")

    def before_run(self, run_context):  # pylint: disable=unused-argument
        return tf.train.SessionRunArgs({"global_step": self._global_step_tensor})

    def after_run(self, run_context, run_values):
        step = run_values.results["global_step"]
        if self._timer.should_trigger_for_step(step):
            self.every_n_steps_after_run(step, run_context, run_values)
            self._timer.update_last_triggered_step(step)

    def end(self, sess):
        step = sess.run(self._global_step_tensor)
        self.every_n_steps_after_run(step, None, None)

    def every_n_steps_after_run(self, step, run_context, run_values):
        raise NotImplementedError("Subclasses of EveryNSteps should implement every_n_steps_after_run().")


class ReportProgressHook(EveryNSteps):
    """Records each report (the step, and what run_values held); asks to stop once max_steps is reached."""

    def __init__(self, max_steps, reports, every_n_steps=6):
        super(ReportProgressHook, self).__init__(every_n_steps=every_n_steps)  # noqa: UP008 (as compare_gan wrote it)
        self.max_steps = max_steps
        self.reports = reports

    def every_n_steps_after_run(self, step, run_context, run_values):
        self.reports.append([int(step), None if run_values is None else int(run_values.results["global_step"])])
        if run_context is not None and step >= self.max_steps:
            run_context.request_stop()


def input_fn():
    digits = load_digits()
    x = (digits.data[:480] / 16.0).astype(np.float32)
    y = (digits.target[:480] % 2).astype(np.int32)
    return tf.data.Dataset.from_tensor_slices(({"pixels": x}, y)).repeat().batch(32)


def model_fn(features, labels, mode):
    logits = tf.layers.dense(features["pixels"], 2, name="logits")
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.train.AdamOptimizer(0.05).minimize(
        loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--results", required=True)
    parser.add_argument("--canned", action="store_true")
    args = parser.parse_args()

    config = tf.estimator.RunConfig(save_checkpoints_steps=10, tf_random_seed=1)
    if args.canned:
        estimator = tf.estimator.LinearClassifier(
            feature_columns=[tf.feature_column.numeric_column("pixels", shape=[64])],
            optimizer=tf.train.AdamOptimizer(0.05), model_dir=args.model_dir, config=config)
    else:
        estimator = tf.estimator.Estimator(model_fn=model_fn, model_dir=args.model_dir, config=config)
    evaluations, triggers, reports = [], [], []
    estimator.train(input_fn=input_fn, steps=30,
                    hooks=[EvalHook(estimator, input_fn, 7, evaluations, args.model_dir),
                           StepTimerHook(4, triggers), ReportProgressHook(30, reports)])
    weights = "linear/linear_model/pixels/weights" if args.canned else "logits/kernel"
    with open(args.results, "w") as out:
        json.dump({"evaluations": evaluations, "triggers": triggers, "reports": reports,
                   "weights": estimator.get_variable_value(weights).tolist()}, out)


if __name__ == "__main__":
    main()
