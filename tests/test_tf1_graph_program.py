"""A TensorFlow 1.x graph program kept as written runs on TensorFlow 2.21 as it ran on 1.x.

tests/legacy/tf1_graph_program.py (dnc's train.py shape: placeholders fed from numpy, `tf.layers`, clipped
`tf.gradients`, a SingularMonitoredSession restoring from checkpoint_dir with a CheckpointSaverHook) matches no loop
shape the rewrite migrates: its names become tf.compat.v1's and its entry point calls
`compat.tf1_programs.run_as_tf1()` first (codemods/rules/tf1_behavior.py); without that call it stops at its first
placeholder. The reference runs under TensorFlow 2.15 with 1.x's API and behaviour (tests/legacy/run_as_tf1.py);
both runs start on the same model.ckpt-0 (the reference's first run, 0 iterations). The migrated program logs the
same losses at the same iterations and ends with every variable of the reference's model.ckpt-30, within 1e-5 (the
two TensorFlows' kernels round apart in the last bits); SIGKILLed after a save and started again, it ends at the
same step with the uninterrupted run's variables (its batches follow the step).
"""

from __future__ import annotations

import re
import shutil

import pytest

from compat.preemption import PREEMPTED_EXIT_CODE
from tests.conftest import (
    MODERN_PYTHON,
    ROOT,
    assert_same_checkpoint_tensors,
    latest_saved_step,
    migrate_file,
    run,
    sigkill_after_save,
    sigterm_after_first_save,
)

pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("tf1_graph_program")]
PROGRAM = ROOT / "tests" / "legacy" / "tf1_graph_program.py"
AS_TF1 = ROOT / "tests" / "legacy" / "run_as_tf1.py"
ITERATIONS = 30
LOGGED = re.compile(r"^INFO:tensorflow:(\d+): Avg training loss (\S+)\.$", re.MULTILINE)
# TensorFlow 2.15 and 2.21 kernels round apart in the last float32 bits (threaded reductions): the same steps within this
ATOL = 1e-5


@pytest.fixture(scope="module")
def runs(legacy_python, tmp_path_factory):
    """The shared start (model.ckpt-0 only), the reference's directory after ITERATIONS and what it logged."""
    work = tmp_path_factory.mktemp("tf1_graph")
    start, reference = work / "start", work / "reference"
    run([legacy_python, AS_TF1, PROGRAM, "--checkpoint_dir", start, "--num_training_iterations", 0])
    assert latest_saved_step(start) == 0
    shutil.copytree(start, reference)
    completed = run([legacy_python, AS_TF1, PROGRAM, "--checkpoint_dir", reference,
                     "--num_training_iterations", ITERATIONS])
    return start, reference, LOGGED.findall(completed.stderr)


@pytest.fixture(scope="module")
def migrated(tmp_path_factory):
    out = tmp_path_factory.mktemp("migrated")
    program = migrate_file(PROGRAM, out / "keras", "keras")
    assert program.read_text() == migrate_file(PROGRAM, out / "loop", "loop").read_text()  # no target's code in it
    return program


def test_the_migrated_program_trains_as_the_tf1_one(runs, migrated, tmp_path):
    start, reference, logged = runs
    source = migrated.read_text()
    assert 'if __name__ == "__main__":\n    tf1_programs.run_as_tf1()' in source
    checkpoint_dir = tmp_path / "migrated"
    shutil.copytree(start, checkpoint_dir)
    completed = run([MODERN_PYTHON, migrated, "--checkpoint_dir", checkpoint_dir,
                     "--num_training_iterations", ITERATIONS])
    got = LOGGED.findall(completed.stderr)
    assert [iteration for iteration, _ in logged] == [iteration for iteration, _ in got] == ["4", "9", "14", "19", "24", "29"]
    assert [float(loss) for _, loss in got] == pytest.approx([float(loss) for _, loss in logged], rel=0, abs=ATOL)
    assert latest_saved_step(checkpoint_dir) == ITERATIONS
    assert_same_checkpoint_tensors(str(checkpoint_dir / f"model.ckpt-{ITERATIONS}"), str(reference / f"model.ckpt-{ITERATIONS}"),
                          atol=ATOL)


def test_without_tf1_behaviour_it_stops_at_its_first_placeholder(runs, migrated, tmp_path):
    """Why the entry point switches: TensorFlow 2 runs eagerly, and a placeholder has no eager meaning."""
    without = tmp_path / "without.py"
    without.write_text(migrated.read_text().replace("    tf1_programs.run_as_tf1()", "    pass", 1))
    completed = run([MODERN_PYTHON, without, "--checkpoint_dir", tmp_path / "model"], check_codes=(1,))
    assert "tf.placeholder() is not compatible with eager execution" in completed.stderr


def test_as_tf_upgrade_v2_left_it_the_program_gets_tf1_behaviour_and_trains_as_the_tf1_one(runs, migrated, tmp_path):
    """tf_upgrade_v2 spells the TF1 names tf.compat.v1's and switches nothing: the program still ran only on 1.x
    (its placeholders in no graph of its own). Rewritten from that form, it gets the same switch and steps."""
    start, reference, logged = runs
    upgraded = tmp_path / "upgraded" / "tf1_graph_program.py"
    upgraded.parent.mkdir()
    lines = [line for line in migrated.read_text().splitlines(keepends=True)
             if "estimator_migrate.compat import" not in line and "TF_USE_LEGACY_KERAS" not in line
             and "run_as_tf1()" not in line]
    upgraded.write_text("".join(lines).replace("graph_sessions.CheckpointSaverHook(", "tf.compat.v1.train.CheckpointSaverHook("))
    assert "graph_sessions" not in upgraded.read_text() and "tf.compat.v1.placeholder(" in upgraded.read_text()
    rewritten = migrate_file(upgraded, tmp_path / "rewritten", "keras")
    assert 'if __name__ == "__main__":\n    tf1_programs.run_as_tf1()' in rewritten.read_text()
    checkpoint_dir = tmp_path / "model"
    shutil.copytree(start, checkpoint_dir)
    completed = run([MODERN_PYTHON, rewritten, "--checkpoint_dir", checkpoint_dir, "--num_training_iterations", ITERATIONS])
    got = LOGGED.findall(completed.stderr)
    assert [float(loss) for _, loss in got] == pytest.approx([float(loss) for _, loss in logged], rel=0, abs=ATOL)
    assert_same_checkpoint_tensors(str(checkpoint_dir / f"model.ckpt-{ITERATIONS}"), str(reference / f"model.ckpt-{ITERATIONS}"),
                          atol=ATOL)


def copies_of(start, tmp_path, *kinds) -> dict:
    """A copy of the shared start directory for each of `kinds`, by kind."""
    directories = {kind: tmp_path / kind for kind in kinds}
    for directory in directories.values():
        shutil.copytree(start, directory)
    return directories


def test_killed_after_a_save_it_resumes_to_the_uninterrupted_weights(runs, migrated, tmp_path):
    start, _, _ = runs
    iterations = 600
    directories = copies_of(start, tmp_path, "uninterrupted", "killed")
    command = [MODERN_PYTHON, migrated, "--num_training_iterations", iterations]
    run([*command, "--checkpoint_dir", directories["uninterrupted"]])
    killed_at = sigkill_after_save([*command, "--checkpoint_dir", directories["killed"]], directories["killed"],
                                   at_least=5)
    assert 5 <= killed_at < iterations, "the kill did not interrupt the training"
    run([*command, "--checkpoint_dir", directories["killed"]])
    assert latest_saved_step(directories["killed"]) == iterations
    assert_same_checkpoint_tensors(str(directories["killed"] / f"model.ckpt-{iterations}"),
                          str(directories["uninterrupted"] / f"model.ckpt-{iterations}"), atol=ATOL)


def test_sigterm_saves_the_finished_iteration_exits_75_and_the_rerun_ends_as_the_uninterrupted_one(runs, migrated,
                                                                                                   tmp_path):
    """The program's CheckpointSaverHook is compat.graph_sessions's: on SIGTERM it saves the step it finished."""
    assert "graph_sessions.CheckpointSaverHook(" in migrated.read_text()
    start, _, _ = runs
    iterations = 3000
    directories = copies_of(start, tmp_path, "uninterrupted", "interrupted")
    command = [MODERN_PYTHON, migrated, "--num_training_iterations", iterations, "--checkpoint_interval", 1000]
    run([*command, "--checkpoint_dir", directories["uninterrupted"]])
    code, stderr = sigterm_after_first_save([*command, "--checkpoint_dir", directories["interrupted"]],
                                            directories["interrupted"], after=1.0)
    assert code == PREEMPTED_EXIT_CODE, stderr[-2000:]
    saved = latest_saved_step(directories["interrupted"])
    assert 0 < saved < iterations and saved % 1000 != 0, saved  # saved at the signal, not on the cadence
    run([*command, "--checkpoint_dir", directories["interrupted"]])
    assert latest_saved_step(directories["interrupted"]) == iterations
    assert_same_checkpoint_tensors(str(directories["interrupted"] / f"model.ckpt-{iterations}"),
                          str(directories["uninterrupted"] / f"model.ckpt-{iterations}"), atol=0)
