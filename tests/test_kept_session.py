"""A MonitoredTrainingSession in no loop shape the rewrite migrates runs as TF1 graph code, saving on preemption.

tests/legacy/kept_session_program.py feeds placeholders from numpy (the batch picked by the global step), which no
migrated loop shape takes: the migrated program keeps its graph and session, through
compat.graph_sessions.monitored_training_session, and its entry point switches TF1 behaviour on. The reference
runs under TensorFlow 2.15 with 1.x's API (tests/legacy/run_as_tf1.py); both start on the reference's
model.ckpt-0 and end at step 60 with the same variables within 1e-5 (the two TensorFlows' kernels round apart in
the last bits). SIGTERM: the migrated program saves the step it finished and exits 75; run again, it ends at the
last step with the uninterrupted run's variables exactly. In eager mode the session is one clear error.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import tensorflow as tf

from compat.preemption import PREEMPTED_EXIT_CODE
from tests.conftest import MODERN_PYTHON, ROOT, latest_saved_step, migrate_file, run, sigterm_after_first_save

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("kept_session")]
PROGRAM = ROOT / "tests" / "legacy" / "kept_session_program.py"
AS_TF1 = ROOT / "tests" / "legacy" / "run_as_tf1.py"
ATOL = 1e-5


def variables(directory) -> dict:
    reader = tf.train.load_checkpoint(str(directory))
    return {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()}


@pytest.fixture(scope="module")
def migrated(tmp_path_factory):
    out = tmp_path_factory.mktemp("kept_session")
    program = migrate_file(PROGRAM, out, "keras", "--report", out / "report.json")
    findings = json.loads((out / "report.json").read_text())["files"][0]["findings"]
    assert any(f["rule"] == "unsupported-api" and f["migrated"] and "graph_sessions" in f["message"] for f in findings)
    assert "graph_sessions.monitored_training_session(" in program.read_text()
    return program


@pytest.mark.legacy
def test_the_kept_session_takes_the_tf1_sessions_steps(legacy_python, migrated, tmp_path):
    first, start, reference, model_dir = (tmp_path / name for name in ("first", "start", "reference", "migrated"))
    run([legacy_python, AS_TF1, PROGRAM, "--model_dir", first, "--last_step", 1])  # saves model.ckpt-0 first
    start.mkdir()
    for file in first.glob("model.ckpt-0.*"):
        shutil.copy(file, start / file.name)
    (start / "checkpoint").write_text('model_checkpoint_path: "model.ckpt-0"\n')
    shutil.copytree(start, reference)
    shutil.copytree(start, model_dir)
    run([legacy_python, AS_TF1, PROGRAM, "--model_dir", reference])
    run([MODERN_PYTHON, migrated, "--model_dir", model_dir])
    assert latest_saved_step(reference) == latest_saved_step(model_dir) == 60
    got, expected, initial = variables(model_dir), variables(reference), variables(start)
    assert set(got) == set(expected)
    for name, value in expected.items():
        if name != "global_step" and not name.endswith("_power"):
            assert not np.array_equal(value, initial[name]), f"{name} did not train"
        np.testing.assert_allclose(got[name], value, rtol=0, atol=ATOL, err_msg=name)


def test_sigterm_saves_the_finished_step_exits_75_and_the_rerun_ends_as_the_uninterrupted_one(migrated, tmp_path):
    whole, interrupted = tmp_path / "whole", tmp_path / "interrupted"
    arguments = ["--last_step", 3000, "--save_steps", 1000]
    run([MODERN_PYTHON, migrated, "--model_dir", whole, *arguments])

    code, stderr = sigterm_after_first_save([MODERN_PYTHON, migrated, "--model_dir", interrupted, *arguments],
                                            interrupted)
    assert code == PREEMPTED_EXIT_CODE, stderr[-2000:]
    saved = latest_saved_step(interrupted)
    assert 0 < saved < 3000 and saved % 1000 != 0, saved  # saved at the signal, not on the cadence
    assert f"saved {interrupted}/model.ckpt-{saved} after step {saved}" in stderr

    run([MODERN_PYTHON, migrated, "--model_dir", interrupted, *arguments])
    assert latest_saved_step(interrupted) == 3000
    got, expected = variables(interrupted), variables(whole)
    assert set(got) == set(expected)
    for name, value in expected.items():
        np.testing.assert_array_equal(got[name], value, err_msg=name)


def test_in_eager_mode_the_session_is_one_error_naming_the_switch(tmp_path):
    script = ("from estimator_migrate.compat import graph_sessions\n"
              f"graph_sessions.monitored_training_session(checkpoint_dir={str(tmp_path)!r})\n")
    completed = run([MODERN_PYTHON, "-c", script], check_codes=(1,))
    assert completed.stderr.strip().splitlines()[-1] == (
        "RuntimeError: MonitoredTrainingSession runs TensorFlow 1.x graphs, and TensorFlow 2 executes eagerly: call "
        "estimator_migrate.compat.tf1_programs.run_as_tf1() (or tf.compat.v1.disable_v2_behavior()) at the start of "
        "the program, before its graph is built")
