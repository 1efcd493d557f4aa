"""`fit` running, in each call of its train function, the steps up to the next one a callback must see.

A callback that saves, logs, counts or stops at known steps says which with `steps_due(step)`: the first global
step count after `step` at which a call of fit must end for it (None: no step of its own; its on_train_end, or
any call's end, is enough). One on the clock says, with `seconds_due()`, the seconds left to its next check's due
time: the call is sized from the measured step rate to end just before it. `ChunkedCalls`, given fit's callbacks and put last among them, sizes each call to
reach the nearest such step: Python runs once per chunk, not once per step, and each callback sees the steps it
saw with one step per call. A callback that cannot say (the program's own) makes every call one step. tf_keras
reads `steps_per_execution` before each call (its multi-step train function loops over the variable), so the
calls may differ in length.
"""

from __future__ import annotations

import time

import tf_keras

# Steps of a call no callback bounds (nothing due: checkpoints off, no hook with a cadence): fit's own end bounds it
UNBOUNDED_CALL = 1000
MULTI_STEP = 2  # any count above one makes tf_keras's train function loop over the steps-per-call variable


def steps_due(callback, step: int, model) -> int | None:
    """The step count after `step` at which `callback` needs a call of fit to end (see the module docstring)."""
    if isinstance(callback, tf_keras.callbacks.TensorBoard):
        return _tensorboard_due(callback, step, model)
    due = getattr(callback, "steps_due", None)
    return step + 1 if due is None else due(step)


def chunkable(callbacks) -> bool:
    """Whether every one of `callbacks` says when it needs a call's end (so calls may run several steps)."""
    return all(getattr(callback, "steps_due", None) is not None or isinstance(callback, tf_keras.callbacks.TensorBoard)
               and isinstance(callback.update_freq, int) for callback in callbacks)


def _tensorboard_due(callback, step: int, model) -> int | None:
    # The batch summaries go out at a call's end when fit's step counter (the steps of this fit) is a multiple of
    # update_freq.
    if not isinstance(callback.update_freq, int):
        return None if callback.update_freq == "epoch" else step + 1
    counted = int(model._train_counter.numpy())  # noqa: SLF001 (tf_keras keeps no public counter)
    return step + callback.update_freq - counted % callback.update_freq


def sized_calls(callbacks: list) -> list:
    """fit's `callbacks`, then the one that sizes its calls by them (fit(callbacks=sized_calls([...])))."""
    return [*callbacks, ChunkedCalls(callbacks)]


class ChunkedCalls(tf_keras.callbacks.Callback):
    """Before each call of fit's train function, the steps it runs: up to the nearest step one of `callbacks`
    needs. Put it last: it reads their state after their own on_train_begin and on_train_batch_end. fit gives it
    the model before making its train function: it makes fit make a multi-step one (tf_keras makes a one-step
    function when the model has one step per call), and one step per call again after the training, so that
    evaluate, predict and their hooks go batch by batch, as Estimator's did."""

    def __init__(self, callbacks):
        super().__init__()
        self._callbacks = list(callbacks)
        self._rate = StepRate()

    def set_model(self, model):
        super().set_model(model)
        model.steps_per_execution, model.train_function = MULTI_STEP, None

    def on_train_begin(self, logs=None):
        self._size_next_call()

    def on_train_batch_end(self, batch, logs=None):
        self._size_next_call()

    def on_train_end(self, logs=None):
        one_step_per_call(self.model)

    def _size_next_call(self) -> None:
        step = int(self.model.optimizer.iterations.numpy())
        self._rate.observe(step)
        self.model.steps_per_execution.assign(steps_to_next_due(self._callbacks, step, self.model, self._rate))


def steps_to_next_due(callbacks, step: int, model, rate: StepRate | None = None) -> int:
    """How many steps the next call may run from `step`: up to the nearest one `callbacks` need (the migrated
    loop's chunks take it too); a callback on the clock bounds it by the steps `rate` takes to its due time."""
    due = [at for callback in callbacks if (at := steps_due(callback, step, model)) is not None]
    for callback in callbacks:
        seconds = getattr(callback, "seconds_due", lambda: None)()
        if seconds is not None:
            due.append(step + (rate.steps_in(seconds) if rate is not None else 1))
    return max(1, min(due) - step) if due else UNBOUNDED_CALL


class StepRate:
    """The training's steps per second over its last call, to size a call to end near a clock's due time: just
    before it, so that the call after it, one or two steps, ends on the step Estimator's timer would have seen
    first (the clock is read after each call, as the hooks read it after each step)."""

    def __init__(self):
        self._mark: tuple[float, int] | None = None
        self._per_second: float | None = None

    def observe(self, step: int) -> None:
        now = time.monotonic()
        if self._mark is not None and step > self._mark[1] and now > self._mark[0]:
            self._per_second = (step - self._mark[1]) / (now - self._mark[0])
        self._mark = (now, step)

    def steps_in(self, seconds: float) -> int:
        return 1 if self._per_second is None else max(1, int(seconds * self._per_second))


def one_step_per_call(model) -> None:
    """The model's train function back to one step per call (also after a training that raised)."""
    model.steps_per_execution, model.train_function = 1, None
