"""`sparse_combiner` of LinearClassifier and `linear_sparse_combiner` of DNNLinearCombinedClassifier (how the
linear model combines the weights of a feature's several ids: "sum", "mean", "sqrtn"), carried over to
compat.canned's builders; they kept the estimator on TF1 with a TODO. tests/legacy/sparse_combiner_program.py
(tags padded with "", several per example) under the real Estimator (TF 2.15), and migrated for both targets
from its model.ckpt-0: after 10 steps the same evaluation and the same logits of the first 12 examples. The
combiners give different logits (the program's "sum" run is compared too), so a combiner ignored fails here."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.conftest import ROOT, run_wrapped_from_estimator_start, wrapped_reference

PROGRAM = ROOT / "tests" / "legacy" / "sparse_combiner_program.py"
STEPS = 10


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.parametrize("model, combiner, target", [
    ("linear", "mean", "keras"), ("linear", "sqrtn", "loop"), ("combined", "sqrtn", "keras"),
    ("combined", "mean", "loop"),
])
def test_sparse_combiner_trains_evaluates_and_predicts_as_the_estimator(model, combiner, target, legacy_python,
                                                                        tmp_path):
    flags = ("--model", model, "--combiner", combiner)
    estimator_dir = wrapped_reference(legacy_python, PROGRAM, tmp_path / "estimator", STEPS, *flags)
    summed_dir = wrapped_reference(legacy_python, PROGRAM, tmp_path / "summed", STEPS, "--model", model)
    migrated, _, results = run_wrapped_from_estimator_start(PROGRAM, estimator_dir, target, tmp_path / "run", STEPS,
                                                            *flags)
    assert "combiner=args.combiner" in migrated and "canned." in migrated and "tf.estimator" not in migrated
    expected, got = (json.loads(path.read_text()) for path in (estimator_dir / "results.json", results))
    summed = json.loads((summed_dir / "results.json").read_text())
    assert not np.allclose(summed["logits"], expected["logits"], atol=1e-3)
    assert got["metrics"] == pytest.approx(expected["metrics"], rel=1e-5)
    np.testing.assert_allclose(got["logits"], expected["logits"], rtol=1e-5, atol=1e-5)
