"""A canned estimator beside one the rewrite keeps (codemods/runtime_tier.py, `_beside_kept_problems`): TensorFlow
2's boosted-trees tutorial trains a LinearClassifier baseline, then a BoostedTreesClassifier, which has no
TensorFlow 2 counterpart (nor TensorFlow 2.15's Estimator: it stops there as the migrated program does). The baseline
migrates, and evaluates as TensorFlow 2.15's Estimator did (its zero-initialized weights and full-dataset batches make
the same steps whatever the shuffle); the boosted trees stay, with their TODOs, and stop the migrated program at their
constructor: nothing after it runs computing something else."""

import numpy as np
import pandas as pd
import pytest

from tests.conftest import MODERN_PYTHON, ROOT, migrate_file, run

pytestmark = pytest.mark.slow

PROGRAM = ROOT / "tests" / "legacy" / "boosted_trees_tutorial_program.py"


def _titanic_like(directory) -> None:
    """The tutorial's columns, 300 training and 100 evaluation passengers drawn with a survival that depends on them."""
    rng = np.random.RandomState(1)
    for name, count in (("train.csv", 300), ("eval.csv", 100)):
        sex = rng.choice(["male", "female"], count)
        passenger_class = rng.choice(["First", "Second", "Third"], count)
        chance = 0.2 + 0.5 * (sex == "female") + 0.2 * (passenger_class == "First")
        pd.DataFrame({
            "survived": (rng.rand(count) < chance).astype(int), "sex": sex,
            "n_siblings_spouses": rng.randint(0, 4, count), "class": passenger_class,
            "age": rng.randint(1, 80, count).astype(float), "fare": rng.rand(count) * 100,
            "alone": rng.choice(["y", "n"], count),
        }).to_csv(directory / name, index=False)


def _printed_series(stdout: str) -> list[dict[str, float]]:
    """The pandas Series the program printed, in order, as {name: value}."""
    series, current = [], {}
    for line in stdout.splitlines():
        fields = line.split()
        if fields[:1] == ["dtype:"]:
            series.append(current)
            current = {}
        elif len(fields) == 2 and fields[0].replace("/", "").replace("_", "").isalpha():
            current[fields[0]] = float(fields[1])
    return series


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_the_baseline_migrates_beside_the_kept_boosted_trees_and_evaluates_as_the_estimator(
        tmp_path, legacy_python, target):
    _titanic_like(tmp_path)
    # TensorFlow 2.15's Estimator has no boosted trees either (gone since 2.13): the program stops at them there too
    completed = run([legacy_python, PROGRAM, tmp_path], check_codes=(1,), cwd=tmp_path)
    assert "has no attribute 'BoostedTreesClassifier'" in completed.stderr.splitlines()[-1]
    estimator = _printed_series(completed.stdout)
    assert len(estimator) == 1

    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    source = migrated.read_text()
    assert "canned.linear_classifier(" in source and "tf.estimator.LinearClassifier" not in source
    assert "# TODO(migrate): unsupported-api: BoostedTreesClassifier" in source
    assert source.count("# TODO(migrate): estimator-runtime: kept:") == 2  # the boosted trees' train and evaluate
    completed = run([MODERN_PYTHON, migrated, tmp_path], check_codes=(1,), cwd=tmp_path)
    assert "AttributeError" in completed.stderr and "'estimator'" in completed.stderr.splitlines()[-1]
    (baseline,) = _printed_series(completed.stdout)
    assert baseline["global_step"] == estimator[0]["global_step"] == 100
    for metric in ("accuracy", "auc", "average_loss", "loss", "precision", "recall", "prediction/mean"):
        assert baseline[metric] == pytest.approx(estimator[0][metric], abs=2e-6), metric
