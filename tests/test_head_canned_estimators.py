"""Head-based canned estimators (compat.canned.dnn_estimator, linear_estimator, dnn_linear_combined_estimator):
`DNNEstimator(head=MultiClassHead(10))` is the DNNClassifier of n_classes=10 (the same network, variable names and
head), and so migrates, the head deciding the twin when the program runs.

tests/legacy/head_canned_program.py builds a DNNEstimator of a weighted ten-class head, a LinearEstimator of a
binary head with a label vocabulary, a DNNLinearCombinedEstimator of a weighted regression head or a
BaselineEstimator of a ten-class head; also respelled
as TensorFlow 1.x code had it (tf.contrib.estimator's estimators and head factories), whose reference is TensorFlow
2.15's v1 estimators given the heads those factories returned. Migrated and run from the Estimator's model.ckpt-0
for 20 steps, it evaluates and predicts as the Estimator (every metric and prediction within 1e-5).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf
import tf_keras

from estimator_migrate.compat import canned, estimator_evaluation, estimator_heads
from tests.conftest import ROOT, respelled, run_wrapped_from_estimator_start, wrapped_reference

PROGRAM = ROOT / "tests" / "legacy" / "head_canned_program.py"
STEPS = 20
_ESTIMATORS = ("DNNEstimator", "LinearEstimator", "DNNLinearCombinedEstimator", "BaselineEstimator")
_HEADS = {"MultiClassHead": ("multi_class_head", "_multi_class_head_with_softmax_cross_entropy_loss"),
          "BinaryClassHead": ("binary_classification_head", "_binary_logistic_head_with_sigmoid_cross_entropy_loss"),
          "RegressionHead": ("regression_head", "_regression_head")}
TF1 = {**{f"tf.estimator.{name}(": f"tf.contrib.estimator.{name}(" for name in _ESTIMATORS},
       **{f"tf.estimator.{head}(": f"tf.contrib.estimator.{factory}(" for head, (factory, _) in _HEADS.items()},
       "tf.estimator.MultiLabelHead(": "tf.contrib.estimator.multi_label_head("}
# TensorFlow 2.15 has no v1 multi-label head, and its v1 DNNEstimator gives the head a TF1 optimizer, which TF 2's heads
# refuse: the reference of tf.contrib.estimator's multi-label DNNEstimator is TF 2's, given the v1 estimator's default
# optimizer (Adagrad at 0.05; Keras's adds an epsilon of 1e-7 to the root); its AUCs are Keras's where TF 1.x's head
# had tf.compat.v1.metrics.auc's, and it predicts class names, which TF 1.x's did not
TF1_MULTI_LABEL_REFERENCE = {"head=head, hidden_units=[16]":
                             "head=head, optimizer=tf.keras.optimizers.legacy.Adagrad(0.05), hidden_units=[16]"}
TF1_REFERENCE = {
    "import tensorflow as tf\n":
        "import tensorflow as tf\nfrom tensorflow_estimator.python.estimator.canned import head as head_lib\n",
    **{f"tf.estimator.{name}(": f"tf.compat.v1.estimator.{name}(" for name in _ESTIMATORS},
    **{f"tf.estimator.{head}(": f"head_lib.{function}(loss_reduction=tf.compat.v1.losses.Reduction.SUM_OVER_BATCH_SIZE, "
       for head, (_, function) in _HEADS.items()},
}


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.parametrize(("estimator", "spelling", "target"), [
    ("dnn", "tf2", "keras"), ("dnn", "tf1", "loop"), ("multi_label", "tf2", "loop"), ("multi_label", "tf1", "keras"),
    ("linear", "tf2", "loop"), ("linear", "tf1", "keras"),
    ("combined", "tf2", "keras"), ("combined", "tf1", "loop"), ("baseline", "tf2", "loop"), ("baseline", "tf1", "keras"),
])
def test_a_head_based_estimator_trains_evaluates_and_predicts_as_the_estimators(estimator, spelling, target,
                                                                                legacy_python, tmp_path):
    program, reference = PROGRAM, PROGRAM
    tf1_multi_label = estimator == "multi_label" and spelling == "tf1"
    if spelling == "tf1":
        program = respelled(PROGRAM, TF1, tmp_path / "tf1_program.py")
        reference = respelled(PROGRAM, TF1_MULTI_LABEL_REFERENCE if tf1_multi_label else TF1_REFERENCE,
                              tmp_path / "tf1_reference.py")
    estimator_dir = wrapped_reference(legacy_python, reference, tmp_path / "estimator", STEPS, "--estimator", estimator)
    migrated, _, results = run_wrapped_from_estimator_start(program, estimator_dir, target, tmp_path / "run", STEPS,
                                                            "--estimator", estimator)
    builder = {"dnn": "dnn_estimator", "multi_label": "dnn_estimator", "linear": "linear_estimator", "combined": "dnn_linear_combined_estimator",
               "baseline": "baseline_estimator"}
    assert f"canned.{builder[estimator]}(" in migrated and "tf.estimator" not in migrated and "contrib" not in migrated
    expected, got = (json.loads(path.read_text()) for path in (estimator_dir / "results.json", results))
    assert got["metrics"].keys() == expected["metrics"].keys() and "loss" in expected["metrics"]
    if estimator == "multi_label":  # a named head's metrics: keyed <metric>/<name>, the Estimator's mean loss not
        assert "loss" in expected["metrics"] and "average_loss/kinds" in expected["metrics"]
    if estimator in ("multi_label", "linear"):  # the head's metrics at its thresholds
        assert {"accuracy", "precision", "recall"} <= {key.split("/")[0] for key in expected["metrics"]
                                                      if "/positive_threshold_" in key}
    if tf1_multi_label:  # TF 1.x's tf.compat.v1.metrics.auc: trapezoidal where Keras's AUC-PR interpolates
        assert got["metrics"].pop("auc_precision_recall/kinds") == pytest.approx(
            expected["metrics"].pop("auc_precision_recall/kinds"), abs=5e-3)
    assert got["metrics"] == pytest.approx(expected["metrics"], rel=1e-5, abs=1e-6)
    assert len(got["predictions"]) == len(expected["predictions"]) == 8
    for mine, theirs in zip(got["predictions"], expected["predictions"], strict=True):
        if tf1_multi_label:
            assert theirs.pop("classes") == ["0", "1", "2", "3"]  # TF 2's head only
        assert mine.keys() == theirs.keys()
        for key, values in theirs.items():
            if isinstance(values[0], str):
                assert mine[key] == values, key
            else:
                np.testing.assert_allclose(mine[key], values, rtol=1e-5, atol=1e-6, err_msg=key)
    if estimator == "multi_label":  # its export serves what the Estimator's served
        assert got["served"].keys() == {"classification", "predict", "serving_default"}
        if tf1_multi_label:
            expected["served"]["predict"].pop("classes")
        for signature, outputs in expected["served"].items():
            assert got["served"][signature].keys() == outputs.keys(), signature
            for name, values in outputs.items():
                if isinstance(values[0][0], str):
                    assert got["served"][signature][name] == values, (signature, name)
                else:
                    np.testing.assert_allclose(got["served"][signature][name], values, rtol=1e-5, atol=1e-6,
                                               err_msg=f"{signature}: {name}")


def test_a_head_no_canned_estimator_has_is_one_error_when_the_model_is_built():
    columns = [tf.feature_column.numeric_column("x", shape=[2])]
    with pytest.raises(ValueError, match="given MultiLabelHead with classes_for_class_based_metrics is not migrated"):
        canned.dnn_estimator(estimator_heads.MultiLabelHead(n_classes=3, classes_for_class_based_metrics=[1]), [4],
                             columns)
    with pytest.raises(ValueError, match="given BinaryClassHead with loss_fn is not migrated"):
        canned.linear_estimator(estimator_heads.BinaryClassHead(thresholds=[0.3], name="ctr", loss_fn=len), columns)
    with pytest.raises(ValueError, match="given PoissonRegressionHead with loss_fn, inverse_link_fn is not migrated"):
        canned.dnn_estimator(estimator_heads.PoissonRegressionHead(), [4], columns)
    with pytest.raises(TypeError, match=r"DNNEstimator\(head=.*\): the head must be one of tf.estimator's heads"):
        canned.dnn_estimator(object(), [4], columns)
    model = canned.dnn_estimator(estimator_heads.multi_class_head(3, weight_column="w"), [4], columns)
    assert canned.head_of(model) == canned.Head("multi_class", v1=True, summed=False)


def test_a_multi_label_heads_sparse_class_ids_train_and_evaluate_as_their_multi_hot_rows(tmp_path):
    features = {"x": np.random.RandomState(0).rand(8, 3).astype(np.float32)}
    multi_hot = np.array([[1, 0, 1], [0, 1, 0], [0, 0, 0], [1, 1, 1], [0, 0, 1], [1, 0, 0], [0, 1, 1], [1, 1, 0]])
    ids = np.argwhere(multi_hot)
    runs = []
    for labels in (multi_hot, tf.SparseTensor(ids, ids[:, 1], multi_hot.shape)):
        tf_keras.utils.set_random_seed(1)
        model = canned.dnn_estimator(estimator_heads.MultiLabelHead(3), [4], [tf.feature_column.numeric_column(
            "x", shape=(3,))])
        batches = tf.data.Dataset.from_tensors((features, labels))
        losses = model.fit(batches, epochs=2, verbose=0).history["loss"]
        runs.append((losses, estimator_evaluation.evaluate(model, batches)))
    assert runs[0] == runs[1]
    assert set(runs[0][1]) == {"loss", "average_loss", "auc", "auc_precision_recall", "global_step"}
    model.save(tmp_path / "multi_label.keras")  # the head is kept with the model
    loaded = tf_keras.models.load_model(tmp_path / "multi_label.keras")
    assert canned.head_of(loaded) == canned.Head("multi_label", v1=False, summed=False)
