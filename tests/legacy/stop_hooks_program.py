"""An Estimator program whose train calls end by StopAtStepHook or by running out of input, for
tests/test_stop_hooks.py. Both the input of `migrate rewrite` and, unchanged, the legacy reference run.

Three calls: max_steps=20 cut at step 12 by StopAtStepHook(last_step=12), with a StepCounterHook counting
every 5 steps into model_dir/step_counter; steps=10 cut after 3 steps by
StopAtStepHook(num_steps=3) given through a list variable (step 15), a hook of the program's own in both writing
the global step it fetched with each step, every 5 steps and at each call's end (and a second, StepEcho, fetching
`get_global_step()` itself); no limit over an input of one epoch, 18 batches
(step 33); no limit over the endless input, cut after 4 steps by StopAtStepHook(num_steps=4) (step 37). A second estimator, in model_dir/early_stopped, trains to max_steps=60 with
make_early_stopping_hook(run_every_steps=4) whose should_stop_fn says yes the third time it is asked. (It has
its own directory because Estimator's early-stopping hook adds a variable to the graph: restoring a checkpoint
written without it fails with "Key signal_early_stopping/STOP not found in checkpoint".)
"""

import argparse
import os

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

tf1 = tf.compat.v1


class StepReport(tf1.train.SessionRunHook):
    """Writes the global step it fetched with each step, `triggered` every `every_n_steps` steps and at the end
    of each call, as hooks fetching the step did (compare_gan's EveryNSteps, criteo's early stopping)."""

    def __init__(self, path, every_n_steps):
        self._path = path
        self._timer = tf1.train.SecondOrStepTimer(every_steps=every_n_steps)
        self._global_step = None

    def begin(self):
        self._global_step = tf1.train.get_global_step()

    def before_run(self, run_context):
        return tf1.train.SessionRunArgs({"global_step": self._global_step})

    def after_run(self, run_context, run_values):
        step = run_values.results["global_step"]
        self._write("fetched", step)
        if self._timer.should_trigger_for_step(step):
            self._timer.update_last_triggered_step(step)
            self._write("triggered", step)

    def end(self, session):
        self._write("end", session.run(self._global_step))

    def _write(self, what, step):
        with open(self._path, "a") as log:
            log.write(f"{what} {int(step)}\n")


class StepEcho(tf1.train.SessionRunHook):
    """Fetches the global step without keeping a tensor of it: `SessionRunArgs(get_global_step())` with each step,
    `run_context.session.run(get_global_step())` after it, `session.run(get_global_step())` at each call's end,
    as short hooks did."""

    def __init__(self, path):
        self._path = path

    def before_run(self, run_context):
        return tf1.train.SessionRunArgs(tf1.train.get_global_step())

    def after_run(self, run_context, run_values):
        with open(self._path, "a") as log:
            log.write(f"echo {int(run_values.results)}\n")
            log.write(f"echo_after {int(run_context.session.run(tf1.train.get_global_step()))}\n")

    def end(self, session):
        with open(self._path, "a") as log:
            log.write(f"echo_end {int(session.run(tf1.train.get_global_step()))}\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    args = parser.parse_args()

    digits = load_digits()
    images = (digits.images / 16.0 + 0.05).astype(np.float32)
    labels = digits.target.astype(np.int32)
    columns = [tf1.feature_column.numeric_column("x", shape=[8, 8])]
    config = tf1.estimator.RunConfig(save_checkpoints_steps=1000, keep_checkpoint_max=10, tf_random_seed=7)
    classifier = tf1.estimator.LinearClassifier(
        feature_columns=columns,
        n_classes=10,
        optimizer=tf1.train.FtrlOptimizer(0.05),
        model_dir=args.model_dir,
        config=config,
    )
    endless_input_fn = tf1.estimator.inputs.numpy_input_fn(
        x={"x": images}, y=labels, batch_size=32, num_epochs=None, shuffle=False
    )
    one_epoch_input_fn = tf1.estimator.inputs.numpy_input_fn(
        x={"x": images}, y=labels, batch_size=100, num_epochs=1, shuffle=False
    )
    step_counter = tf1.train.StepCounterHook(every_n_steps=5, output_dir=os.path.join(args.model_dir, "step_counter"))
    step_report = StepReport(os.path.join(args.model_dir, "fetched_steps.txt"), every_n_steps=5)
    step_echo = StepEcho(os.path.join(args.model_dir, "fetched_steps.txt"))
    classifier.train(
        input_fn=endless_input_fn,
        max_steps=20,
        hooks=[tf1.train.StopAtStepHook(last_step=12), step_counter, step_report, step_echo],
    )
    stop_hooks = [tf1.train.StopAtStepHook(num_steps=3), step_report, step_echo]
    classifier.train(input_fn=endless_input_fn, steps=10, hooks=stop_hooks)
    classifier.train(input_fn=one_epoch_input_fn)
    classifier.train(input_fn=endless_input_fn, hooks=[tf1.train.StopAtStepHook(num_steps=4)])

    stopped_early = tf1.estimator.LinearClassifier(
        feature_columns=columns,
        n_classes=10,
        optimizer=tf1.train.FtrlOptimizer(0.05),
        model_dir=os.path.join(args.model_dir, "early_stopped"),
        config=config,
    )
    checks = []

    def stop_on_third_check():
        checks.append(True)
        return len(checks) == 3

    early_stopping = tf1.estimator.experimental.make_early_stopping_hook(
        stopped_early, stop_on_third_check, run_every_secs=None, run_every_steps=4
    )
    stopped_early.train(input_fn=endless_input_fn, max_steps=60, hooks=[early_stopping])


if __name__ == "__main__":
    main()
