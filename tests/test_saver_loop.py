"""tf.Session + tf.train.Saver loops migrated to a Keras model and a CheckpointManager (codemods/saver_loops.py),
against the real session: tests/legacy/saver_loop_program.py runs under TensorFlow 2.15 in TF1 graph mode;
rewritten, under the newest TensorFlow, from the session's own model.ckpt-0 (converted with
compat.model_fns.convert_estimator_checkpoint). Compared, run by run: the loss each step fetched with train_op
(within 1e-5), the checkpoints kept, and every weight of the last one (within 1e-5), for a one-shot iterator
input run to a step, resumed from its checkpoints, and ended by its input, and for numpy batches fed through
placeholders. SIGKILLed after a save, the migrated program resumes from it and ends with the weights of an
uninterrupted TF1 run.

Checkpoints kept: a TF1 Saver forgets the checkpoints of earlier runs (they stay on disk, unlisted, never
deleted); a CheckpointManager reads them from the state file and counts them toward max_to_keep. So the
migrated program lists the last max_to_keep of the steps the TF1 program left on disk, which end with the
ones the last TF1 run listed.
"""

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
    migrate_file,
    run,
    sigkill_after_save,
)

# On one xdist worker (--dist loadgroup): the module's reference runs (module fixtures) are made once.
pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("saver_loop")]
PROGRAM = ROOT / "tests" / "legacy" / "saver_loop_program.py"
# case -> (max_to_keep, runs continuing in the same model_dir: (train_steps, save_every, more arguments))
CASES = {
    "to_a_step": (3, [(20, 7, [])]),
    "resumed": (3, [(10, 7, []), (20, 7, []), (20, 7, [])]),  # the last run takes no step and saves again
    "input_ends": (3, [(100, 7, ["--epochs", 1])]),  # 20 batches
    "fed": (5, [(10, 4, ["--fed"]), (20, 4, ["--fed"])]),
}
SPEC = (tf.TensorSpec([None, 8], tf.float32), tf.TensorSpec([None], tf.int64))


def _runs(python, program, directory, runs) -> list[list[float]]:
    """The runs one after the other; returns the losses each fetched (losses.jsonl)."""
    for train_steps, save_every, more in runs:
        run([python, program, directory, train_steps, save_every, *more])
    return [json.loads(line) for line in (directory / "losses.jsonl").read_text().splitlines()]


def _listed_steps(directory) -> list[int]:
    state = tf.train.get_checkpoint_state(str(directory))
    return sorted(int(path.rsplit("-", 1)[1]) for path in state.all_model_checkpoint_paths)


def _steps_on_disk(directory) -> list[int]:
    return sorted(int(re.search(r"-(\d+)\.index$", path.name).group(1)) for path in directory.glob("model.ckpt-*.index"))


def _model(module, fed: bool):
    model = module.TrainFedModel() if fed else module.TrainModel()
    model.make_variables(SPEC)
    return model


def _assert_same_weights(module, fed, directory, session_dir, step, what):
    """The migrated program's latest checkpoint is at `step` and holds the TF1 program's model.ckpt-`step`."""
    model = _model(module, fed)
    tf.train.Checkpoint(model=model, optimizer=model.optimizer).restore(
        tf.train.latest_checkpoint(str(directory))
    ).assert_existing_objects_matched()
    assert int(model.optimizer.iterations) == step, what
    assert_weights_match_tf1(model, session_dir / f"model.ckpt-{step}", session_dir / "start", what)


def _from_initial_weights(legacy_python, directory, fed: bool):
    """A model_dir holding only the TF1 program's initial weights as model.ckpt-0 (a run of 0 steps), copied
    to start.* beside it, where the program's next run restores them."""
    run([legacy_python, PROGRAM, directory, 0, 1, *(["--fed"] if fed else [])])
    for path in directory.glob("model.ckpt-0.*"):
        shutil.copyfile(path, directory / path.name.replace("model.ckpt-0", "start"))
    (directory / "losses.jsonl").unlink()


@pytest.fixture(scope="module")
def session_dirs(legacy_python, tmp_path_factory):
    """Each case's model_dir, trained by the real tf.Session program from its initial weights."""
    directories = {}
    for case, (_, runs) in CASES.items():
        directories[case] = tmp_path_factory.mktemp(case) / "session"
        _from_initial_weights(legacy_python, directories[case], "--fed" in runs[0][2])
        _runs(legacy_python, PROGRAM, directories[case], runs)
    return directories


@pytest.fixture(scope="module")
def migrated(tmp_path_factory):
    """The program rewritten, both targets: a session loop is a custom loop, the same code for both."""
    out = tmp_path_factory.mktemp("migrated")
    programs = {target: migrate_file(PROGRAM, out / target, target) for target in ("keras", "loop")}
    return programs


def test_both_targets_emit_the_same_loop(migrated):
    code = migrated["loop"].read_text()
    assert migrated["keras"].read_text() == code
    assert "tf.Session(" not in code and "Saver(" not in code and "TODO(migrate)" not in code
    assert "disable_eager_execution" not in code


def test_session_steps_of_the_cases(session_dirs):
    """What the real program did, restoring its initial weights from model.ckpt-0 (which stays on disk): saves
    every 7 steps and at the end (max_to_keep=3); restarted, it
    restores the latest and lists only its own saves; the input ending (OutOfRangeError) ends the loop; fed,
    it saves every 4 steps and keeps 5."""
    assert _listed_steps(session_dirs["to_a_step"]) == [7, 14, 20]
    assert _listed_steps(session_dirs["resumed"]) == [20]
    assert _steps_on_disk(session_dirs["resumed"]) == [0, 7, 10, 14, 20]
    assert _listed_steps(session_dirs["input_ends"]) == [7, 14, 20]
    assert _listed_steps(session_dirs["fed"]) == [12, 16, 20]
    assert _steps_on_disk(session_dirs["fed"]) == [0, 4, 8, 12, 16, 20]


def test_migrated_loop_takes_the_sessions_steps_and_saves(session_dirs, migrated, tmp_path):
    module = import_program(migrated["loop"])
    for case, (keep, runs) in CASES.items():
        session_dir, directory = session_dirs[case], tmp_path / case
        fed = "--fed" in runs[0][2]
        model_fns.convert_estimator_checkpoint(_model(module, fed), session_dir / "start", directory)
        losses = _runs(MODERN_PYTHON, migrated["loop"], directory, runs)
        expected = [json.loads(line) for line in (session_dir / "losses.jsonl").read_text().splitlines()]
        assert [len(values) for values in losses] == [len(values) for values in expected], case
        for values, reference in zip(losses, expected):
            np.testing.assert_allclose(values, reference, rtol=0, atol=1e-5, err_msg=f"{case}: fetched losses")
        listed = _listed_steps(directory)
        assert listed == _steps_on_disk(session_dir)[-keep:], case
        assert listed[-len(_listed_steps(session_dir)) :] == _listed_steps(session_dir), case
        _assert_same_weights(module, fed, directory, session_dir, listed[-1], case)



def test_migrated_loop_resumes_after_sigkill(legacy_python, migrated, tmp_path):
    """The fed loop (its batches follow the step) SIGKILLed after a save of step >= 300 and run again ends
    where an uninterrupted TF1 run ends, with its weights and its losses since the save."""
    module = import_program(migrated["loop"])
    session_dir, directory = tmp_path / "session", tmp_path / "migrated"
    _from_initial_weights(legacy_python, session_dir, fed=True)
    model_fns.convert_estimator_checkpoint(_model(module, True), session_dir / "start", directory)
    saved = sigkill_after_save(
        [MODERN_PYTHON, migrated["loop"], directory, 100000, 100, "--fed"], directory, at_least=300
    )
    assert saved >= 300 and saved % 100 == 0 and not (directory / "losses.jsonl").exists()
    losses = _runs(MODERN_PYTHON, migrated["loop"], directory, [(saved + 100, 100, ["--fed"])])

    expected = _runs(legacy_python, PROGRAM, session_dir, [(saved + 100, 100, ["--fed"])])[0]  # uninterrupted
    assert len(losses) == 1 and len(losses[0]) == 100 and len(expected) == saved + 100
    np.testing.assert_allclose(losses[0], expected[-100:], rtol=0, atol=1e-5)
    _assert_same_weights(module, True, directory, session_dir, saved + 100, "resumed after SIGKILL")
