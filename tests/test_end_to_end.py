"""The spine, end to end: the real Estimator (legacy env) against the programs `migrate rewrite` makes.

1. Resume: each program is SIGKILLed right after its checkpoint of step 6 (by its own hook, a real
   signal to a real process) and run again; the migrated programs must stop and resume at the steps the
   Estimator does, and do nothing more when run once more after finishing.
2. Step equivalence: from the Estimator's own initial weights (`model.ckpt-0`) and the same unshuffled
   batches, 20 steps of the migrated program give the Estimator's `model.ckpt-20` weights within 1e-5.
"""

from __future__ import annotations

import shutil
import signal
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf
import tf_keras

from estimator_migrate.compat import canned
from estimator_migrate.compat.legacy_checkpoint import LegacyCheckpoint
from estimator_migrate.compat.rebuild import weight_sources
from estimator_migrate.compat.recognise import recognise
from migrate.demo import checkpoint_step
from tests.conftest import (
    EXAMPLE,
    MIGRATE,
    MODERN_PYTHON,
    ROOT,
    migrate_file,
    run,
    run_migrated_from_estimator_start,
)

# On one xdist worker (--dist loadgroup): the module's reference runs (module fixtures) are made once.
pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("end_to_end")]
KILLED = -signal.SIGKILL
EQUIVALENCE_PROGRAM = ROOT / "tests" / "legacy" / "equivalence_program.py"


def crash_and_resume(python: Path, program: Path, model_dir: Path, step_dir: Path) -> list:
    """[exit of run 1, step saved before the kill, exit of run 2, final step, final step after run 3]."""
    flags = ["--model_dir", model_dir, "--max_steps", "10", "--interrupt_at", "5"]
    first = run([python, program, *flags], check_codes=(KILLED,)).returncode
    saved = checkpoint_step(step_dir)
    second = run([python, program, *flags]).returncode
    final = checkpoint_step(model_dir)
    run([python, program, *flags])
    return [first, saved, second, final, checkpoint_step(model_dir)]


@pytest.fixture(scope="module")
def estimator_resume(legacy_python, tmp_path_factory):
    model_dir = tmp_path_factory.mktemp("estimator") / "model"
    return crash_and_resume(legacy_python, EXAMPLE, model_dir, model_dir)


def test_estimator_reference_is_the_seed_scenario(estimator_resume):
    assert estimator_resume == [KILLED, 6, 0, 10, 10]


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_migrated_program_resumes_like_the_estimator(target, estimator_resume, tmp_path):
    program = migrate_file(EXAMPLE, tmp_path / "migrated", target)
    model_dir = tmp_path / "model"
    step_dir = model_dir / "backup" / "chief" if target == "keras" else model_dir
    assert crash_and_resume(MODERN_PYTHON, program, model_dir, step_dir) == estimator_resume


def build_equivalence_model() -> tf_keras.Model:
    """The model the rewrite makes of tests/legacy/equivalence_program.py."""
    columns = [tf.compat.v1.feature_column.numeric_column("x", shape=[8, 8])]
    optimizer = tf_keras.optimizers.Adam(learning_rate=0.01, epsilon=1e-08)
    return canned.dnn_classifier(columns, [32, 16], n_classes=10, optimizer=optimizer, loss_reduction="sum")


@pytest.fixture(scope="module")
def estimator_steps(legacy_python, tmp_path_factory):
    model_dir = tmp_path_factory.mktemp("estimator_equivalence")
    run([legacy_python, EQUIVALENCE_PROGRAM, "--model_dir", model_dir, "--max_steps", "20"])
    return model_dir


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_migrated_steps_equal_estimator_steps(target, estimator_steps, tmp_path):
    """Start the migrated program from the Estimator's converted step 0; 20 steps later, same weights."""
    _, model_dir = run_migrated_from_estimator_start(EQUIVALENCE_PROGRAM, estimator_steps, target, tmp_path, "--max_steps", "20")

    final = build_equivalence_model()
    tf.train.Checkpoint(model=final, optimizer=final.optimizer).restore(
        tf.train.latest_checkpoint(str(model_dir))
    ).expect_partial()
    assert int(final.optimizer.iterations) == 20
    reference = LegacyCheckpoint(estimator_steps / "model.ckpt-20")
    initial = LegacyCheckpoint(estimator_steps / "model.ckpt-0")
    estimator = recognise(reference)
    for variable, (name,) in weight_sources(estimator, final):
        expected = reference.read(name)
        assert not np.allclose(expected, initial.read(name)), f"{name} did not train"
        np.testing.assert_allclose(variable.numpy(), expected, rtol=0, atol=1e-5, err_msg=name)


@pytest.fixture(scope="module")
def interrupted_estimator_dir(legacy_python, tmp_path_factory):
    """The Estimator example SIGKILLed right after its checkpoint of step 6: model.ckpt-6 is the latest."""
    model_dir = tmp_path_factory.mktemp("interrupted_estimator") / "model"
    flags = ["--model_dir", model_dir, "--max_steps", "10", "--interrupt_at", "5"]
    run([legacy_python, EXAMPLE, *flags], check_codes=(KILLED,))
    assert checkpoint_step(model_dir) == 6
    return model_dir


@pytest.mark.parametrize("target", ["keras"])  # one target: tests/conftest.py, "Targets"
def test_migrated_program_continues_after_in_place_conversion(target, interrupted_estimator_dir, tmp_path):
    """convert-checkpoint MODEL_DIR, then the migrated program on the same model_dir continues at step 7."""
    model_dir = tmp_path / "model"
    shutil.copytree(interrupted_estimator_dir, model_dir)
    legacy = {p.name: p.read_bytes() for p in model_dir.iterdir() if p.name.startswith("model.ckpt-")}
    run([MIGRATE, "convert-checkpoint", model_dir])
    assert {n: (model_dir / n).read_bytes() for n in legacy} == legacy, "legacy files must stay untouched"
    assert "model.ckpt-6" in (model_dir / "checkpoint.estimator").read_text()
    assert tf.train.latest_checkpoint(str(model_dir)).endswith("ckpt-6")

    program = migrate_file(EXAMPLE, tmp_path / "migrated", target)
    flags = ["--model_dir", model_dir, "--max_steps", "10"]
    # Killed after its 2nd step: a program that resumed has saved step 8; one that started over, step 2.
    run([MODERN_PYTHON, program, *flags, "--interrupt_at", "1"], check_codes=(KILLED,))
    step_dir = model_dir / "backup" / "chief" if target == "keras" else model_dir
    assert checkpoint_step(step_dir) == 8
    run([MODERN_PYTHON, program, *flags])
    assert checkpoint_step(model_dir) == 10


@pytest.mark.parametrize("target", ["loop"])  # one target: tests/conftest.py, "Targets"
def test_migrated_program_continues_an_unconverted_estimator_model_dir(target, interrupted_estimator_dir, tmp_path):
    """No conversion step: the migrated program started on the Estimator's model_dir carries model.ckpt-6 over
    by itself and continues at step 7 (killed after its 2nd step, it has saved step 8; a program that started
    over would have saved step 2), and run again it ends at 10. Every Estimator file stays as it was (its
    state file as checkpoint.estimator)."""
    model_dir = tmp_path / "model"
    shutil.copytree(interrupted_estimator_dir, model_dir)
    files = {p.name: p.read_bytes() for p in model_dir.iterdir() if p.is_file()}
    program = migrate_file(EXAMPLE, tmp_path / "migrated", target)
    flags = ["--model_dir", model_dir, "--max_steps", "10"]
    killed = run([MODERN_PYTHON, program, *flags, "--interrupt_at", "1"], check_codes=(KILLED,))
    assert f"Continuing the Estimator's checkpoint {model_dir / 'model.ckpt-6'} at step 7" in killed.stderr
    step_dir = model_dir / "backup" / "chief" if target == "keras" else model_dir
    assert checkpoint_step(step_dir) == 8
    run([MODERN_PYTHON, program, *flags])
    assert checkpoint_step(model_dir) == 10
    for name, content in files.items():
        kept = "checkpoint.estimator" if name == "checkpoint" else name
        assert (model_dir / kept).read_bytes() == content, name
