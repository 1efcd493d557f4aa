"""tf.contrib.estimator.clip_gradients_by_norm (compat.contrib_estimator) on canned estimators, against the real
Estimator: tests/legacy/clipped_optimizer_program.py, the Machine Learning Crash Course's shape (a LinearRegressor
trained in periods with clipped GradientDescent, predict() after each, get_variable_value; a DNNClassifier over an
embedding of string terms with clipped Adam, evaluate()).

TensorFlow 2.15 has no tf.contrib: the reference run spells the wrapper as compat.contrib_estimator's (TF 1.x's
_TransformGradients: tf.clip_by_global_norm, then the wrapped TF1 optimizer's apply_gradients), a TF1 optimizer the
real Estimator trains with; the migrated program's canned models train with the wrapped optimizer's tf_keras twin
and `global_clipnorm`. From the same initial weights (the classifier's: the Estimator's model.ckpt-0), the RMSEs after every period, the weights read by
their Estimator names, the embedding and the evaluation's metrics are the Estimator's. The clipping is at work in
both: without it the regressor's loss is NaN within the first period (the exercise's reason for it), and the
Estimator's embedding ends 0.05 away from the clipped one (measured), where the migrated one is within 1e-5."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.conftest import MODERN_PYTHON, ROOT, estimator_start, migrate_file, respelled, run

pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("clipped_optimizer")]
PROGRAM = ROOT / "tests" / "legacy" / "clipped_optimizer_program.py"
# TensorFlow 1.x's spelling -> the same objects under TensorFlow 2.15
SPELLINGS = {
    "import tensorflow as tf\n": f"import tensorflow as tf\nsys.path.insert(0, {str(ROOT / 'compat')!r})\n"
                                 "import contrib_estimator\n",
    "tf.contrib.estimator.clip_gradients_by_norm": "contrib_estimator.clip_gradients_by_norm",
    "ds.make_one_shot_iterator()": "tf.compat.v1.data.make_one_shot_iterator(ds)",
}


@pytest.fixture(scope="module")
def estimator_run(legacy_python, tmp_path_factory):
    work = tmp_path_factory.mktemp("clipped")
    reference = respelled(PROGRAM, SPELLINGS, work / "reference.py")
    run([legacy_python, ROOT / "tests" / "legacy" / "run_as_tf1.py", reference, work / "model", work / "results.json"])
    return work / "model", json.loads((work / "results.json").read_text())


@pytest.mark.parametrize("target", ["loop"])  # one target: tests/conftest.py, "Targets"
def test_clipped_canned_estimators_take_the_estimators_steps(estimator_run, target, tmp_path):
    estimator_dir, expected = estimator_run
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    text = migrated.read_text()
    assert text.count("contrib_estimator.clip_gradients_by_norm(my_optimizer") == 2 and "TODO(migrate)" not in text
    model_dir = tmp_path / "model"
    estimator_start(estimator_dir / "dnn", model_dir / "dnn")  # (a linear model starts at zeros either way)
    run([MODERN_PYTHON, migrated, model_dir, tmp_path / "results.json"])
    got = json.loads((tmp_path / "results.json").read_text())
    assert got["rmse"] == pytest.approx(expected["rmse"], rel=1e-6)
    for name in ("weight", "bias", "embedding"):
        np.testing.assert_allclose(got[name], expected[name], rtol=0, atol=1e-5, err_msg=name)
    assert got["metrics"] == pytest.approx(expected["metrics"], rel=1e-4)
    assert expected["metrics"]["global_step"] == 30


def test_without_the_clipping_the_regressor_diverges(tmp_path):
    unclipped = respelled(PROGRAM, {"    my_optimizer = tf.contrib.estimator.clip_gradients_by_norm(my_optimizer, 5.0)\n": ""},
                          tmp_path / "unclipped.py")
    migrated = migrate_file(unclipped, tmp_path / "migrated", "keras")
    completed = run([MODERN_PYTHON, migrated, tmp_path / "model", tmp_path / "results.json"], check_codes=(1,))
    assert "NanLossDuringTrainingError: NaN loss during training." in completed.stderr
