"""compat.backup_listeners listeners that play faults and record reports, for the Ray test drivers
(tests/runtime/tune_search.py, tests/runtime/train_workers.py): each acts once a backup is written."""

from __future__ import annotations

import os
import signal
import time


class BackupListener:
    """Hears of backups; evaluations are of no interest here."""

    def after_evaluation(self, metrics):
        pass


class KillAfterBackup(BackupListener):
    """SIGKILLs this process once the backup at `step` is written (a `marker` file, if given, says it happened)."""

    def __init__(self, step: int, marker: str | None = None):
        self.step, self.marker = step, marker

    def after_backup(self, backup_dir, step, logs):
        if step != self.step:
            return
        if self.marker:
            with open(self.marker, "w") as written:
                written.write(f"{os.getpid()} {step}\n")
        os.kill(os.getpid(), signal.SIGKILL)


class PauseAfterBackup(BackupListener):
    """Holds this process still once the backup at `step` is written, until somebody kills it."""

    def __init__(self, step: int):
        self.step = step

    def after_backup(self, backup_dir, step, logs):
        while step == self.step:
            time.sleep(1)


class ReportLog(BackupListener):
    """Appends "<attempt> <step>" to `path` for each backup (attempt 1 after a restart)."""

    def __init__(self, path: str, attempt: int):
        self.path, self.attempt = path, attempt

    def after_backup(self, backup_dir, step, logs):
        with open(self.path, "a") as log:
            log.write(f"{self.attempt} {step}\n")
