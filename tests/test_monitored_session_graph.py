"""MonitoredTrainingSession loops whose graph no Keras class holds, migrated with the graph kept as written in a
nested model_fn (tier 2, compat.wrapped_model_fns), against the real session: tests/legacy/
monitored_session_graph_program.py runs under TensorFlow 2.15 in TF1 graph mode; rewritten, under the newest
TensorFlow, on a checkpoint_dir holding only the session's model.ckpt-0, which the migrated program loads by
its TF1 names (no conversion step). Compared: the checkpoints each leaves (steps), every variable of the last one
(weights, Adam's or Momentum's slots, the global step) within 1e-5 of the session's, and the loss each step
fetched with train_op, for a run to a last step (the steps between saves in one tf.function call) and two runs
stopped by a hook of the program's own. SIGKILLed after a save, the migrated program resumes from it."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from tests.conftest import (
    MODERN_PYTHON,
    ROOT,
    assert_tf1_variables_match,
    latest_saved_step,
    migrate_file,
    run,
    saved_steps,
    sigkill_after_save,
)

# On one xdist worker (--dist loadgroup): the module's reference runs (module fixtures) are made once.
pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("monitored_session_graph")]
PROGRAM = ROOT / "tests" / "legacy" / "monitored_session_graph_program.py"
# case -> runs, each continuing in the same checkpoint_dir: (last_step, save_steps, more arguments)
CASES = {
    "to_last_step": [(20, 7, [])],
    "hook_requests_stop": [(100, 5, ["--runs", 12]), (100, 5, ["--runs", 4])],
}
TRAINED = {"to_last_step": ("encoder/w", "logits/kernel", "encoder/w/Adam_1"),
           "hook_requests_stop": ("layer0/kernel", "layer1/kernel", "layer0/kernel/Momentum")}


def _runs(python, program, directory, runs) -> None:
    for last_step, save_steps, more in runs:
        run([python, program, directory, last_step, save_steps, *more])



@pytest.fixture(scope="module")
def session_dirs(legacy_python, tmp_path_factory):
    """Each case's checkpoint_dir, trained by the real MonitoredTrainingSession."""
    directories = {}
    for case, runs in CASES.items():
        directories[case] = tmp_path_factory.mktemp(case) / "session"
        _runs(legacy_python, PROGRAM, directories[case], runs)
    return directories


def _session_start(session_dir, directory):
    """`directory` holding only the session's model.ckpt-0 (still there: the session keeps its 5 newest)."""
    directory.mkdir(parents=True)
    for path in session_dir.glob("model.ckpt-0.*"):
        shutil.copy(path, directory)
    (directory / "checkpoint").write_text('model_checkpoint_path: "model.ckpt-0"\n')


@pytest.mark.parametrize("target", ["loop"])  # one target: tests/conftest.py, "Targets"
def test_migrated_graph_session_takes_the_sessions_steps(target, session_dirs, tmp_path):
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    code = migrated.read_text()
    assert "MonitoredTrainingSession(" not in code and "TODO(migrate)" not in code
    assert "wrapped_model_fns.WrappedModelFn(train_graph)" in code and "tf.get_variable(" in code
    for case, runs in CASES.items():
        session_dir, directory = session_dirs[case], tmp_path / case
        _session_start(session_dir, directory)
        _runs(MODERN_PYTHON, migrated, directory, runs)
        assert saved_steps(directory) == saved_steps(session_dir), case
        last = saved_steps(session_dir)[-1]
        assert_tf1_variables_match(directory, session_dir / f"model.ckpt-{last}", session_dir / "model.ckpt-0", last,
                                   TRAINED[case], case)
        if case == "hook_requests_stop":  # the loss each step fetched with train_op, run by run
            ours, theirs = ((d / "losses.jsonl").read_text().splitlines() for d in (directory, session_dir))
            assert [len(json.loads(line)) for line in ours] == [len(json.loads(line)) for line in theirs] == [12, 4]
            for line, expected in zip(ours, theirs):
                np.testing.assert_allclose(json.loads(line), json.loads(expected), rtol=0, atol=1e-5)


def test_the_sessions_own_steps(session_dirs):
    """What the real session did: saves at start, every save_steps and at the end; a hook's request_stop ends
    it after that step (12, then 4 more from the restored 12)."""
    assert saved_steps(session_dirs["to_last_step"]) == [0, 7, 14, 20]
    assert saved_steps(session_dirs["hook_requests_stop"]) == [0, 5, 10, 12, 16]


@pytest.mark.parametrize("target", ["keras"])  # one target: tests/conftest.py, "Targets"
def test_migrated_graph_session_resumes_after_sigkill(target, tmp_path):
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    directory = tmp_path / "run"
    saved = sigkill_after_save([MODERN_PYTHON, migrated, directory, 100000, 100], directory, at_least=300)
    assert saved >= 300 and saved % 100 == 0
    # Re-run to the step it had saved: resumed, it takes exactly one more (a run started over would end at
    # `saved`, one that lost the optimizer's step would save elsewhere).
    run([MODERN_PYTHON, migrated, directory, saved, 100])
    assert latest_saved_step(directory) == saved + 1
