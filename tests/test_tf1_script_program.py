"""A TensorFlow 1.x graph script with no entry block runs on TensorFlow 2.21 as it ran on 1.x.

tests/legacy/tf1_script_program.py (Hands-On ML's shape: the graph built at module level, a Saver checkpointing
every epoch, the epoch number in a file beside it, a restart continuing from there) is kept as written; its TF1
names become tf.compat.v1's and `compat.tf1_programs.run_as_tf1()` follows its imports (codemods/rules/
tf1_behavior.py); without that call TensorFlow 2 stops at its first placeholder. The reference runs under
TensorFlow 2.15 with 1.x's API and behaviour (tests/legacy/run_as_tf1.py), seeded as the script seeds itself
(`reset_graph(seed=42)`): the migrated script prints the same losses and saves the same variables, within 1e-5;
SIGKILLed after an epoch's save and started again, it continues from that epoch, as the script was written to,
and ends with the uninterrupted run's variables.
"""

from __future__ import annotations

import re
import signal
import subprocess
import time

import pytest

from tests.conftest import MODERN_PYTHON, QUIET_TF, ROOT, assert_same_checkpoint_tensors, migrate_file, run

pytestmark = [pytest.mark.slow, pytest.mark.legacy]
PROGRAM = ROOT / "tests" / "legacy" / "tf1_script_program.py"
AS_TF1 = ROOT / "tests" / "legacy" / "run_as_tf1.py"
EPOCHS = 8
PRINTED = re.compile(r"^Epoch: (\d+) \tLoss: (\S+)$", re.MULTILINE)
ATOL = 1e-5  # TensorFlow 2.15 and 2.21 kernels round apart in the last float32 bits


def assert_same_variables(got, expected) -> None:
    names = assert_same_checkpoint_tensors(got, expected, ATOL)
    assert "dnn/hidden1/kernel" not in names  # (tf.layers names its own scope)


@pytest.fixture(scope="module")
def reference(legacy_python, tmp_path_factory):
    """The script run by TensorFlow 1.x's behaviour: its checkpoint prefix and the losses it printed."""
    prefix = tmp_path_factory.mktemp("reference") / "model.ckpt"
    completed = run([legacy_python, AS_TF1, PROGRAM, "--checkpoint_path", prefix, "--n_epochs", EPOCHS])
    return prefix, PRINTED.findall(completed.stdout)


@pytest.fixture(scope="module")
def migrated(tmp_path_factory):
    return migrate_file(PROGRAM, tmp_path_factory.mktemp("migrated"), "keras")


def test_the_migrated_script_trains_as_the_tf1_one(reference, migrated, tmp_path):
    expected_prefix, printed = reference
    assert "\ntf1_programs.run_as_tf1()  # TensorFlow 1.x's behaviour" in migrated.read_text()
    prefix = tmp_path / "model.ckpt"
    completed = run([MODERN_PYTHON, migrated, "--checkpoint_path", prefix, "--n_epochs", EPOCHS])
    got = PRINTED.findall(completed.stdout)
    assert [epoch for epoch, _ in got] == [epoch for epoch, _ in printed] == [str(e) for e in range(EPOCHS)]
    assert [float(loss) for _, loss in got] == pytest.approx([float(loss) for _, loss in printed], rel=0, abs=ATOL)
    assert_same_variables(prefix, expected_prefix)


def test_without_tf1_behaviour_it_stops_at_its_first_placeholder(migrated, tmp_path):
    without = tmp_path / "without.py"
    without.write_text(migrated.read_text().replace("\ntf1_programs.run_as_tf1()", "\npass", 1))
    completed = run([MODERN_PYTHON, without, "--checkpoint_path", tmp_path / "model.ckpt"], check_codes=(1,))
    assert "tf.placeholder() is not compatible with eager execution" in completed.stderr


def test_killed_after_an_epoch_it_continues_from_there_to_the_uninterrupted_weights(migrated, tmp_path):
    epochs = 40
    uninterrupted, killed = tmp_path / "uninterrupted" / "model.ckpt", tmp_path / "killed" / "model.ckpt"
    run([MODERN_PYTHON, migrated, "--checkpoint_path", uninterrupted, "--n_epochs", epochs])
    command = [str(c) for c in (MODERN_PYTHON, migrated, "--checkpoint_path", killed, "--n_epochs", epochs)]
    epoch_file = killed.parent / "model.ckpt.epoch"
    process = subprocess.Popen(command, env=QUIET_TF, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while process.poll() is None and time.monotonic() < deadline and not (
            epoch_file.exists() and epoch_file.read_bytes() not in (b"", b"1")):
        time.sleep(0.005)
    ended = process.poll()
    process.send_signal(signal.SIGKILL)
    _, stderr = process.communicate()
    assert ended is None, stderr.decode()[-2000:]
    saved = int(epoch_file.read_bytes())
    assert 2 <= saved < epochs, "the kill did not interrupt the training"
    completed = run(command)
    assert f"Training was interrupted. Continuing at epoch {saved}" in completed.stdout
    assert_same_variables(killed, uninterrupted)
