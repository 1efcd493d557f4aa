"""RunConfig(train_distribute=...) end to end: the real Estimator on two replicas (legacy env) against the
programs `migrate rewrite` makes of it, both targets (codemods/rules/train_distribute.py).

From the Estimator's step 0 (converted by convert-checkpoint), 20 migrated steps under the same
MirroredStrategy (fit, or the loop's strategy.run) give the Estimator's model.ckpt-20 within 1e-5: the same per-replica batches (each replica
takes whole input_fn batches) and the same reduction of the replicas' losses (v2 head: means scaled by
1/replicas; v1 head: sums). Its evaluate() then gives the Estimator's metrics.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import assert_matches_estimator_checkpoint, run, run_migrated_from_estimator_start
from tests.legacy.distributed_programs import PROGRAMS

pytestmark = [pytest.mark.slow, pytest.mark.legacy]
STEPS = 20


@pytest.fixture(scope="module")
def estimator_runs(legacy_python, tmp_path_factory):
    """Each program run by the real Estimator on two replicas: its source, model_dir and metrics."""
    runs = {}
    for name, source in PROGRAMS.items():
        work = tmp_path_factory.mktemp(name)
        program = work / f"{name}.py"
        program.write_text(source)
        metrics = work / "estimator.json"
        run([legacy_python, program, "--model_dir", work / "estimator", "--max_steps", STEPS, "--metrics_out",
             metrics], timeout=600)
        runs[name] = (program, work / "estimator", metrics)
    return runs


@pytest.mark.parametrize("target", ["keras", "loop"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_migrated_program_takes_the_distributed_estimators_steps(name, target, estimator_runs, tmp_path):
    program, estimator_dir, estimator_metrics = estimator_runs[name]
    migrated_metrics = tmp_path / "migrated.json"
    migrated, model_dir = run_migrated_from_estimator_start(
        program, estimator_dir, target, tmp_path, "--max_steps", STEPS, "--metrics_out", migrated_metrics
    )

    assert "distribute_datasets_from_function" in migrated.read_text()
    assert_matches_estimator_checkpoint(model_dir, estimator_dir, STEPS)
    expected, actual = json.loads(estimator_metrics.read_text()), json.loads(migrated_metrics.read_text())
    assert actual.keys() == expected.keys()
    for key, value in expected.items():
        assert actual[key] == pytest.approx(value, rel=1e-4, abs=1e-6), key
