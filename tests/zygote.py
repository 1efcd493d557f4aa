"""Program runs of the test suite that skip `import tensorflow`: forked from an interpreter that did it once.

conftest.run hands a run here when it is `[python, script.py, args...]` under one of the two environments and the
script imports TensorFlow as the server did: under the legacy environment every script that leaves
TF_USE_LEGACY_KERAS alone (TensorFlow 2.15 reads it at its import too); under the modern one only a migrated module, which sets TF_USE_LEGACY_KERAS=1 before
TensorFlow is imported (the server imported it so; TensorFlow picks tf.keras's package at import). Each server
(tests/zygote_server.py) belongs to one pytest worker and serves its runs one at a time. The child is a new process
(its own pid, killed with real signals when it runs past the timeout), with the test's directory, environment and
fresh random seeds; it differs from a new interpreter only in what it inherited: TensorFlow's modules, already
imported, and the server's hash seed. Runs that start processes of their own, read stdin or are killed by the test
(conftest.sigkill_after_save and the like) start a new interpreter, as does everything with
ESTIMATOR_MIGRATE_FRESH_PROCESSES=1 set.

Measured: `import tensorflow` is 3.5-4.5 s of each run on this machine (10-14 s on a slow one), most of a short
program's run (docs/benchmarks.md, suite time).
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

SERVER = Path(__file__).resolve().parent / "zygote_server.py"
STARTUP_TIMEOUT = 600
_MIGRATED_MARK = 'os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")'


class Zygote:
    """One server process: `run` forks a child of it for a script."""

    def __init__(self, python: Path, modules: list[str], env: dict):
        self._directory = tempfile.mkdtemp(prefix="zygote-")
        self.socket_path = os.path.join(self._directory, "socket")
        self._log = open(os.path.join(self._directory, "server.log"), "w+b")  # noqa: SIM115 (lives with the server)
        self.process = subprocess.Popen([str(python), str(SERVER), self.socket_path, *modules], env=env,
                                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self._log)
        selector = selectors.DefaultSelector()
        selector.register(self.process.stdout, selectors.EVENT_READ)
        if not selector.select(STARTUP_TIMEOUT) or self.process.stdout.readline().strip() != b"ready":
            self.close()
            raise RuntimeError(f"the zygote of {python} did not start: {self._server_log()}")

    def _server_log(self) -> str:
        self._log.seek(0)
        return self._log.read().decode(errors="replace")[-4000:]

    def run(self, argv: list[str], cwd: str | None, env: dict, timeout: float,
            module: str | None = None) -> subprocess.CompletedProcess:
        """Run `argv` (a script and its arguments; or `module`, argv its arguments after argv[0]) in a child: its
        exit code, stdout and stderr, as subprocess.run with capture_output=True and text=True gives them;
        subprocess.TimeoutExpired past `timeout`, the child killed."""
        request = json.dumps({"argv": argv, "module": module, "cwd": str(cwd or os.getcwd()), "env": env}).encode()
        out_read, out_write = os.pipe()
        err_read, err_write = os.pipe()
        stdin = os.open(os.devnull, os.O_RDONLY)
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            connection.connect(self.socket_path)
            socket.send_fds(connection, [request], [stdin, out_write, err_write])
        finally:
            for descriptor in (stdin, out_write, err_write):
                os.close(descriptor)
        replies = connection.makefile("rb")
        try:
            pid = json.loads(replies.readline())["pid"]
            stdout, stderr = _read_until_closed(out_read, err_read, pid, time.monotonic() + timeout, argv)
            returncode = json.loads(replies.readline())["returncode"]
        except subprocess.TimeoutExpired:
            replies.readline()  # (the server reaped the killed child)
            raise
        finally:
            replies.close()
            connection.close()
        return subprocess.CompletedProcess(argv, returncode, stdout, stderr)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()
        self._log.close()
        for name in os.listdir(self._directory):
            os.remove(os.path.join(self._directory, name))
        os.rmdir(self._directory)


def _read_until_closed(out: int, err: int, pid: int, deadline: float, argv: list) -> tuple[str, str]:
    """Both pipes read to their end (the child and whatever inherited them exited), as text; past the deadline the
    child is killed and subprocess.TimeoutExpired raised with what it wrote to stderr."""
    chunks: dict[int, list[bytes]] = {out: [], err: []}
    selector = selectors.DefaultSelector()
    for descriptor in chunks:
        os.set_blocking(descriptor, False)
        selector.register(descriptor, selectors.EVENT_READ)
    try:
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                os.kill(pid, signal.SIGKILL)
                raise subprocess.TimeoutExpired(argv, 0, stderr=b"".join(chunks[err]))
            for key, _ in selector.select(min(remaining, 1.0)):
                data = os.read(key.fd, 1 << 16)
                if data:
                    chunks[key.fd].append(data)
                else:
                    selector.unregister(key.fd)
    finally:
        selector.close()
        os.close(out)
        os.close(err)
    return tuple(b"".join(chunks[descriptor]).decode(errors="replace") for descriptor in (out, err))


class Zygotes:
    """The servers of this pytest process, one per environment, started at their first run."""

    def __init__(self, legacy_python: Path, modern_python: Path, env: dict):
        self._pythons = {str(legacy_python): ("legacy", ["tensorflow", "tensorflow_estimator"], env),
                         str(modern_python): ("modern", ["tensorflow", "tf_keras"],
                                              {**env, "TF_USE_LEGACY_KERAS": "1"})}
        self._started: dict[str, Zygote] = {}
        self.enabled = os.environ.get("ESTIMATOR_MIGRATE_FRESH_PROCESSES") != "1"

    def _program(self, command: list, env: dict, cwd) -> Path | None:
        """The file `command` runs: its script, or the module `-m` names (under cwd or PYTHONPATH)."""
        if str(command[1]) != "-m":
            return Path(command[1]) if str(command[1]).endswith(".py") else None
        if len(command) < 3:
            return None
        relative = Path(*str(command[2]).split("."))
        for base in [str(cwd or os.getcwd()), *env.get("PYTHONPATH", "").split(os.pathsep)]:
            for candidate in (Path(base) / relative.with_suffix(".py"), Path(base) / relative / "__main__.py"):
                if base and candidate.is_file():
                    return candidate
        return None

    def takes(self, command: list, kwargs: dict, env: dict) -> bool:
        """Whether `command` may run in a child of a server: a script or `-m` module under one of the two pythons,
        nothing but cwd and timeout asked of subprocess, and for the modern python a migrated module."""
        if not self.enabled or len(command) < 2 or str(command[0]) not in self._pythons \
                or set(kwargs) - {"cwd", "timeout"}:
            return False
        program = self._program(command, env, kwargs.get("cwd"))
        if program is None:
            return False
        try:
            head = program.read_text()[:4000]
        except (OSError, UnicodeDecodeError):
            return False
        if self._pythons[str(command[0])][0] == "legacy":  # (TF 2.15 reads the variable at its import, too)
            return "TF_USE_LEGACY_KERAS" not in head
        return _MIGRATED_MARK in head

    def run(self, command: list, env: dict, cwd=None, timeout: float = 900) -> subprocess.CompletedProcess:
        python = str(command[0])
        if python not in self._started:
            _, modules, server_env = self._pythons[python]
            self._started[python] = Zygote(Path(python), modules, server_env)
        arguments = [str(c) for c in command[1:]]
        if arguments[0] == "-m":
            program = self._program(command, env, cwd)
            completed = self._started[python].run([str(program), *arguments[2:]], cwd, env, timeout, arguments[1])
        else:
            completed = self._started[python].run(arguments, cwd, env, timeout)
        return subprocess.CompletedProcess([str(c) for c in command], completed.returncode, completed.stdout,
                                           completed.stderr)

    def close(self) -> None:
        for zygote in self._started.values():
            zygote.close()
        self._started.clear()
