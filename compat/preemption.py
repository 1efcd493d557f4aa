"""Saving on preemption: a signal asks training to stop after the current step, save, and exit.

Kubernetes, Slurm, spot instances and `docker stop` send SIGTERM and wait a grace period before SIGKILL;
Ctrl-C sends SIGINT; Slurm's `--signal=USR1@T` sends SIGUSR1 ahead of the time limit (opt-in here, since
some programs use SIGUSR1 for other things). The handler only records the request: the step in flight
finishes, the trainer saves, then raises `SystemExit(PREEMPTED_EXIT_CODE)`.

PREEMPTED_EXIT_CODE is 75 (EX_TEMPFAIL in sysexits.h, "try again later"): the job did not finish, its state
is saved, and running it again resumes with no step lost. Schedulers that restart failed jobs restart it;
a wrapper can tell it apart from a crash (1, or -9 / 137 when killed) and from success (0).
"""

from __future__ import annotations

import signal
import threading

PREEMPTED_EXIT_CODE = 75
DEFAULT_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class PreemptionWatcher:
    """Records the first of `signals` received between `start()` and `stop()`; handlers restored at stop.

    Python runs signal handlers in the main thread only, so outside it the watcher does nothing (and says
    so in `active`). The same signal a second time escalates: the previous handlers come back and the
    signal is delivered to them (Ctrl-C twice raises KeyboardInterrupt; a second SIGTERM terminates). That
    is also the way out when training died of an exception before its trainer could call `stop()`.
    """

    def __init__(self, signals=DEFAULT_SIGNALS):
        self.signals = tuple(signals)
        self.received: int | None = None
        self._previous: dict[int, object] = {}

    @property
    def requested(self) -> bool:
        return self.received is not None

    @property
    def active(self) -> bool:
        return bool(self._previous)

    def start(self) -> None:
        if self.active or threading.current_thread() is not threading.main_thread():
            return
        for signum in self.signals:
            self._previous[signum] = signal.signal(signum, self._handle)

    def stop(self) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()

    def _handle(self, signum, frame) -> None:
        if self.received == signum:
            self.stop()
            signal.raise_signal(signum)
            return
        self.received = signum
