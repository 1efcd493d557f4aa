"""compat.seeding: what `RunConfig(tf_random_seed=N)` becomes, and the seed `--exact` keeps in a model_dir.

Every canned family, both heads, with dropout where it has one: built in two fresh processes after
`set_graph_seed(3)`, the initial weights and a training-mode forward pass (dropout's masks) are the same bits;
without it they differ (tf_keras draws its layers' seeds from Python's `random`). The program's own `random`
and NumPy states are left as they were. End to end (training, both targets, --exact): tests/test_exact_codemod.py.
"""

from __future__ import annotations

import json
import random
import subprocess

import numpy as np
import pytest

from estimator_migrate.compat import seeding
from tests.conftest import MODERN_PYTHON, QUIET_TF

_BUILD_EVERY_FAMILY = """
import hashlib
import sys

import numpy as np
import tensorflow as tf

from estimator_migrate.compat import canned, seeding

if sys.argv[1] == "seeded":
    seeding.set_graph_seed(3)
x = tf.feature_column.numeric_column("x", shape=[4])
features = {"x": np.linspace(0, 1, 32, dtype=np.float32).reshape(8, 4)}
digest = hashlib.sha256()
for reduction in (canned.V1_HEAD_REDUCTION, canned.V2_HEAD_REDUCTION):
    for model in (
        canned.dnn_classifier([x], [6, 5], n_classes=3, dropout=0.5, loss_reduction=reduction),
        canned.dnn_regressor([x], [6], dropout=0.5, loss_reduction=reduction),
        canned.linear_classifier([x], loss_reduction=reduction),
        canned.linear_regressor([x], label_dimension=2, loss_reduction=reduction),
        canned.dnn_linear_combined_classifier([x], [x], [6], dnn_dropout=0.5, loss_reduction=reduction),
        canned.dnn_linear_combined_regressor([x], [x], [6], dnn_dropout=0.5, loss_reduction=reduction),
    ):
        for variable in model.variables:
            digest.update(variable.numpy().tobytes())
        digest.update(model(features, training=True).numpy().tobytes())
print(digest.hexdigest())
"""


def _digest(mode: str) -> str:
    completed = subprocess.run([str(MODERN_PYTHON), "-c", _BUILD_EVERY_FAMILY, mode], capture_output=True,
                               text=True, env=QUIET_TF, check=True)
    return completed.stdout.strip()


@pytest.mark.slow  # two processes building twelve models
def test_every_canned_family_starts_the_same_in_every_process_with_a_seed():
    assert _digest("seeded") == _digest("seeded")


@pytest.mark.slow
def test_without_a_seed_every_process_starts_elsewhere():
    assert _digest("unseeded") != _digest("unseeded")


def test_the_programs_own_random_and_numpy_are_untouched():
    random.seed(11)
    np.random.seed(11)
    expected = random.random(), np.random.rand()
    random.seed(11)
    np.random.seed(11)
    seeding.set_graph_seed(3)
    assert (random.random(), np.random.rand()) == expected


def test_the_model_dir_seed_is_drawn_once_and_kept(tmp_path):
    first = seeding.model_dir_seed(tmp_path / "model")
    assert seeding.model_dir_seed(tmp_path / "model") == first
    assert (tmp_path / "model" / seeding.MODEL_DIR_SEED_FILE).read_text() == f"{first}\n"
    assert not [p for p in (tmp_path / "model").iterdir() if p.name != seeding.MODEL_DIR_SEED_FILE]
    assert seeding.model_dir_seed(tmp_path / "other") != first


def test_each_worker_of_a_cluster_gets_a_seed_of_its_own_from_the_model_dirs(tmp_path, monkeypatch):
    kept = seeding.keep_model_dir_seed(tmp_path / "model", 1234)
    assert kept == 1234 and seeding.keep_model_dir_seed(tmp_path / "model", 99) == 1234  # the first one stays
    cluster = {"worker": ["127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"]}
    seeds = []
    for index in range(3):
        monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": cluster, "task": {"type": "worker", "index": index}}))
        seeds.append(seeding.model_dir_seed(tmp_path / "model"))
        assert seeding.model_dir_seed(tmp_path / "model") == seeds[-1]  # the same on every run
    assert seeds[0] == 1234 and len(set(seeds)) == 3
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"chief": ["a:1"], **cluster},
                                                "task": {"type": "worker", "index": 0}}))
    assert seeding.model_dir_seed(tmp_path / "model") not in (1234, seeds[1])  # with a chief, worker 0 is a second task
    monkeypatch.delenv("TF_CONFIG")
    assert seeding.model_dir_seed(tmp_path / "model") == 1234
