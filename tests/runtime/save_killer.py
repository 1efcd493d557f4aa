"""SIGKILLs a training process while one of its checkpoint saves is being written.

Started by digits_fit.py beside itself; a line on stdin arms it. It then polls the backup directory for a
save's staging directory (`ckpt-N_temp`, absent once the save completes). A poll that sees one cannot kill
at once: the save may finish between the look and the kill. So the process is stopped first (SIGSTOP), the
directory looked at again, and killed only if the save is still unfinished; otherwise it goes on.

    python save_killer.py PID BACKUP_DIR
"""

from __future__ import annotations

import glob
import os
import signal
import sys
import time

POLL_SECONDS = 0.0005
DEADLINE_SECONDS = 60


def staging_dirs(backup_dir: str) -> set[str]:
    return set(glob.glob(os.path.join(backup_dir, "ckpt-*_temp")))


def stopped(pid: int) -> bool:
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0] in ("T", "t")


def kill_mid_save(pid: int, backup_dir: str) -> None:
    stale = staging_dirs(backup_dir)  # left by an earlier run's kill: not this run's save
    deadline = time.monotonic() + DEADLINE_SECONDS
    while time.monotonic() < deadline:
        if staging_dirs(backup_dir) - stale:
            os.kill(pid, signal.SIGSTOP)
            while not stopped(pid):
                time.sleep(POLL_SECONDS)
            if staging_dirs(backup_dir) - stale:
                os.kill(pid, signal.SIGKILL)
                return
            os.kill(pid, signal.SIGCONT)
        time.sleep(POLL_SECONDS)
    os.kill(pid, signal.SIGKILL)  # no save seen: the test's check of the staging directory fails, saying so


def main() -> None:
    pid, backup_dir = int(sys.argv[1]), sys.argv[2]
    if sys.stdin.readline():  # EOF: the job ended without reaching its fault step
        kill_mid_save(pid, backup_dir)


if __name__ == "__main__":
    main()
