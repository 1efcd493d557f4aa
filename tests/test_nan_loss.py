"""A NaN loss ends training with an error, as Estimator's NanTensorHook (added to every train call) did:
tests/legacy/nan_program.py under the Estimator (legacy env) and, rewritten, under both targets. All three
fail at the NaN step with "NaN loss during training."; the loop target keeps, as the Estimator, the
checkpoint of step 4 as its latest (the keras target keeps its in-call backups in model_dir/backup)."""

from __future__ import annotations

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
