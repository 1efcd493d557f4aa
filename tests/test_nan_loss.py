"""A NaN loss ends training with an error, as Estimator's NanTensorHook (added to every train call) did:
tests/legacy/nan_program.py under the Estimator (legacy env) and, rewritten, under both targets. All three
fail at the NaN step with "NaN loss during training."; the loop target keeps, as the Estimator, the
checkpoint of step 4 as its latest (the keras target keeps its in-call backups in model_dir/backup)."""

from __future__ import annotations

import re

import pytest

from migrate.demo import checkpoint_step
from tests.conftest import MODERN_PYTHON, ROOT, migrate_file, run

pytestmark = [pytest.mark.slow, pytest.mark.legacy]
PROGRAM = ROOT / "tests" / "legacy" / "nan_program.py"
MESSAGE = "NaN loss during training."


def test_estimator_fails_on_the_nan_step(legacy_python, tmp_path):
    failed = run([legacy_python, PROGRAM, "--model_dir", tmp_path / "model"], check_codes=(1,))
    assert MESSAGE in failed.stderr and "NanLossDuringTrainingError" in failed.stderr
    assert checkpoint_step(tmp_path / "model") == 4


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_migrated_program_fails_on_the_nan_step(target, tmp_path):
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    failed = run([MODERN_PYTHON, migrated, "--model_dir", tmp_path / "model"], check_codes=(1,))
    assert MESSAGE in failed.stderr and "NanLossDuringTrainingError" in failed.stderr
    if target == "loop":
        assert checkpoint_step(tmp_path / "model") == 4


RETRY_PROGRAM = ROOT / "tests" / "legacy" / "nan_retry_program.py"
RETRY_OUTPUT = ["caught: NanLossDuringTrainingError NaN loss during training.", "clean run ended at step 20"]


def printed(stdout: str) -> list[str]:
    """The program's own lines (fit's progress bar shares stdout, without a newline before them)."""
    return re.findall(r"(caught: .*|clean run .*)", stdout)


@pytest.mark.parametrize("target", ["keras"])  # one target: tests/conftest.py, "Targets"
def test_a_program_catching_estimators_nan_error_catches_the_migrated_trainings(target, legacy_python, tmp_path):
    """`except tf.estimator.NanLossDuringTrainingError:` around a train call (drop the bad rows, train again): the
    migrated training raises that class (tf.compat.v1.train's), so the program recovers as it did; it stopped on an
    error of compat's own, uncaught."""
    estimator = run([legacy_python, RETRY_PROGRAM, "--model_dir", tmp_path / "estimator"])
    assert printed(estimator.stdout) == RETRY_OUTPUT
    migrated = migrate_file(RETRY_PROGRAM, tmp_path / "migrated", target)
    assert printed(run([MODERN_PYTHON, migrated, "--model_dir", tmp_path / "model"]).stdout) == RETRY_OUTPUT
    assert checkpoint_step(tmp_path / "model" / "clean") == 20
