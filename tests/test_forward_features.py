"""tf.contrib.estimator.forward_features (TensorFlow 1.x; Google Cloud's training samples forward a key column so
that batch predictions can be matched with their examples) -> compat.forwarded_features.forward_features.

tests/legacy/forward_features_program.py, a canned DNNRegressor or a custom model_fn given add_metrics and
forward_features and trained by train_and_evaluate with a LatestExporter: TensorFlow 2.15 has no tf.contrib, so
the reference is the real Estimator's run of the same program without forward_features. Migrated (the canned
one for the keras target, the custom one for the loop target) and run from the Estimator's model.ckpt-0, it
gives the Estimator's evaluation (its RMSE too), and its predictions and exported signature's outputs with the
key beside them, the input's own keys.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf

from estimator_migrate.compat.forwarded_features import forward_features, forwarded_values
from tests.conftest import ROOT, respelled, run, run_wrapped_from_estimator_start

PROGRAM = ROOT / "tests" / "legacy" / "forward_features_program.py"
STEPS = 30
# TensorFlow 2.15's spelling of the program, forward_features left out; its tf.estimator.DNNRegressor was the v1
# class under TensorFlow 1.x (the program uses tf.contrib: it ran there)
TF215 = {
    "    estimator = tf.contrib.estimator.forward_features(estimator, KEY_COLUMN)\n": "",
    "tf.contrib.estimator.add_metrics": "tf.estimator.add_metrics",
    "tf.estimator.DNNRegressor(": "tf.compat.v1.estimator.DNNRegressor(",
}


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.parametrize(("flags", "target"), [((), "keras"), (("--custom",), "loop")], ids=["canned", "custom"])
def test_forwarded_key_comes_with_the_estimators_predictions(flags, target, legacy_python, tmp_path):
    reference = respelled(PROGRAM, TF215, tmp_path / "reference.py")
    estimator_dir = tmp_path / "estimator"
    run([legacy_python, reference, "--model_dir", estimator_dir, "--max_steps", STEPS,
         "--results", estimator_dir / "results.json", *flags])
    migrated, _, results = run_wrapped_from_estimator_start(PROGRAM, estimator_dir, target, tmp_path / "run", STEPS,
                                                            *flags)
    assert "forwarded_features.forward_features(estimator, KEY_COLUMN)" in migrated and "contrib" not in migrated

    expected, got = (json.loads(path.read_text()) for path in (estimator_dir / "results.json", results))
    assert "rmse" in expected["metrics"] and got["metrics"].keys() == expected["metrics"].keys()
    for key, value in expected["metrics"].items():
        assert got["metrics"][key] == pytest.approx(value, rel=1e-5), key
    keys = [f"example-{index:04d}" for index in range(8)]
    assert [prediction.pop("key") for prediction in got["predictions"]] == keys
    # (pytest.approx compares a list of dicts exactly: the values are compared one by one)
    assert [sorted(prediction) for prediction in got["predictions"]] == [["predictions"]] * 8
    np.testing.assert_allclose([prediction["predictions"] for prediction in got["predictions"]],
                               [prediction["predictions"] for prediction in expected["predictions"]], rtol=1e-5)
    assert got["served"].pop("key") == keys
    assert got["served"].keys() == expected["served"].keys()
    for name, values in expected["served"].items():
        np.testing.assert_allclose(got["served"][name], values, rtol=1e-5, err_msg=name)


class _Estimator:
    pass


def test_forward_features_checks_as_tensorflow_1_did():
    with pytest.raises(TypeError, match="keys should be either a string or a list of strings"):
        forward_features(_Estimator(), keys=3)
    features = {"key": tf.constant(["a", "b"]), "x": tf.zeros([2, 3]),
                "tags": tf.sparse.from_dense(tf.constant([["p", ""], ["", "q"]]))}
    estimator = forward_features(_Estimator(), ["key", "tags"], sparse_default_values={"tags": "-"})
    forwarded = forwarded_values(estimator, features, {"predictions": tf.zeros([2])})
    assert forwarded["key"].numpy().tolist() == [b"a", b"b"]
    assert forwarded["tags"].numpy().tolist() == [[b"p", b"-"], [b"-", b"q"]]
    with pytest.raises(ValueError, match=r"Cannot forward feature key \(key\)"):
        forwarded_values(estimator, features, {"key": tf.zeros([2])})
    with pytest.raises(ValueError, match='Key "missing" is not in features dict'):
        forwarded_values(forward_features(_Estimator(), "missing"), features, {})
    with pytest.raises(ValueError, match=r"Feature \(tags\) should be a Tensor"):
        forwarded_values(forward_features(_Estimator()), features, {})
    assert forwarded_values(_Estimator(), features, {}) == {}
