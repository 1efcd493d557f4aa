"""Saving `compat.canned` models: `inference_model(model).save(...)` is plain Keras, for every feature-column
kind; `model.save(...)` of the training model keeps its head and loads where this project is installed.

The Estimator's own logits for categorical programs are checked in tests/test_canned_equivalence.py and for
converted checkpoints in tests/test_convert_checkpoint.py; here every column kind a canned model takes, on
weights a few training steps moved from their start (a linear model starts at zero).
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
import tf_keras

from estimator_migrate.compat import canned
from tests.conftest import plain_keras_logits, plain_keras_run

fc = tf.feature_column
BATCH = 16


def _columns(vocabulary_file):
    shade = fc.categorical_column_with_vocabulary_list("shade", ["dark", "mid", "light"])
    stroke = fc.categorical_column_with_hash_bucket("stroke", 5)
    digit = fc.categorical_column_with_identity("digit", 10)
    linear = [
        fc.numeric_column("x", shape=[2, 2]),
        fc.bucketized_column(fc.numeric_column("ink"), [0.2, 0.5, 0.7]),
        shade,
        stroke,
        fc.categorical_column_with_vocabulary_file("tone", str(vocabulary_file), num_oov_buckets=1),
        fc.crossed_column([shade, "stroke"], 7),
        fc.weighted_categorical_column(digit, "digit_weight"),
        fc.indicator_column(shade),  # dense columns in a linear model, beside the column they are made of
        fc.embedding_column(stroke, 2),
    ]
    dnn = [fc.numeric_column("x", shape=[2, 2]), fc.indicator_column(shade), fc.embedding_column(stroke, 3),
           fc.embedding_column(digit, 2)]
    return linear, dnn


def _features(rng):
    return {
        "x": rng.random((BATCH, 2, 2)).astype(np.float32),
        "ink": rng.random((BATCH, 1)).astype(np.float32),
        "shade": rng.choice(["dark", "mid", "light", "blank"], (BATCH, 1)),
        "stroke": rng.choice(["s1", "s2", "s3"], (BATCH, 1)),
        "tone": rng.choice(["warm", "cold", "other"], (BATCH, 1)),
        "digit": rng.integers(0, 10, (BATCH, 1)),
        "digit_weight": rng.random((BATCH, 1)).astype(np.float32),
    }


@pytest.fixture
def trained_models(tmp_path):
    """One model of each family on every column kind, trained a few steps: {name: (model, features)}."""
    vocabulary = tmp_path / "tones.txt"
    vocabulary.write_text("warm\ncold\n")
    linear, dnn = _columns(vocabulary)
    rng = np.random.default_rng(0)
    features = _features(rng)
    classes = rng.integers(0, 3, (BATCH, 1))
    models = {
        "linear_classifier": (canned.linear_classifier(linear, n_classes=3, optimizer="Adagrad"), classes),
        "linear_regressor": (canned.linear_regressor(linear, label_dimension=2, optimizer="SGD"),
                             rng.random((BATCH, 2)).astype(np.float32)),
        "dnn_classifier": (canned.dnn_classifier(dnn, [4], n_classes=3), classes),
        "dnn_linear_combined_classifier": (
            canned.dnn_linear_combined_classifier(linear, dnn, [4], linear_optimizer="Adagrad"), classes % 2
        ),
    }
    for model, labels in models.values():
        for _ in range(3):
            model.train_on_batch(features, labels)
    return {name: model for name, (model, _) in models.items()}, features


def test_inference_model_of_every_column_kind_loads_with_plain_tf_keras(trained_models, tmp_path):
    models, features = trained_models
    saved = []
    for name, model in models.items():
        linear = [v for v in model.variables if v.name.startswith("linear_model/")]
        assert all(np.abs(v.numpy()).max() > 0 for v in linear if "weights" in v.name), name
        canned.inference_model(model).save(tmp_path / f"{name}.keras")
        saved.append((tmp_path / f"{name}.keras", features))
    for (name, model), logits in zip(models.items(), plain_keras_logits(saved, tmp_path)):
        np.testing.assert_allclose(logits, model(features).numpy(), rtol=0, atol=1e-6, err_msg=name)


def test_saved_training_model_keeps_its_head(tmp_path):
    rng = np.random.default_rng(1)
    features = {"x": rng.random((BATCH, 2)).astype(np.float32), "w": rng.random((BATCH, 1)).astype(np.float32)}
    labels = rng.choice(["a", "b", "c"], (BATCH, 1))
    x = fc.numeric_column("x", shape=[2])
    for model in (
        canned.dnn_classifier([x], [3], n_classes=3, label_vocabulary=["a", "b", "c"], weight_column="w",
                              loss_reduction=canned.V1_HEAD_REDUCTION),
        canned.dnn_linear_combined_classifier([x], [x], [3], n_classes=3, label_vocabulary=["a", "b", "c"],
                                              weight_column=fc.numeric_column("w"), linear_optimizer="Ftrl"),
        # a v2 head summing its loss (loss_reduction=SUM): the head's version is not its reduction's default
        canned.linear_classifier([x], n_classes=3, label_vocabulary=["a", "b", "c"], weight_column="w",
                                 loss_reduction=canned.V1_HEAD_REDUCTION, head_version="v2"),
    ):
        model.train_on_batch(features, labels)
        model.save(tmp_path / "model.keras")
        loaded = tf_keras.models.load_model(tmp_path / "model.keras")

        assert type(loaded) is type(model)
        assert loaded.label_vocabulary == ("a", "b", "c")
        assert loaded.weight_column.key == "w"
        assert loaded.loss.reduction == model.loss.reduction
        assert canned.head_of(loaded) == canned.head_of(model)
        np.testing.assert_array_equal(loaded(features).numpy(), model(features).numpy())
        # string labels, weighted by "w": the head came back, not only the graph
        assert loaded.evaluate(features, labels, verbose=0) == model.evaluate(features, labels, verbose=0)
        if isinstance(model, canned.DNNLinearCombinedModel):
            assert type(loaded.linear_optimizer) is type(model.linear_optimizer)
            assert loaded.linear_optimizer.get_config() == model.linear_optimizer.get_config()


def test_head_version_is_the_estimators_head_not_its_reductions_default():
    x = [fc.numeric_column("x")]
    assert canned.head_of(canned.linear_classifier(x, loss_reduction="sum")) == canned.Head("binary", True, True)
    assert canned.head_of(canned.linear_classifier(x, loss_reduction="sum", head_version="v2")) == canned.Head(
        "binary", False, True)
    assert canned.head_of(canned.dnn_regressor(x, [2], loss_reduction="sum_over_batch_size", head_version="v1")) == (
        canned.Head("regression", True, False))
    with pytest.raises(ValueError, match="head_version must be one of"):
        canned.linear_regressor(x, head_version="v3")
    with pytest.raises(ValueError, match="loss_reduction must be"):
        canned.linear_regressor(x, loss_reduction="mean")


def test_saved_training_model_says_it_needs_this_project(tmp_path):
    """Where this project is not installed, tf_keras names the module it needs (it imports it itself)."""
    model = canned.dnn_classifier([fc.numeric_column("x")], [2], label_vocabulary=["no", "yes"])
    model.save(tmp_path / "model.keras")
    completed = plain_keras_run([tmp_path / "model.keras", tmp_path / "unused.npz", tmp_path / "unused.npy"],
                                tmp_path)
    assert completed.returncode != 0
    assert "estimator_migrate" in completed.stderr.strip().splitlines()[-1]
