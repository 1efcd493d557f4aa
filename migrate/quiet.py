"""TensorFlow's own log lines kept off the tool's output: the commands and the demo show their own lines only.

`--verbose`, or ESTIMATOR_MIGRATE_VERBOSE=1 in the environment, brings them back.
"""

from __future__ import annotations

import logging
import os
import sys
import warnings

VERBOSE = "ESTIMATOR_MIGRATE_VERBOSE"


def verbose() -> bool:
    return os.environ.get(VERBOSE, "") not in ("", "0")


def quiet_environment(environment: dict[str, str]) -> dict[str, str]:
    """`environment` for a child process that loads TensorFlow: its C++ logging at errors only, unless
    verbose or the user set it."""
    if verbose():
        return environment
    return {"TF_CPP_MIN_LOG_LEVEL": "2", **environment}


def quiet_tensorflow() -> None:
    """Keep TensorFlow's start-up lines (absl, oneDNN, CPU features), its Python log and Python warnings off
    stderr, where the command's own result or one-line error goes. Before TensorFlow is imported; a user's own
    TF_CPP_MIN_LOG_LEVEL wins; nothing when verbose."""
    if verbose():
        return
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    if os.environ["TF_CPP_MIN_LOG_LEVEL"] == "3":
        _import_tensorflow_silently()
    logging.getLogger("tensorflow").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    warnings.filterwarnings("ignore", category=UserWarning)


def _import_tensorflow_silently() -> None:
    """Import TensorFlow with file descriptor 2 on /dev/null: TensorFlow 2.21's C++ writes its start-up lines
    (absl's "All log messages before absl::InitializeLog()", oneDNN's) before it reads TF_CPP_MIN_LOG_LEVEL
    (measured: they print with it set to 3). An import error is raised as ever, once stderr is back."""
    sys.stderr.flush()
    saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    try:
        import tensorflow  # noqa: F401
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)
