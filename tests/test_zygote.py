"""tests/zygote.py: a run forked from an interpreter that imported TensorFlow behaves, as the tests see it, like the
same command in a new interpreter (the suite's runs go through it: conftest.run)."""

import subprocess
import textwrap

import pytest

from tests.conftest import LEGACY_PYTHON, MODERN_PYTHON, QUIET_TF, ZYGOTES

pytestmark = pytest.mark.skipif(not ZYGOTES.enabled, reason="ESTIMATOR_MIGRATE_FRESH_PROCESSES=1: no zygotes")

KERAS_SWITCH = 'os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")'
PROGRAM = textwrap.dedent(f"""
    import os, random, sys
    {KERAS_SWITCH}
    import numpy as np
    import tensorflow as tf
    print("argv", sys.argv[1:], "cwd", os.getcwd(), "main", __name__, "path0", sys.path[0])
    print("draws", random.random(), np.random.rand())
    print("keras", tf.keras.__name__)
    print("to stderr", file=sys.stderr)
    action = sys.argv[1] if len(sys.argv) > 1 else ""
    if action == "raise":
        raise ValueError("the program's own error")
    if action == "exit":
        sys.exit(75)
    if action == "kill":
        os.kill(os.getpid(), 9)
    if action == "hang":
        import time
        time.sleep(60)
""")


def both_ways(command: list, cwd) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess]:
    assert ZYGOTES.takes(command, {"cwd": cwd}, QUIET_TF)
    forked = ZYGOTES.run(command, QUIET_TF, cwd=cwd, timeout=300)
    fresh = subprocess.run([str(c) for c in command], capture_output=True, text=True, env=QUIET_TF, cwd=cwd,
                           timeout=300)
    return forked, fresh


def lines(output: str, prefix: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith(prefix)]


@pytest.mark.parametrize("python", [LEGACY_PYTHON, MODERN_PYTHON], ids=["legacy", "modern"])
def test_a_forked_run_is_the_new_interpreters_run(python, tmp_path):
    legacy = python == LEGACY_PYTHON  # (an Estimator program, which leaves TF_USE_LEGACY_KERAS alone)
    (tmp_path / "program.py").write_text(PROGRAM.replace(KERAS_SWITCH, "") if legacy else PROGRAM)
    forked, fresh = both_ways([python, tmp_path / "program.py", "raise"], tmp_path)
    assert forked.returncode == fresh.returncode == 1
    for prefix in ("argv", "keras"):  # (argv, cwd, __name__, sys.path[0]; tf.keras's package)
        assert lines(forked.stdout, prefix) == lines(fresh.stdout, prefix) != []
    assert lines(forked.stderr, "to stderr") == ["to stderr"]
    assert forked.stderr.rstrip().endswith("ValueError: the program's own error")
    for action, code in (("", 0), ("exit", 75), ("kill", -9)):  # (what a new interpreter's exit gives, known)
        assert ZYGOTES.run([python, tmp_path / "program.py", action], QUIET_TF, cwd=tmp_path).returncode == code
    draws = [lines(ZYGOTES.run([python, tmp_path / "program.py"], QUIET_TF, cwd=tmp_path).stdout, "draws")
             for _ in range(2)]
    assert draws[0] != draws[1]  # reseeded from the operating system, as a new interpreter is


def test_a_module_runs_as_python_m_runs_it(tmp_path):
    (tmp_path / "package").mkdir()
    (tmp_path / "package" / "__init__.py").write_text("")
    (tmp_path / "package" / "program.py").write_text(PROGRAM)
    forked, fresh = both_ways([MODERN_PYTHON, "-m", "package.program", "exit"], tmp_path)
    assert forked.returncode == fresh.returncode == 75
    assert lines(forked.stdout, "argv") == lines(fresh.stdout, "argv")  # __main__, sys.path[0] the directory


def test_a_run_past_its_timeout_is_killed(tmp_path):
    (tmp_path / "program.py").write_text(PROGRAM)
    with pytest.raises(subprocess.TimeoutExpired):
        ZYGOTES.run([LEGACY_PYTHON, tmp_path / "program.py", "hang"], QUIET_TF, cwd=tmp_path, timeout=20)
    after = ZYGOTES.run([LEGACY_PYTHON, tmp_path / "program.py", "exit"], QUIET_TF, cwd=tmp_path)
    assert after.returncode == 75  # the server serves the next run


def test_programs_the_server_did_not_import_for_start_afresh(tmp_path):
    (tmp_path / "plain.py").write_text("import tensorflow as tf\nprint(tf.keras.__name__)\n")
    assert not ZYGOTES.takes([MODERN_PYTHON, tmp_path / "plain.py"], {}, QUIET_TF)  # Keras 3's: its own import
    assert not ZYGOTES.takes([MODERN_PYTHON, "-c", "print(1)"], {}, QUIET_TF)
    assert not ZYGOTES.takes([LEGACY_PYTHON, tmp_path / "plain.py"], {"input": "x"}, QUIET_TF)
    assert ZYGOTES.takes([LEGACY_PYTHON, tmp_path / "plain.py"], {}, QUIET_TF)
    (tmp_path / "program.py").write_text(PROGRAM)  # TF 2.15 with TF_USE_LEGACY_KERAS=1 wants tf_keras: ImportError
    assert not ZYGOTES.takes([LEGACY_PYTHON, tmp_path / "program.py"], {}, QUIET_TF)
