"""The report's estimator view: the tier each estimator constructor got (rewritten to fit or a loop, the run-time
tier, its model_fn wrapped, kept TF1 with why), where it is, and the tiers counted in the summary and its line."""

from __future__ import annotations

import json

from tests.conftest import MIGRATE, ROOT, run


def _report(tmp_path, *paths) -> tuple[dict, str]:
    report = tmp_path / "report.json"
    result = run([MIGRATE, "rewrite", *paths, "--out", tmp_path / "out", "--report", report], check_codes=(0, 1))
    return json.loads(report.read_text()), result.stderr


def test_each_estimator_of_a_folder_of_scripts_is_reported_with_its_tier(tmp_path):
    data, stderr = _report(tmp_path, ROOT / "tests" / "projects" / "scripts_folder", ROOT / "examples")
    tiers = {entry["path"]: entry.get("estimators") for entry in data["files"]}
    assert tiers["linear_train.py"] == [{"constructor": "LinearClassifier", "tier": "run-time", "line": 11, "col": 13}]
    assert tiers["custom_train.py"] == [{"constructor": "Estimator", "tier": "wrapped", "line": 28, "col": 16}]
    assert tiers["pinned_train.py"] == [{"constructor": "PinnedEstimator", "tier": "kept", "line": 26, "col": 12,
                                         "reasons": ["PinnedEstimator stays TF1 (see the TODO at its class)"]}]
    assert tiers["digits_estimator.py"][0]["tier"] == "rewritten"
    assert tiers["data.py"] is None
    assert data["summary"]["estimators"] == {"rewritten": 1, "run-time": 1, "wrapped": 1, "kept": 1}
    assert "estimators: 1 rewritten, 1 run-time, 1 wrapped, 1 kept" in stderr.splitlines()[-1]


def test_a_kept_canned_estimator_says_why(tmp_path):
    data, _ = _report(tmp_path, ROOT / "tests" / "corpus" / "boosted_trees.py")
    (entry,) = data["files"]
    (tier,) = entry["estimators"]
    assert (tier["constructor"], tier["tier"]) == ("BoostedTreesClassifier", "kept")
    assert tier["reasons"] and all(reason for reason in tier["reasons"])


def test_a_notebooks_estimators_name_their_cell(tmp_path):
    cells = [["import tensorflow as tf\n"],
             ["columns = [tf.feature_column.numeric_column('x')]\n",
              "model = tf.estimator.LinearRegressor(feature_columns=columns)\n"]]
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "source": source, "outputs": [],
                           "execution_count": None} for source in cells],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "explore.ipynb"
    path.write_text(json.dumps(notebook))
    data, _ = _report(tmp_path, path)
    (tier,) = data["files"][0]["estimators"]
    assert (tier["cell"], tier["line"], tier["constructor"]) == (2, 2, "LinearRegressor")
