"""MonitoredTrainingSession loops migrated to a Keras model and a CheckpointManager loop
(codemods/monitored_sessions.py), against the real session: tests/legacy/monitored_session_program.py runs
under TensorFlow 2.15 in TF1 graph mode; rewritten, under the newest TensorFlow, from the session's own
model.ckpt-0 (converted with compat.model_fns.convert_estimator_checkpoint). Compared: the checkpoints each
leaves (steps), and every weight of the last one within 1e-5, for a run to a last step, a restart of a
finished run (the session takes one more step), a run ended by its input, runs stopped by a hook of the
program's own (a SessionRunHook become a Keras callback; the loss each step fetched with train_op, and the
losses LoggingTensorHook logged, within 1e-5), and NaN losses (NanTensorHook) between saves and
at a save step. SIGKILLed after a save, the
migrated program resumes from it."""

from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pytest
import tensorflow as tf

from estimator_migrate.compat import model_fns
from tests.conftest import (
    MODERN_PYTHON,
    ROOT,
    assert_weights_match_tf1,
    import_program,
    latest_saved_step,
    migrate_file,
    run,
    saved_steps,
    sigkill_after_save,
)

# On one xdist worker (--dist loadgroup): the module's reference runs (module fixtures) are made once.
pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("monitored_session")]
PROGRAM = ROOT / "tests" / "legacy" / "monitored_session_program.py"
# case -> runs, each continuing in the same checkpoint_dir: (last_step, save_steps, more arguments)
CASES = {
    "to_last_step": [(20, 7, [])],
    "finished_run_restarted": [(10, 7, []), (20, 7, []), (20, 7, [])],
    "input_ends": [(100, 6, ["--epochs", 1])],
    "hook_requests_stop": [(100, 5, ["--runs", 12]), (100, 5, ["--runs", 4])],
    # NanTensorHook raises: NaN at a step between saves (not saved), at a save step (saved first)
    "nan_between_saves": [(20, 5, ["--nan_at_step", 8])],
    "nan_at_a_save_step": [(20, 5, ["--nan_at_step", 10])],
}


def _runs(python, program, directory, runs, keep_start=None) -> list[list[float]]:
    """The runs one after the other; `keep_start`: where to copy model.ckpt-0 after the first (the session
    keeps 5 checkpoints). Returns each run's logged losses (LoggingTensorHook's `loss = ...` lines)."""
    logged = []
    for index, (last_step, save_steps, more) in enumerate(runs):
        completed = run([python, program, directory, last_step, save_steps, *more], check_codes=(0, 1))
        failed = "--nan_at_step" in more
        assert completed.returncode == failed, completed.stderr[-3000:]
        assert ("NaN loss during training" in completed.stderr) == failed
        lines = re.findall(r"INFO:tensorflow:loss = .*", completed.stderr)
        # TF 2.21 prints each INFO line twice once a checkpoint save has called absl's logging (which runs
        # logging.basicConfig): the program's own tf.logging lines as well. Count each logged line once.
        lines = [line for index, line in enumerate(lines) if index == 0 or line != lines[index - 1]]
        logged.append([float(line.split(" = ")[1].split(" ")[0]) for line in lines])
        if index == 0 and keep_start is not None:
            keep_start.mkdir()
            for path in directory.glob("model.ckpt-0.*"):
                shutil.copyfile(path, keep_start / path.name)
    return logged



@pytest.fixture(scope="module")
def session_dirs(legacy_python, tmp_path_factory):
    """Each case's checkpoint_dir, trained by the real MonitoredTrainingSession (its first checkpoint copied
    to start/ beside it)."""
    directories = {}
    for case, runs in CASES.items():
        directories[case] = tmp_path_factory.mktemp(case) / "session"
        logged = _runs(legacy_python, PROGRAM, directories[case], runs, keep_start=directories[case].parent / "start")
        (directories[case].parent / "logged.json").write_text(json.dumps(logged))
    return directories


def _model(module):
    model = module.TrainModel()
    model.make_variables(module.input_fn().element_spec)
    return model


@pytest.mark.parametrize("target", ["keras"])  # one target: tests/conftest.py, "Targets"
def test_migrated_session_takes_the_sessions_steps_and_saves(target, session_dirs, tmp_path):
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    code = migrated.read_text()
    assert "MonitoredTrainingSession(" not in code and "TODO(migrate)" not in code
    assert "disable_eager_execution" not in code
    module = import_program(migrated)
    for case, runs in CASES.items():
        session_dir, directory = session_dirs[case], tmp_path / case
        start = session_dir.parent / "start" / "model.ckpt-0"
        saved = model_fns.convert_estimator_checkpoint(_model(module), start, directory)
        assert saved.endswith("ckpt-0")
        logged = _runs(MODERN_PYTHON, migrated, directory, runs)
        expected_logs = json.loads((session_dir.parent / "logged.json").read_text())
        assert [len(values) for values in logged] == [len(values) for values in expected_logs], case
        for values, expected in zip(logged, expected_logs):
            np.testing.assert_allclose(values, expected, rtol=0, atol=1e-5, err_msg=f"{case}: logged losses")

        assert saved_steps(directory) == saved_steps(session_dir), case
        if (session_dir / "losses.jsonl").exists():  # the loss each step fetched, run by run
            ours, theirs = ((d / "losses.jsonl").read_text().splitlines() for d in (directory, session_dir))
            assert [len(json.loads(line)) for line in ours] == [len(json.loads(line)) for line in theirs] == [12, 4]
            for line, expected in zip(ours, theirs):
                np.testing.assert_allclose(json.loads(line), json.loads(expected), rtol=0, atol=1e-5)
        last = saved_steps(session_dir)[-1]
        model = _model(module)
        tf.train.Checkpoint(model=model, optimizer=model.optimizer).restore(
            tf.train.latest_checkpoint(str(directory))
        ).expect_partial()
        assert int(model.optimizer.iterations) == last, case
        assert_weights_match_tf1(model, session_dir / f"model.ckpt-{last}", start, case)  # (trained, or NaN)


def test_session_steps_of_the_cases(session_dirs):
    """What the real session did, which the migrated loop must do: saves at start, every save_steps and at the
    end; a finished run restarted takes one more step; the input ending ends training, saved; a hook's
    request_stop ends it after that step (12 steps, then 4 more: saves 0, 5, 10, 12, then 12 again at the
    restart, 16 at the end: the cadence counts from the last save)."""
    assert saved_steps(session_dirs["to_last_step"]) == [0, 7, 14, 20]
    assert saved_steps(session_dirs["finished_run_restarted"]) == [7, 10, 17, 20, 21]
    assert saved_steps(session_dirs["input_ends"]) == [0, 6, 12, 18, 20]
    assert saved_steps(session_dirs["hook_requests_stop"]) == [0, 5, 10, 12, 16]
    logged = json.loads((session_dirs["hook_requests_stop"].parent / "logged.json").read_text())
    assert [len(values) for values in logged] == [4, 2]  # every 3 steps of each run: 0, 3, 6, 9; 0, 3
    assert saved_steps(session_dirs["nan_between_saves"]) == [0, 5]
    assert saved_steps(session_dirs["nan_at_a_save_step"]) == [0, 5, 10]



@pytest.mark.parametrize("target", ["loop"])  # one target: tests/conftest.py, "Targets"
def test_migrated_session_resumes_after_sigkill(target, tmp_path):
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    directory = tmp_path / "run"
    saved = sigkill_after_save([MODERN_PYTHON, migrated, directory, 100000, 100], directory, at_least=300)
    assert saved >= 300 and saved % 100 == 0
    # Re-run to the step it had saved: resumed, it takes exactly one more (a run started over would end at
    # `saved`, one that lost the optimizer's step would save elsewhere).
    run([MODERN_PYTHON, migrated, directory, saved, 100])
    assert latest_saved_step(directory) == saved + 1
