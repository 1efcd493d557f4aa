"""tf_keras callbacks doing what Estimator's built-in SessionRunHooks did, for `fit` and the migrated loop.

Both targets honour `model.stop_training` after the step in which it was set, as MonitoredSession honoured
`request_stop()`.
"""

from __future__ import annotations

import tf_keras


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
        start = int(self.model.optimizer.iterations)
        self._stop_at = self.last_step if self.last_step is not None else start + self.num_steps

    def on_train_batch_end(self, batch, logs=None):
        if int(self.model.optimizer.iterations) >= self._stop_at:
            self.model.stop_training = True
