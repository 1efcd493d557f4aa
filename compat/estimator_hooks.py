"""tf_keras callbacks doing what Estimator's built-in SessionRunHooks did, for `fit` and the migrated loop.

Every Estimator train call also ran a NanTensorHook on its loss, failing with NanLossDuringTrainingError on a
NaN loss: `check_loss` (loop) and `RaiseOnNanLoss` (fit) do the same. Both targets honour `model.stop_training` after the step in which it was set, as MonitoredSession honoured
`request_stop()`. The early-stopping hooks (`stop_if_no_decrease_hook`, ...) take the eval directory in
place of the estimator (`estimator.eval_dir()` was model_dir/eval, where compat.estimator_evaluation writes) and
decide from the metrics found there, as Estimator's did; `make_early_stopping_hook` asks the user's
`should_stop_fn` on the same schedule.
"""

from __future__ import annotations

import glob
import operator
import os
import time

import numpy as np
import tensorflow as tf
import tf_keras

# Estimator's own class (tf.estimator's was tf.compat.v1.train's, which TensorFlow 2 keeps): a program catching
# it around a train call (`except tf.estimator.NanLossDuringTrainingError`, spelled tf.compat.v1.train's by the
# rewrite) catches the migrated training's
NanLossDuringTrainingError = tf.compat.v1.train.NanLossDuringTrainingError


def check_loss(loss) -> None:
    """Fail as Estimator's NanTensorHook did when `loss` is NaN; the steps before stay checkpointed."""
    if np.isnan(float(loss)):
        raise NanLossDuringTrainingError("NaN loss during training.")


def until_stopped(dataset: tf.data.Dataset) -> tf.data.Dataset:
    """The input of a training given no steps: Estimator trained until its input ended or a hook requested a stop.
    `fit(steps_per_epoch=None)` does the same but refuses an infinite dataset (a `repeat()`ed one): that one is
    given with its length unknown, so fit draws from it until a callback stops the training (the migrated
    hooks' `request_stop()`: `StopAtStep`, the early-stopping hooks), or for ever as Estimator did."""
    if dataset.cardinality() != tf.data.INFINITE_CARDINALITY:
        return dataset
    return dataset.filter(lambda *_: True)


class RaiseOnNanLoss(tf_keras.callbacks.Callback):
    """`check_loss` after every step of `fit` (its `loss` log, the epoch's running mean, is NaN from the first
    NaN step on)."""

    _supports_tf_logs = True  # reads the loss tensor itself: fit need not convert every log (measured: 25% vs 12%)

    def steps_due(self, step: int) -> None:
        """compat.chunked_calls: any call's end (the running mean stays NaN from a NaN step on)."""
        return None

    def on_train_batch_end(self, batch, logs=None):
        if logs and "loss" in logs:
            check_loss(logs["loss"])


class StopAtStep(tf_keras.callbacks.Callback):
    """`StopAtStepHook(num_steps=N)`: stop after N steps of this training call (counted from the step it
    starts or resumes at); `StopAtStepHook(last_step=N)`: stop once the step reaches N. As the hook, the
    check follows a step, so a call that starts at or past `last_step` still trains one step."""

    def __init__(self, num_steps: int | None = None, last_step: int | None = None):
        super().__init__()
        if (num_steps is None) == (last_step is None):
            raise ValueError("StopAtStep needs exactly one of num_steps and last_step")
        self.num_steps, self.last_step = num_steps, last_step

    def on_train_begin(self, logs=None):
        start = int(self.model.optimizer.iterations.numpy())
        self._stop_at = self.last_step if self.last_step is not None else start + self.num_steps

    def steps_due(self, step: int) -> int:
        """compat.chunked_calls: the step it stops at."""
        return max(step + 1, self._stop_at)

    def on_train_batch_end(self, batch, logs=None):
        if int(self.model.optimizer.iterations.numpy()) >= self._stop_at:
            self.model.stop_training = True


class LogLoss(tf_keras.callbacks.Callback):
    """TF1's `LoggingTensorHook({tag: loss}, every_n_iter=N)`: logs `<tag> = <loss>` (`tf.compat.v1.logging`,
    INFO) at this process's steps 0, N, 2N, ..., with the seconds since the previous log, as the hook did
    (the loss printed as a float32, the dtype of migrated models' losses)."""

    def __init__(self, tag: str, every_n_iter: int):
        super().__init__()
        if every_n_iter <= 0:
            raise ValueError(f"every_n_iter must be positive, got {every_n_iter}")
        self.tag, self.every_n_iter = tag, every_n_iter

    def on_train_begin(self, logs=None):
        self._iterations, self._logged_at, self._logged_time = 0, None, None

    def on_train_batch_end(self, batch, logs=None):
        if self._logged_at is None or self._iterations >= self._logged_at + self.every_n_iter:
            now = time.time()
            # Printed as TF1 printed the fetched float32 loss (CallbackList may have made it a float64).
            loss = np.float32(np.asarray(logs["loss"]))
            with np.printoptions(suppress=True):
                message = f"{self.tag} = {loss}"
            if self._logged_time is None:
                tf.compat.v1.logging.info("%s", message)
            else:
                tf.compat.v1.logging.info("%s (%.3f sec)", message, now - self._logged_time)
            self._logged_at, self._logged_time = self._iterations, now
        self._iterations += 1


# What a canned Estimator's graph called its global step's value: the one tensor of it a migrated canned model has.
# TensorFlow 1.x's variable and its read; TensorFlow 2's Estimator made a resource variable, whose "global_step:0"
# is its handle (a LoggingTensorHook of it logged the handle's bytes) and whose read is the op below.
GLOBAL_STEP_NAMES = ("global_step", "global_step:0", "global_step/read:0", "global_step/Read/ReadVariableOp:0")


class LoggingTensorHook(tf_keras.callbacks.Callback):
    """TF1's `LoggingTensorHook(tensors, every_n_iter | every_n_secs, at_end, formatter)` given to a migrated canned
    estimator's train call: logs the global step, named as Estimator's graph named it (`{"step": "global_step"}`,
    `["global_step"]`: GLOBAL_STEP_NAMES), at this call's steps 0, N, 2N, ... (or every N seconds) and, with `at_end`, after its last
    step, as the hook did: `step = 100 (0.123 sec)` (tf.compat.v1.logging, INFO; tags sorted, a list's in its
    order) or the formatter's text of the values by tag. The step is read before the step's update (TF1's read
    raced the increment: the value before or after it). Any other tensor name is one error here: a migrated canned
    model has no graph to fetch it from."""

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False, formatter=None):
        super().__init__()
        only_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError("either at_end and/or exactly one of every_n_iter and every_n_secs must be provided.")
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if isinstance(tensors, dict):
            self._tag_order = sorted(tensors)
        else:
            self._tag_order = list(tensors)
            tensors = {name: name for name in self._tag_order}
        for tag, name in tensors.items():
            if not (isinstance(name, str) and name in GLOBAL_STEP_NAMES):
                raise ValueError(
                    f"LoggingTensorHook: {name!r} (tag {tag!r}) is a tensor of the Estimator's graph, which the "
                    "migrated canned model does not have; only the global step ('global_step') carries over: log "
                    "other values from a tf_keras callback's on_train_batch_end(batch, logs)")
        self._tensors, self._formatter, self._at_end, self._every_n_iter = tensors, formatter, at_end, every_n_iter
        self._timer = None if only_at_end else tf.compat.v1.train.SecondOrStepTimer(
            every_secs=every_n_secs, every_steps=every_n_iter)

    def on_train_begin(self, logs=None):
        if self._timer is not None:
            self._timer.reset()
        self._start, self._iterations, self._due = int(self._global_step()), 0, False

    def steps_due(self, step: int) -> int | None:
        """compat.chunked_calls: the step before the next one it logs (it reads the step before the update),
        every step on the clock; none with at_end alone."""
        if self._timer is None:
            return None
        last = self._timer.last_triggered_step()
        if last is None:
            return step + 1
        if self._every_n_iter is None:
            return None  # on the clock: `seconds_due`
        logs_at = self._start + last + self._every_n_iter
        return logs_at if logs_at > step else step + self._every_n_iter  # (a call starting there logs at its start)

    def seconds_due(self) -> float | None:
        if self._timer is None or self._every_n_iter is not None or self._timer.last_triggered_step() is None:
            return None
        return self._timer._last_triggered_time + self._timer._every_secs - time.time()  # noqa: SLF001 (its clock)

    def on_train_batch_begin(self, batch, logs=None):
        if self._timer is None:
            return
        self._iterations = int(self._global_step()) - self._start
        self._due = self._timer.should_trigger_for_step(self._iterations)
        if self._due:
            self._step = self._global_step()

    def on_train_batch_end(self, batch, logs=None):
        if self._due:
            self._log(self._step)

    def on_train_end(self, logs=None):
        if self._at_end:
            self._log(self._global_step())

    def _global_step(self) -> np.int64:
        return np.int64(self.model.optimizer.iterations.numpy())  # (Estimator's global step: an int64 variable)

    def _log(self, step: np.int64) -> None:
        values = {tag: step for tag in self._tensors}
        elapsed = self._timer.update_last_triggered_step(self._iterations)[0] if self._timer is not None else None
        with np.printoptions(suppress=True):
            if self._formatter:
                tf.compat.v1.logging.info(self._formatter(values))
            elif elapsed is not None:
                tf.compat.v1.logging.info("%s (%.3f sec)", ", ".join(f"{tag} = {values[tag]}" for tag in self._tag_order),
                                          elapsed)
            else:
                tf.compat.v1.logging.info("%s", ", ".join(f"{tag} = {values[tag]}" for tag in self._tag_order))


class StepCounter(tf_keras.callbacks.Callback):
    """`StepCounterHook(every_n_steps | every_n_secs, output_dir)`: every N steps (or seconds) after the
    call's first step, the steps per second since the last count, logged as `global_step/sec: X` and, with
    an output_dir, written there as the scalar `global_step/sec` at that step (Estimator's tag)."""

    def __init__(self, every_n_steps: int | None = 100, every_n_secs: float | None = None, output_dir=None):
        super().__init__()
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be provided.")
        self.every_n_steps, self.every_n_secs, self.output_dir = every_n_steps, every_n_secs, output_dir

    def on_train_begin(self, logs=None):
        self._counted_at: tuple[float, int] | None = None
        self._writer = tf.summary.create_file_writer(self.output_dir) if self.output_dir else None

    def steps_due(self, step: int) -> int | None:
        """compat.chunked_calls: the call's first step, then the step of the next count (on the clock:
        `seconds_due`)."""
        if self._counted_at is None:
            return step + 1
        return None if self.every_n_steps is None else max(step + 1, self._counted_at[1] + self.every_n_steps)

    def seconds_due(self) -> float | None:
        if self._counted_at is None or self.every_n_secs is None:
            return None
        return self._counted_at[0] + self.every_n_secs - time.monotonic()

    def on_train_batch_end(self, batch, logs=None):
        step, now = int(self.model.optimizer.iterations.numpy()), time.monotonic()
        if self._counted_at is None:
            self._counted_at = (now, step)
            return
        since, counted = self._counted_at
        due = now - since >= self.every_n_secs if self.every_n_steps is None else step >= counted + self.every_n_steps
        if step == counted or not due:
            return
        self._counted_at = (now, step)
        steps_per_sec = (step - counted) / (now - since)
        tf.get_logger().info("global_step/sec: %g", steps_per_sec)
        if self._writer is not None:  # record_if: fit's TensorBoard callback may be holding summaries back
            with self._writer.as_default(), tf.summary.record_if(True):
                tf.summary.scalar("global_step/sec", steps_per_sec, step=step)

    def on_train_end(self, logs=None):
        if self._writer is not None:
            self._writer.close()


class Profiler(tf_keras.callbacks.Callback):
    """`ProfilerHook(save_steps | save_secs, output_dir)`: TensorFlow's profiler records one training step every
    N steps (or seconds), the steps the hook chose: not the call's first, then the first one N steps (seconds)
    after the last one recorded. The trace of the step that takes the global step to G goes to
    `<output_dir>/step_<G>` in TensorBoard's profile format (`plugins/profile/...`; open output_dir in
    TensorBoard's Profile tab). TF1's hook wrote the same step as `timeline-<G>.json`, a Chrome trace drawn with
    `show_dataflow` / `show_memory`: TensorBoard's trace viewer and memory profile show both, so they are accepted
    and need no setting. A step traced while another profiler runs (TensorBoard(profile_batch=...)) is one error."""

    def __init__(self, save_steps: int | None = None, save_secs: float | None = None, output_dir: str = "",
                 show_dataflow: bool = True, show_memory: bool = False):
        super().__init__()
        self._timer = tf.compat.v1.train.SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self.output_dir = output_dir
        self.show_dataflow, self.show_memory = show_dataflow, show_memory

    def on_train_begin(self, logs=None):
        self._next_step = None  # the global step after the next step, once a step of this call has run
        self._tracing = None  # the directory of the trace under way

    def steps_due(self, step: int) -> int:
        """compat.chunked_calls: a call of the traced step alone (it starts and stops the profiler around it);
        every step on the clock, and before the call's first step has run."""
        last, every = self._timer.last_triggered_step(), self._timer._every_steps  # noqa: SLF001
        if self._tracing is not None or self._next_step is None or last is None or every is None:
            return step + 1
        traced = last + every - 1  # the step count a call must start from: the step after it triggers
        return traced if traced > step else step + 1

    def on_train_batch_begin(self, batch, logs=None):
        if self._next_step is not None and self._timer.should_trigger_for_step(self._next_step):
            self._tracing = os.path.join(self.output_dir, f"step_{self._next_step}")
            tf.profiler.experimental.start(self._tracing)

    def on_train_batch_end(self, batch, logs=None):
        step = int(self.model.optimizer.iterations.numpy())
        if self._next_step is None:  # the timer starts from this call's first step, as the hook's did
            self._timer.update_last_triggered_step(step - 1)
        if self._tracing is not None:
            tf.profiler.experimental.stop()
            self._timer.update_last_triggered_step(step)
            tf.compat.v1.logging.info("Saved the profile of step %d into '%s'.", step, self._tracing)
            self._tracing = None
        self._next_step = step + 1


def from_tf1(hook) -> tf_keras.callbacks.Callback | None:
    """The callback doing what TF1's built-in `hook` (an instance of tf.compat.v1.train's LoggingTensorHook,
    StopAtStepHook or StepCounterHook, built where the rewrite could not tell its estimator's model) does for a
    model with no TF1 graph, from the arguments it was built with; None for any other hook. A LoggingTensorHook
    naming a tensor other than the global step is one error, as the migrated class is."""
    train = tf.compat.v1.train
    if type(hook) is train.LoggingTensorHook:
        timer = hook._timer  # noqa: SLF001 (TF1's hooks keep their arguments private)
        tensors = dict(hook._tensors)  # noqa: SLF001
        order = list(hook._tag_order)  # noqa: SLF001 (a list's order, or a dict's tags sorted)
        listed = order != sorted(tensors) and all(tag == name for tag, name in tensors.items())
        return LoggingTensorHook(order if listed else tensors, every_n_iter=getattr(timer, "_every_steps", None),
                                 every_n_secs=getattr(timer, "_every_secs", None), at_end=hook._log_at_end,  # noqa: SLF001
                                 formatter=hook._formatter)  # noqa: SLF001
    if type(hook) is train.StopAtStepHook:
        return StopAtStep(num_steps=hook._num_steps, last_step=hook._last_step)  # noqa: SLF001
    if type(hook) is train.StepCounterHook:
        if hook._summary_writer is not None:  # noqa: SLF001
            raise ValueError("StepCounterHook(summary_writer=...): a TF1 FileWriter; give output_dir instead")
        timer = hook._timer  # noqa: SLF001
        return StepCounter(every_n_steps=timer._every_steps, every_n_secs=timer._every_secs,  # noqa: SLF001
                           output_dir=hook._output_dir)  # noqa: SLF001
    return None


def read_eval_metrics(eval_dir: str) -> dict[int, dict[str, float]]:
    """The metrics in eval_dir's event files by step, in step order: Estimator's `read_eval_metrics`, which
    reads the Estimator's scalars (simple values), also reading TF2 scalars (compat.estimator_evaluation's)."""
    found: dict[int, dict[str, float]] = {}
    for path in sorted(glob.glob(os.path.join(eval_dir, "events.out.tfevents.*"))):
        try:
            for event in tf.compat.v1.train.summary_iterator(path):
                for value in event.summary.value:
                    number = _scalar(value)
                    if number is not None:
                        found.setdefault(event.step, {})[value.tag] = number
        except tf.errors.DataLossError:
            continue  # as Estimator: the rest of a corrupt file is skipped
    return dict(sorted(found.items()))


def _scalar(value) -> float | None:
    if value.HasField("simple_value"):
        return value.simple_value
    if value.HasField("tensor"):
        array = tf.make_ndarray(value.tensor)
        if array.shape == () and array.dtype.kind == "f":
            return float(array)
    return None


class StopOnPredicate(tf_keras.callbacks.Callback):
    """`make_early_stopping_hook(estimator, should_stop_fn, run_every_secs, run_every_steps)`'s hook: after
    the first step of the call, then every `run_every_secs` seconds (or `run_every_steps` steps), ask
    `should_stop_fn()`; True stops training."""

    def __init__(self, should_stop_fn, run_every_secs: float | None = 60, run_every_steps=None):
        super().__init__()
        if (run_every_secs is None) == (run_every_steps is None):
            raise ValueError("exactly one of run_every_secs and run_every_steps must be set")
        if not callable(should_stop_fn):
            raise TypeError("should_stop_fn must be callable")
        self.should_stop_fn = should_stop_fn
        self.run_every_secs, self.run_every_steps = run_every_secs, run_every_steps

    def on_train_begin(self, logs=None):
        self._checked_at: tuple[float, int] | None = None

    def steps_due(self, step: int) -> int | None:
        """compat.chunked_calls: the call's first step, then the next check (on the clock: `seconds_due`)."""
        if self._checked_at is None:
            return step + 1
        return None if self.run_every_steps is None else max(step + 1, self._checked_at[1] + self.run_every_steps)

    def seconds_due(self) -> float | None:
        if self._checked_at is None or self.run_every_steps is not None:
            return None
        return self._checked_at[0] + self.run_every_secs - time.monotonic()

    def on_train_batch_end(self, batch, logs=None):
        step, now = int(self.model.optimizer.iterations.numpy()), time.monotonic()
        if self._checked_at is not None:
            seconds, steps = now - self._checked_at[0], step - self._checked_at[1]
            due = seconds >= self.run_every_secs if self.run_every_steps is None else steps >= self.run_every_steps
            if not due:
                return
        self._checked_at = (now, step)
        if self.should_stop_fn():
            self.model.stop_training = True


def make_early_stopping_hook(should_stop_fn, run_every_secs=60, run_every_steps=None) -> StopOnPredicate:
    """`tf.estimator.experimental.make_early_stopping_hook` without its estimator argument (which only said
    where the hook ran: the chief)."""
    return StopOnPredicate(should_stop_fn, run_every_secs, run_every_steps)


class StopOnEvalMetrics(StopOnPredicate):
    """Estimator's metric-based early-stopping hooks: `should_stop(read_eval_metrics(eval_dir))`, asked as
    `StopOnPredicate` asks."""

    def __init__(self, eval_dir: str, should_stop, run_every_secs: float | None = 60, run_every_steps=None):
        if eval_dir is None:
            raise ValueError("an early-stopping hook's eval_dir is None: Estimator's read estimator.eval_dir() then "
                             "(model_dir/eval); give that directory")
        super().__init__(lambda: should_stop(read_eval_metrics(eval_dir)), run_every_secs, run_every_steps)
        self.eval_dir = eval_dir


def _no_improvement(metric_name, max_steps_without_improvement, min_steps, better):
    def should_stop(evaluations: dict[int, dict[str, float]]) -> bool:
        best = best_step = None
        for step, metrics in evaluations.items():
            if step < min_steps:
                continue
            if best is None or better(metrics[metric_name], best):
                best, best_step = metrics[metric_name], step
            if step - best_step >= max_steps_without_improvement:
                return True
        return False

    return should_stop


def _crossed(metric_name, threshold, min_steps, better):
    def should_stop(evaluations: dict[int, dict[str, float]]) -> bool:
        return any(
            better(metrics[metric_name], threshold) for step, metrics in evaluations.items() if step >= min_steps
        )

    return should_stop


# The estimator's hooks by the same names, with its eval directory in place of the estimator; `cadence` is
# run_every_secs=60 / run_every_steps=None, as there.
def stop_if_no_decrease_hook(eval_dir, metric_name, max_steps_without_decrease, min_steps=0, **cadence):
    """`tf.estimator.experimental.stop_if_no_decrease_hook`, reading the metrics in eval_dir."""
    decide = _no_improvement(metric_name, max_steps_without_decrease, min_steps, operator.lt)
    return StopOnEvalMetrics(eval_dir, decide, **cadence)


def stop_if_no_increase_hook(eval_dir, metric_name, max_steps_without_increase, min_steps=0, **cadence):
    """`tf.estimator.experimental.stop_if_no_increase_hook`, reading the metrics in eval_dir."""
    decide = _no_improvement(metric_name, max_steps_without_increase, min_steps, operator.gt)
    return StopOnEvalMetrics(eval_dir, decide, **cadence)


def stop_if_higher_hook(eval_dir, metric_name, threshold, min_steps=0, **cadence):
    """`tf.estimator.experimental.stop_if_higher_hook`, reading the metrics in eval_dir."""
    return StopOnEvalMetrics(eval_dir, _crossed(metric_name, threshold, min_steps, operator.gt), **cadence)


def stop_if_lower_hook(eval_dir, metric_name, threshold, min_steps=0, **cadence):
    """`tf.estimator.experimental.stop_if_lower_hook`, reading the metrics in eval_dir."""
    return StopOnEvalMetrics(eval_dir, _crossed(metric_name, threshold, min_steps, operator.lt), **cadence)


def fetched(fetches, after_the_step: bool = False):
    """What a TF1 session returned for `fetches` of a hook migrated to a callback: the global step's attribute
    holds the step counter (`model.optimizer.iterations`), read as numpy (nested as given). Read in
    on_train_batch_begin, it is the value before the step, as a TensorFlow 2.x Estimator's hooks fetched it with
    the step (a resource variable read before the increment, as a rule). `after_the_step`: the value after the
    step (one more), as TensorFlow 1.x's fetched it (a ref variable's buffer, which the step's increment updated
    before the session returned it)."""
    return tf.nest.map_structure(lambda variable: variable.numpy() + int(after_the_step), fetches)


class FileWriter:
    """TF1's `tf.compat.v1.summary.FileWriter(logdir)` in a hook become a callback, which runs eagerly (where TF1's
    raises): the same `add_summary(summary, global_step)` of Summary protos (or their serialized bytes), `flush`,
    `close` and `get_logdir`, written to an events file in logdir by TensorFlow 2's summary writer. The events
    carry the same tags, values and steps; TF1's writer also wrote its graph, which an eager callback has not."""

    def __init__(self, logdir, max_queue=10, flush_secs=120, filename_suffix=None):
        self._logdir = logdir
        self._writer = tf.summary.create_file_writer(
            logdir, max_queue=max_queue, flush_millis=int(flush_secs * 1000), filename_suffix=filename_suffix)

    def get_logdir(self):
        return self._logdir

    def add_summary(self, summary, global_step=None):
        serialized = summary if isinstance(summary, bytes) else summary.SerializeToString()
        # always, as TF1's writer wrote: not only at the steps the training records its own summaries
        with self._writer.as_default(), tf.summary.record_if(True):
            tf.summary.experimental.write_raw_pb(serialized, step=0 if global_step is None else int(global_step))

    def flush(self):
        self._writer.flush()

    def close(self):
        self._writer.close()


_FILE_WRITERS: dict[str, FileWriter] = {}


def cached_file_writer(logdir) -> FileWriter:
    """`tf.compat.v1.summary.FileWriterCache.get(logdir)` in a hook become a callback: one FileWriter per
    directory, shared by every caller, as TF1's cache shared it."""
    key = os.path.normpath(os.fspath(logdir))
    if key not in _FILE_WRITERS:
        _FILE_WRITERS[key] = FileWriter(logdir)
    return _FILE_WRITERS[key]


class SessionRunContext:
    """The `run_context` a hook become a callback hands on to a method of its own (compare_gan's EveryNSteps gives
    it to its subclasses' every_n_steps_after_run): `request_stop()` ends the training after this step, as
    MonitoredSession did (`model.stop_training`). A callback has no TF1 session or SessionRunArgs: reading
    `session` or `original_args` is one error naming them."""

    def __init__(self, model):
        self._model = model

    def request_stop(self):
        self._model.stop_training = True

    @property
    def stop_requested(self) -> bool:
        return bool(self._model.stop_training)

    @property
    def session(self):
        raise RuntimeError("run_context.session: a hook migrated to a Keras callback has no TF1 session; read the "
                           "values from the callback's logs or the model's variables instead")

    @property
    def original_args(self):
        raise RuntimeError("run_context.original_args: a hook migrated to a Keras callback has no SessionRunArgs")


def SessionRunValues(results):  # noqa: N802 (TF1's name: a namedtuple)
    """The `run_values` a hook become a callback hands on to a method of its own: TF1's SessionRunValues of what
    its before_run fetched (`fetched`; None when it fetched nothing), with no run options or metadata."""
    return tf.compat.v1.train.SessionRunValues(results=results, options=None, run_metadata=None)
