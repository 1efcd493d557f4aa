"""An EvalSpec exporter of the program's own (`class BestCheckpointCopier(tf.estimator.Exporter)`, the widely copied
best-checkpoint keeper) -> a subclass of compat.estimator_export.Exporter, which train_and_evaluate calls as
Estimator did: after each evaluation, given the estimator, model_dir/export/<name>, the checkpoint evaluated, its
metrics and whether it is the final export. tests/legacy/custom_exporter_program.py under the real Estimator and,
migrated for both targets from its model.ckpt-0: the same calls (steps, losses, final flags, paths) and the same
checkpoint kept as the best. Before, `tf.estimator.Exporter` stayed as written, with no word, and stopped the
program (TensorFlow >= 2.16 has no tf.estimator); the estimator was kept on TF1 for the exporter."""

from __future__ import annotations

import json

import pytest

from estimator_migrate.compat import estimator_evaluation
from tests.conftest import ROOT, run_wrapped_from_estimator_start, wrapped_reference

PROGRAM = ROOT / "tests" / "legacy" / "custom_exporter_program.py"
STEPS = 20


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.parametrize("target", ["keras", "loop"])
def test_a_programs_own_exporter_is_called_as_the_estimator_called_it(target, legacy_python, tmp_path):
    estimator_dir = wrapped_reference(legacy_python, PROGRAM, tmp_path / "estimator", STEPS)
    migrated, _, results = run_wrapped_from_estimator_start(PROGRAM, estimator_dir, target, tmp_path / "run", STEPS)
    assert "class BestCheckpointCopier(estimator_export.Exporter):" in migrated
    expected, got = (json.loads(path.read_text()) for path in (estimator_dir / "results.json", results))
    assert [call["step"] for call in expected["calls"]] == [5, 10, 15, 20]
    for want, have in zip(expected["calls"], got["calls"], strict=True):
        assert have == {**want, "loss": pytest.approx(want["loss"], rel=1e-5)}
    assert [name.removeprefix("model.") for name in expected["best"]] == got["best"]  # model.ckpt-N: ckpt-N


def test_an_exporter_that_is_not_one_is_refused_as_evalspec_refused_it():
    with pytest.raises(TypeError, match=r"`exporters` must be an Exporter .* given 'final'"):
        estimator_evaluation.PeriodicEvaluation(lambda: None, steps=1, throttle_secs=0, every_steps=5,
                                                exporters=["final"], export_dir_base="/tmp/export")
