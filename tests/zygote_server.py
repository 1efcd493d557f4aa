"""A test-suite helper: an interpreter that has imported TensorFlow once and forks a child per program run.

`python tests/zygote_server.py SOCKET MODULE...` imports the modules, prints `ready`, then serves one request at a
time on the Unix socket SOCKET: a JSON request (argv: a script and its arguments, or `module` and its arguments as
`python -m` takes them; cwd, env) with three file descriptors (stdin, stdout, stderr) passed along. It forks; the child takes those descriptors, the directory and
the environment, reseeds Python's and numpy's generators from the operating system as a new interpreter would,
and runs the script or module as `__main__` (runpy), exiting as the interpreter would have (SystemExit's code; 1 and the
traceback on an exception; atexit handlers and non-daemon threads first). The server answers the child's pid, then
its exit code (negative: the signal that killed it).

Each child is a real process, killed with real signals; what it saves is only the seconds `import tensorflow` takes
(tests/zygote.py, which starts these servers, says which runs may use them).
"""

import atexit
import contextlib
import importlib
import json
import os
import random
import runpy
import shutil
import signal
import socket
import sys
import threading
import traceback

_PARENT_CHECK_SECONDS = 5


def _exit_code(code) -> int:
    """The status `sys.exit(code)` gives a process."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _run_child(request: dict, descriptors: list[int]) -> None:
    code = 1
    try:
        for target, descriptor in zip((0, 1, 2), descriptors):
            os.dup2(descriptor, target)
            os.close(descriptor)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        random.seed()
        if "numpy" in sys.modules:
            sys.modules["numpy"].random.seed()
        sys.argv = list(request["argv"])
        try:
            if request.get("module"):  # `python -m module`: the directory first on sys.path, argv[0] the module's file
                sys.path[0] = os.getcwd()
                runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
            else:
                sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[0]))
                runpy.run_path(sys.argv[0], run_name="__main__")
            code = 0
        except SystemExit as stop:
            code = _exit_code(stop.code)
        except BaseException:  # noqa: BLE001 (what the interpreter does with an uncaught exception)
            traceback.print_exc()
            code = 1
        threading._shutdown()
        atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001 (the child must never return into the server's loop)
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):  # (a stream the program closed)
                stream.flush()
        os._exit(code)


def serve(path: str, modules: list[str]) -> None:
    for name in modules:
        importlib.import_module(name)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(4)
    server.settimeout(_PARENT_CHECK_SECONDS)
    parent = os.getppid()
    print("ready", flush=True)
    while True:
        try:
            connection, _ = server.accept()
        except TimeoutError:
            if os.getppid() != parent:  # the pytest process that started it is gone (killed): so is its use
                shutil.rmtree(os.path.dirname(path), ignore_errors=True)
                return
            continue
        connection.settimeout(None)
        with connection:
            message, descriptors, _, _ = socket.recv_fds(connection, 1 << 22, 3)
            if not message or len(descriptors) != 3:
                continue
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                server.close()
                connection.close()
                _run_child(json.loads(message), descriptors)
            for descriptor in descriptors:
                os.close(descriptor)
            connection.sendall(json.dumps({"pid": pid}).encode() + b"\n")
            _, status = os.waitpid(pid, 0)
            connection.sendall(json.dumps({"returncode": os.waitstatus_to_exitcode(status)}).encode() + b"\n")


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2:])
