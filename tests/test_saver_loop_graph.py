"""tf.Session + tf.train.Saver loops whose graph no Keras class holds, migrated with the graph kept as written in
a nested model_fn (tier 2, compat.wrapped_model_fns), against the real session: tests/legacy/
saver_loop_graph_program.py runs under TensorFlow 2.15 in TF1 graph mode from its initial weights (a run of 0
steps: model.ckpt-0); rewritten, under the newest TensorFlow, from the same model.ckpt-0, which the migrated
`saver.restore` loads by its TF1 names. Compared, run by run: the loss each step fetched with train_op and every
variable of the last checkpoint (weights, Adam's or Momentum's slots, the global step), within 1e-5, for a
one-shot iterator input (Adam, clipped gradients, an L2 penalty) and numpy batches fed through placeholders
(variable-scoped layers, Momentum), each run twice (the second restores the first's last save). SIGKILLed after
a save, the migrated program resumes from it."""

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
    sigkill_after_save,
)

# On one xdist worker (--dist loadgroup): the module's reference runs (module fixtures) are made once.
pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("saver_loop_graph")]
PROGRAM = ROOT / "tests" / "legacy" / "saver_loop_graph_program.py"
# case -> runs continuing in the same model_dir: (train_steps, save_every, more arguments)
CASES = {"iterator": [(10, 7, []), (20, 7, [])], "fed": [(10, 4, ["--fed"]), (20, 4, ["--fed"])]}
# the steps each run took: the fed loop saves every 4 steps and not at its end, so its second run restarts at 8
STEPS_TAKEN = {"iterator": [10, 10], "fed": [10, 12]}
TRAINED = {"iterator": ("encoder/w", "logits/kernel", "encoder/w/Adam"), "fed": ("layer0/kernel", "layer1/kernel")}


def _runs(python, program, directory, runs) -> list[list[float]]:
    """The runs one after the other; returns the losses each fetched (losses.jsonl)."""
    for train_steps, save_every, more in runs:
        run([python, program, directory, train_steps, save_every, *more])
    return [json.loads(line) for line in (directory / "losses.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def session_dirs(legacy_python, tmp_path_factory):
    """Each case's model_dir trained by the real tf.Session program from its initial weights, which a run of 0
    steps saved in start/ beside it."""
    directories = {}
    for case, runs in CASES.items():
        start = tmp_path_factory.mktemp(case) / "start"
        run([legacy_python, PROGRAM, start, 0, 1, *runs[0][2]])
        directories[case] = start.parent / "session"
        _from(start, directories[case])
        _runs(legacy_python, PROGRAM, directories[case], runs)
    return directories


def _from(start, directory):
    """`directory` holding only the initial weights, model.ckpt-0."""
    directory.mkdir()
    for path in start.glob("model.ckpt-0.*"):
        shutil.copy(path, directory)
    (directory / "checkpoint").write_text('model_checkpoint_path: "model.ckpt-0"\n')


@pytest.mark.parametrize("target", ["keras"])  # one target: tests/conftest.py, "Targets"
def test_migrated_graph_loop_takes_the_sessions_steps(target, session_dirs, tmp_path):
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    code = migrated.read_text()
    assert "tf.Session(" not in code and "Saver(" not in code and "TODO(migrate)" not in code
    assert "wrapped_model_fns.WrappedModelFn(train_graph)" in code and "tf.get_variable(" in code
    for case, runs in CASES.items():
        session_dir, directory = session_dirs[case], tmp_path / case
        _from(session_dir.parent / "start", directory)
        losses = _runs(MODERN_PYTHON, migrated, directory, runs)
        expected = [json.loads(line) for line in (session_dir / "losses.jsonl").read_text().splitlines()]
        assert [len(values) for values in losses] == [len(values) for values in expected] == STEPS_TAKEN[case]
        for values, reference in zip(losses, expected):
            np.testing.assert_allclose(values, reference, rtol=0, atol=1e-5, err_msg=f"{case}: fetched losses")
        assert_tf1_variables_match(directory, session_dir / "model.ckpt-20", session_dir.parent / "start" / "model.ckpt-0",
                                   20, TRAINED[case], case)


def test_migrated_graph_loop_resumes_after_sigkill(tmp_path):
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", "loop")
    directory, steps = tmp_path / "run", 3000
    saved = sigkill_after_save([MODERN_PYTHON, migrated, directory, steps, 100], directory, at_least=300)
    assert 300 <= saved < steps and saved % 100 == 0, "the kill did not interrupt the training"
    run([MODERN_PYTHON, migrated, directory, steps, 100])
    assert latest_saved_step(directory) == steps
    # The restarted run took the steps from the save on, not from the start
    assert [len(json.loads(line)) for line in (directory / "losses.jsonl").read_text().splitlines()] == [steps - saved]


TF1_PROGRAM = ROOT / "tests" / "legacy" / "tf1_session_loop_program.py"
AS_TF1 = ROOT / "tests" / "legacy" / "run_as_tf1.py"


@pytest.mark.parametrize("target", ["loop"])  # one target: tests/conftest.py, "Targets"
def test_a_tf1_named_loop_with_its_own_global_step_variable_takes_the_sessions_steps(target, legacy_python, tmp_path):
    """TensorFlow 1.x's tutorial loop (TF1 names, raw variables, `global_step = tf.Variable(0, trainable=False,
    name="global_step")`): the graph kept in the nested model_fn is spelled `tf.compat.v1` as the rest of the module
    is (it was left in TF1 names TensorFlow 2 lacks), the variable becomes get_or_create_global_step(); from the
    session's model.ckpt-0 the migrated loop fetches the session's losses and saves its steps and variables (1e-5)."""
    session_dir = tmp_path / "session"
    run([legacy_python, AS_TF1, TF1_PROGRAM, session_dir, 20, 7])
    migrated = migrate_file(TF1_PROGRAM, tmp_path / "migrated", target)
    code = migrated.read_text()
    assert "tf.Session(" not in code and "TODO(migrate)" not in code and "tf.truncated_normal" not in code
    assert "global_step = tf.compat.v1.train.get_or_create_global_step()" in code
    directory = tmp_path / "migrated_run"
    _from(session_dir, directory)
    run([MODERN_PYTHON, migrated, directory, 20, 7])
    losses, expected = ([json.loads(line) for line in (d / "losses.jsonl").read_text().splitlines()]
                        for d in (directory, session_dir))
    assert [len(values) for values in losses] == [len(values) for values in expected] == [20]
    np.testing.assert_allclose(losses[0], expected[0], rtol=0, atol=1e-5)
    assert_tf1_variables_match(directory, session_dir / "model.ckpt-14", session_dir / "model.ckpt-0", 14, ("w", "b"))
