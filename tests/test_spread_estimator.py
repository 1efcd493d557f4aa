"""An Estimator built from dicts of settings (tests/legacy/spread_estimator_program.py: `Estimator(**estimator_keys)`
with `RunConfig(**config_keys)` in them, the serving receiver from a factory of the program's). Both were kept on
TF1 before, with TODOs ("pass the arguments by name"): the run-time tier now takes them, `wrapped_model_fns.
Estimator(**estimator_keys)` (Estimator's parameters, checked when the program runs) and the receiver checked by
the export. Migrated for each target and started on a directory holding only the Estimator's model.ckpt-0, it ends
with every variable of the Estimator's model.ckpt-20 within 1e-5, the same evaluation and predictions, and an
export serving the Estimator's values."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import (
    MODERN_PYTHON,
    ROOT,
    assert_wrapped_run_matches_estimator,
    estimator_start,
    migrate_file,
    run,
    served_raw_digits,
)

pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("spread_estimator")]
PROGRAM = ROOT / "tests" / "legacy" / "spread_estimator_program.py"
AS_TF1 = ROOT / "tests" / "legacy" / "run_as_tf1.py"
STEPS = 20


@pytest.fixture(scope="module")
def estimator_dir(legacy_python, tmp_path_factory):
    model_dir = tmp_path_factory.mktemp("estimator") / "model"
    run([legacy_python, AS_TF1, PROGRAM, "--model_dir", model_dir, "--max_steps", STEPS,
         "--results", model_dir.parent / "results.json", "--export_dir", model_dir.parent / "export"])
    (model_dir / "results.json").write_text((model_dir.parent / "results.json").read_text())
    return model_dir


@pytest.mark.parametrize("target", ["loop"])  # one target: tests/conftest.py, "Targets"
def test_an_estimator_built_from_settings_dicts_continues_the_estimator(estimator_dir, target, tmp_path):
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    source = migrated.read_text().split('"""', 2)[2]
    assert "wrapped_model_fns.Estimator(**estimator_keys)" in source
    assert "estimator_training.TrainingConfig(**config_keys)" in source and "TODO(migrate)" not in source
    model_dir, results = estimator_start(estimator_dir, tmp_path / "model"), tmp_path / "results.json"
    run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--max_steps", STEPS, "--results", results,
         "--export_dir", tmp_path / "export"])
    assert_wrapped_run_matches_estimator(model_dir, estimator_dir, STEPS, ("logits/kernel", "logits/kernel/Adam"),
                                         results, {"accuracy", "loss", "global_step"})
    expected, got = served_raw_digits(estimator_dir.parent / "export"), served_raw_digits(tmp_path / "export")
    assert sorted(got) == sorted(expected) == ["classes", "logits"]
    for key, value in expected.items():
        np.testing.assert_allclose(got[key], value, rtol=0, atol=1e-4, err_msg=key)
