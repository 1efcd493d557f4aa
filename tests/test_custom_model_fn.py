"""Custom model_fn Estimators migrated to Keras models (codemods/model_fns.py), against the real thing:
tests/legacy/custom_model_fn_program.py trains two model_fn Estimators (TF1 layers + Adagrad; inline Keras
layers + gradient descent) under TensorFlow 2.15; rewritten, the same program trains the migrated classes
under both targets from the Estimators' own step 0 (loaded by name with
compat.model_fns.convert_estimator_checkpoint). After 20 steps on the same batches every weight is the
Estimator's within 1e-5, evaluate() returns its metrics (rtol 1e-4) and predict() its predictions. Started on
the model_dir of an Estimator stopped at step 10, the migrated program carries its checkpoint over by itself
and ends at 20 where the Estimator re-run on it ended (the input starts over in both), leaving every
Estimator file as it was.
With --exact, SIGKILLed after a save of step >= 50 and re-run, both targets end with the weights of an
uninterrupted run from the same start, bit for bit."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import time

import numpy as np
import pytest
import tensorflow as tf

from estimator_migrate.compat import model_fns
from migrate.demo import checkpoint_step
from tests.conftest import (
    MODERN_PYTHON,
    QUIET_TF,
    ROOT,
    assert_weights_match_tf1,
    import_program,
    migrate_file,
    run,
)

# On one xdist worker (--dist loadgroup): the module's reference runs (module fixtures) are made once.
pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("custom_model_fn")]
PROGRAM = ROOT / "tests" / "legacy" / "custom_model_fn_program.py"
STEPS = 20
RESUME_STEPS = 300  # killed once step 50 is saved: mid-training
# model_dir subdirectory -> (the class the model_fn becomes, the params the program gives it)
MODELS = {"layers": ("LayersModelFn", "LAYERS_PARAMS"), "keras": ("KerasModelFn", "KERAS_PARAMS")}


@pytest.fixture(scope="module")
def estimator_dirs(legacy_python, tmp_path_factory):
    """(uninterrupted to 20, stopped at 10 and re-run to 20, a copy of that one as it was at 10) Estimator
    model_dirs."""
    straight = tmp_path_factory.mktemp("estimator") / "model"
    run([legacy_python, PROGRAM, "--model_dir", straight, "--max_steps", STEPS, "--results", straight / "results.json"])
    restarted = tmp_path_factory.mktemp("estimator_restarted") / "model"
    stopped = tmp_path_factory.mktemp("estimator_stopped") / "model"
    run([legacy_python, PROGRAM, "--model_dir", restarted, "--max_steps", STEPS // 2])
    shutil.copytree(restarted, stopped)
    run([legacy_python, PROGRAM, "--model_dir", restarted, "--max_steps", STEPS])
    return straight, restarted, stopped


def _model(module, name):
    class_name, params = MODELS[name]
    model = getattr(module, class_name)(params=getattr(module, params))
    model.make_variables(module.train_input_fn().element_spec)
    return model


def _start_from_estimator(module, estimator_dir, model_dir):
    """Each migrated model's TF2 checkpoint 0, holding the Estimator's model.ckpt-0."""
    for name in MODELS:
        model = _model(module, name)
        saved = model_fns.convert_estimator_checkpoint(model, estimator_dir / name / "model.ckpt-0", model_dir / name)
        assert saved.endswith("ckpt-0") and int(model.optimizer.iterations) == 0


def _latest_saved_step(directory) -> int:
    """The highest step of the latest checkpoints below `directory` (each folder with a state file)."""
    try:
        return max([checkpoint_step(state.parent) or 0 for state in directory.rglob("checkpoint")], default=0)
    except (OSError, tf.errors.OpError):  # a save in progress: its temporary directory went away
        return 0


def _restored(module, name, model_dir):
    """A migrated model restored from the latest checkpoint in model_dir/name."""
    model = _model(module, name)
    tf.train.Checkpoint(model=model, optimizer=model.optimizer).restore(
        tf.train.latest_checkpoint(str(model_dir / name))
    ).expect_partial()
    return model


def _assert_matches(module, model_dir, estimator_dir):
    for name in MODELS:
        model = _restored(module, name, model_dir)
        assert int(model.optimizer.iterations) == STEPS
        assert_weights_match_tf1(
            model, estimator_dir / name / f"model.ckpt-{STEPS}", estimator_dir / name / "model.ckpt-0", name
        )


def _assert_same_results(migrated: dict, estimator: dict) -> None:
    """evaluate(): the same keys and values (rtol 1e-4); predict(): the same per-example dicts; the exports:
    the same signatures (one, serving_default: the predictions), inputs (names, dtypes, shapes) and outputs."""
    for name in MODELS:
        assert migrated[name]["evaluation"].keys() == estimator[name]["evaluation"].keys()
        assert migrated[name]["evaluation"]["global_step"] == STEPS
        for key, value in estimator[name]["evaluation"].items():
            np.testing.assert_allclose(migrated[name]["evaluation"][key], value, rtol=1e-4, err_msg=f"{name}: {key}")
        assert len(migrated[name]["predictions"]) == len(estimator[name]["predictions"]) == 50
        for ours, theirs in zip(migrated[name]["predictions"], estimator[name]["predictions"]):
            assert ours.keys() == theirs.keys()
            for key in theirs:
                np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-4, atol=1e-6, err_msg=f"{name}: {key}")
        served, expected = migrated[name]["served"], estimator[name]["served"]
        assert sorted(served) == sorted(expected) == ["serving_default"]
        assert served["serving_default"]["inputs"] == expected["serving_default"]["inputs"]
        outputs, expected_outputs = served["serving_default"]["outputs"], expected["serving_default"]["outputs"]
        assert sorted(outputs) == sorted(expected_outputs)
        for key, (dtype, values) in expected_outputs.items():
            assert outputs[key][0] == dtype, f"{name}: served {key}"
            np.testing.assert_allclose(outputs[key][1], values, rtol=1e-4, atol=1e-6, err_msg=f"{name}: served {key}")


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_migrated_model_fns_take_the_estimators_steps(target, estimator_dirs, tmp_path):
    straight, restarted, _ = estimator_dirs
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    code = migrated.read_text()
    assert "class LayersModelFn(model_fns.EstimatorModel)" in code and "tf.estimator" not in code
    module = import_program(migrated)

    _start_from_estimator(module, straight, tmp_path / "straight")
    results = tmp_path / "results.json"
    run([MODERN_PYTHON, migrated, "--model_dir", tmp_path / "straight", "--max_steps", STEPS, "--results", results])
    _assert_matches(module, tmp_path / "straight", straight)
    _assert_same_results(json.loads(results.read_text()), json.loads((straight / "results.json").read_text()))


@pytest.mark.parametrize("flags", [(), ("--exact",)], ids=["plain", "exact"])
@pytest.mark.parametrize("target", ["keras", "loop"])
def test_migrated_model_fns_continue_the_estimators_own_model_dir(target, flags, estimator_dirs, tmp_path):
    """Started on the model_dir an Estimator left at step 10, the migrated program carries its model.ckpt-10
    over by itself (weights, Adagrad/SGD state, step) and ends at 20 where the Estimator restarted on the same
    model_dir ended; every file the Estimator wrote is still there unchanged (its state file as
    checkpoint.estimator, the `checkpoint` file now naming the TF2 checkpoint)."""
    _, restarted, stopped = estimator_dirs
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target, *flags)
    module = import_program(migrated)
    model_dir = tmp_path / "model"
    shutil.copytree(stopped, model_dir)
    estimator_files = {path: path.read_bytes() for path in model_dir.rglob("*") if path.is_file()}
    completed = run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--max_steps", STEPS])

    _assert_matches(module, model_dir, restarted)
    for name in MODELS:
        assert f"Continuing the Estimator's checkpoint {model_dir / name / 'model.ckpt-10'} at step 11" in completed.stderr
    for path, content in estimator_files.items():
        kept = path.with_name("checkpoint.estimator") if path.name == "checkpoint" else path
        assert kept.read_bytes() == content, path


@pytest.mark.parametrize("target", ["keras"])  # one target: tests/conftest.py, "Targets"
def test_migrated_model_fns_resume_exactly_after_sigkill(target, tmp_path):
    """`--exact`: SIGKILLed mid-training, the re-run ends with the weights of an uninterrupted run, bit for
    bit, so the checkpoint restores the whole migrated model (layers made by make_variables, optimizer
    slots, step, input position)."""
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target, "--exact")
    module = import_program(migrated)
    command = [MODERN_PYTHON, migrated, "--max_steps", RESUME_STEPS, "--model_dir"]
    killed = tmp_path / "killed"
    for name in MODELS:  # both runs start from the same weights
        model = _model(module, name)
        checkpoint = tf.train.Checkpoint(model=model, optimizer=model.optimizer)
        for directory in (tmp_path / "straight", killed):
            tf.train.CheckpointManager(checkpoint, directory / name, max_to_keep=1).save(checkpoint_number=0)
    run([*command, tmp_path / "straight"])
    process = subprocess.Popen([str(c) for c in [*command, killed]], env=QUIET_TF, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while _latest_saved_step(killed / "layers") < 50:  # in model_dir (loop) or its backup dir (keras)
        assert process.poll() is None and time.monotonic() < deadline, "no checkpoint of step 50 in time"
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    assert process.wait() == -signal.SIGKILL
    run([*command, killed])
    for name in MODELS:
        finished = [_restored(module, name, directory) for directory in (tmp_path / "straight", killed)]
        assert [int(model.optimizer.iterations) for model in finished] == [RESUME_STEPS] * 2
        for straight, resumed in zip(*(model.trainable_variables for model in finished)):
            np.testing.assert_array_equal(resumed.numpy(), straight.numpy(), err_msg=f"{name}: {straight.name}")
