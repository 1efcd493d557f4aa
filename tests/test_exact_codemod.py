"""`migrate rewrite --exact`, end to end: the migrated programs resume bit-exactly after real kills.

tests/runtime/seeded_estimator.py (DNNClassifier with dropout, shuffled numpy_input_fn, seeded by
RunConfig(tf_random_seed=...) only, as Estimator programs were) is rewritten for each target with and without `--exact`, and run in the modern environment: killed with
SIGKILL after seeded random numbers of steps, run again, and compared with an uninterrupted run of the
same migrated program. Exact: bit-identical weights and optimizer slots. Without --exact the difference
is what BackupAndRestore / re-reading the input gives (kept as a test that documents it). SIGTERM: the
program saves the finished step and exits with 75; the re-run ends bit-identical too.
"""

from __future__ import annotations

import random
import signal
from pathlib import Path

import pytest
import tensorflow as tf

from compat.preemption import PREEMPTED_EXIT_CODE
from tests.conftest import MIGRATE, MODERN_PYTHON, ROOT, max_difference, run

pytestmark = pytest.mark.slow
PROGRAM = ROOT / "tests" / "runtime" / "seeded_estimator.py"
MAX_STEPS = 60
KILLED = -signal.SIGKILL


def migrated(tmp_path: Path, target: str, exact: bool, program: Path = PROGRAM) -> Path:
    out = tmp_path / f"{target}{'-exact' if exact else ''}"
    run([MIGRATE, "rewrite", program, "--target", target, "--out", out, *(["--exact"] if exact else [])])
    return out / program.name


def train(program: Path, model_dir: Path, *flags, code=0):
    return run([MODERN_PYTHON, program, "--model_dir", model_dir, *flags], check_codes=(code,))


def final_state(model_dir: Path) -> dict:
    latest = tf.train.latest_checkpoint(str(model_dir))
    assert latest.endswith(f"ckpt-{MAX_STEPS}")
    reader = tf.train.load_checkpoint(latest)
    names = [n for n in reader.get_variable_to_shape_map() if n.startswith(("model/", "optimizer/"))]
    return {name: reader.get_tensor(name) for name in names}


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_exact_migration_resumes_bit_identically(target, tmp_path):
    program = migrated(tmp_path, target, exact=True)
    train(program, tmp_path / "uninterrupted")
    rng = random.Random(target)
    kills = [rng.randint(2, 18) for _ in range(3)]  # steps of each run before its SIGKILL
    for steps in kills:
        train(program, tmp_path / "interrupted", "--interrupt_at", steps, code=KILLED)
    train(program, tmp_path / "interrupted")
    assert max_difference(final_state(tmp_path / "interrupted"), final_state(tmp_path / "uninterrupted")) == 0.0


# The RunConfig inline in the constructor, input_fns chaining dataset methods: the run-time tier.
INLINE_SEED_PROGRAM = ROOT / "tests" / "runtime" / "inline_seed_estimator.py"


@pytest.mark.parametrize("program", [PROGRAM, INLINE_SEED_PROGRAM], ids=["tier1", "runtime_tier"])
@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("target", ["keras", "loop"])
def test_tf_random_seed_makes_two_runs_identical(target, exact, program, tmp_path):
    """RunConfig(tf_random_seed=...) alone (Python's `random` never seeded): two uninterrupted runs of the
    migrated program from empty model_dirs end bit-identical, as two runs of the Estimator did."""
    program = migrated(tmp_path, target, exact, program)
    train(program, tmp_path / "first")
    train(program, tmp_path / "second")
    assert max_difference(final_state(tmp_path / "first"), final_state(tmp_path / "second")) == 0.0


def test_without_tf_random_seed_two_runs_differ(tmp_path):
    """The control: the same program without tf_random_seed is not reproducible (nor was the Estimator)."""
    unseeded = tmp_path / PROGRAM.name
    source = PROGRAM.read_text()
    assert "tf_random_seed=7, " in source
    unseeded.write_text(source.replace("tf_random_seed=7, ", ""))
    out = tmp_path / "migrated"
    run([MIGRATE, "rewrite", unseeded, "--target", "keras", "--out", out])
    train(out / PROGRAM.name, tmp_path / "first")
    train(out / PROGRAM.name, tmp_path / "second")
    assert max_difference(final_state(tmp_path / "first"), final_state(tmp_path / "second")) > 1e-3


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_plain_migration_is_not_exact(target, tmp_path):
    """The anchor: without --exact the resumed run re-reads its input from a fresh shuffle."""
    program = migrated(tmp_path, target, exact=False)
    train(program, tmp_path / "uninterrupted")
    train(program, tmp_path / "interrupted", "--interrupt_at", "13", code=KILLED)
    train(program, tmp_path / "interrupted")
    assert max_difference(final_state(tmp_path / "interrupted"), final_state(tmp_path / "uninterrupted")) > 1e-3


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_exact_migration_saves_on_sigterm(target, tmp_path):
    program = migrated(tmp_path, target, exact=True)
    train(program, tmp_path / "uninterrupted")
    interrupted = tmp_path / "interrupted"
    train(program, interrupted, "--interrupt_at", "13", "--interrupt_with", "SIGTERM", code=PREEMPTED_EXIT_CODE)
    state_dir = interrupted / "backup" if target == "keras" else interrupted
    assert tf.train.latest_checkpoint(str(state_dir)).endswith("ckpt-13")  # cadence 5: 13 is the SIGTERM save
    train(program, interrupted)
    assert max_difference(final_state(interrupted), final_state(tmp_path / "uninterrupted")) == 0.0
