"""compat.canned's builders on what programs get wrong, and what the equivalence tests do not reach.

Equivalence with the real Estimator is tests/test_canned_equivalence.py; here: bad input is refused with a
clear error (a label outside label_vocabulary, in `fit` and in a custom loop's `compute_loss`; a vocabulary
of another size than n_classes; a weight_column that is not numeric, or more than one weight per
example; a baseline given no feature besides its weights, or features of different batch sizes), and a
multi-valued categorical feature sums its ids' weights, as the Estimator's linear model does
(`sparse_combiner="sum"`), or averages them ("mean", "sqrtn"); a saved baseline loads with its head.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from estimator_migrate.compat import canned

fc = tf.feature_column


def _vocabulary_model():
    return canned.linear_classifier([fc.numeric_column("x")], n_classes=3, label_vocabulary=["a", "b", "c"])


def _batch(labels):
    features = {"x": np.arange(len(labels), dtype=np.float32)}
    return tf.data.Dataset.from_tensor_slices((features, np.array(labels))).batch(len(labels))


def test_labels_are_looked_up_in_the_vocabulary():
    model = _vocabulary_model()
    np.testing.assert_array_equal(model.label_ids(tf.constant(["c", "a", "b"])).numpy(), [[2], [0], [1]])
    history = model.fit(_batch(["a", "b", "c", "a"]), verbose=0)
    assert np.isfinite(history.history["loss"][0])


def test_a_label_outside_the_vocabulary_is_an_error_in_fit_and_in_a_loop():
    model = _vocabulary_model()
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"labels not in label_vocabulary \(a, b, c\):\] \[\[z\]\]"):
        model.fit(_batch(["a", "z"]), verbose=0)
    features, labels = next(iter(_batch(["b", "z"])))
    with pytest.raises(tf.errors.InvalidArgumentError, match="labels not in label_vocabulary"):
        model.compute_loss(features, labels, model(features))


def test_numeric_labels_with_a_vocabulary_are_an_error():
    model = _vocabulary_model()
    with pytest.raises(ValueError, match="labels must be strings when there is a label_vocabulary; got int32"):
        model.label_ids(tf.constant([0, 1]))


def test_a_vocabulary_of_another_size_than_n_classes_is_refused():
    with pytest.raises(ValueError, match="label_vocabulary has 2 items, n_classes is 3"):
        canned.dnn_classifier([fc.numeric_column("x")], [4], n_classes=3, label_vocabulary=["a", "b"])


def test_a_multivalued_categorical_feature_sums_its_ids_weights():
    colour = fc.categorical_column_with_vocabulary_list("colour", ["red", "green", "blue"])
    model = canned.linear_regressor([colour])
    layer = model.get_layer("linear_model")
    layer.column_weights(colour).assign([[1.0], [10.0], [100.0]])
    layer.bias.assign([0.5])
    # two values per example; "" and "pink" have no id (out of vocabulary) and add nothing
    features = {"colour": tf.constant([["red", "blue"], ["green", "green"], ["pink", ""]])}
    np.testing.assert_array_equal(model(features).numpy(), [[101.5], [20.5], [0.5]])


@pytest.mark.parametrize("combiner, expected", [("mean", [[51.0], [10.5], [0.5]]),
                                                ("sqrtn", [[101 / np.sqrt(2) + 0.5], [20 / np.sqrt(2) + 0.5], [0.5]])])
def test_a_multivalued_categorical_feature_combines_its_ids_weights_by_sparse_combiner(combiner, expected):
    """`sparse_combiner` "mean" and "sqrtn" divide the sum by the number of ids or its square root; the
    inference model (plain tf_keras layers) gives the same."""
    colour = fc.categorical_column_with_vocabulary_list("colour", ["red", "green", "blue"])
    model = canned.linear_regressor([colour], sparse_combiner=combiner)
    layer = model.get_layer("linear_model")
    layer.column_weights(colour).assign([[1.0], [10.0], [100.0]])
    layer.bias.assign([0.5])
    features = {"colour": tf.constant([["red", "blue"], ["green", "green"], ["pink", ""]])}
    np.testing.assert_allclose(model(features).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(canned.inference_model(model)(features).numpy(), expected, rtol=1e-6)


def test_an_unknown_sparse_combiner_is_refused():
    with pytest.raises(ValueError, match=r"sparse_combiner='max': the Estimator takes one of \('sum', 'mean', 'sqrtn'\)"):
        canned.linear_classifier([fc.numeric_column("x")], sparse_combiner="max")


def test_example_weights_come_from_the_weight_column():
    model = canned.linear_regressor([fc.numeric_column("x")], weight_column=fc.numeric_column("w", normalizer_fn=lambda w: 2 * w))
    features = {"x": tf.constant([[1.0], [2.0]]), "w": tf.constant([0.5, 3.0])}
    np.testing.assert_array_equal(model.example_weights(features).numpy(), [[1.0], [6.0]])
    assert canned.linear_regressor([fc.numeric_column("x")]).example_weights(features) is None


def test_a_weight_column_that_is_not_numeric_is_refused():
    with pytest.raises(TypeError, match="weight_column must be a feature name or a numeric_column"):
        canned.linear_regressor([fc.numeric_column("x")], weight_column=fc.categorical_column_with_identity("w", 3))


def test_more_than_one_weight_per_example_is_an_error():
    model = canned.linear_regressor([fc.numeric_column("x")], weight_column="w")
    features = {"x": tf.constant([[1.0], [2.0]]), "w": tf.constant([[1.0, 2.0], [3.0, 4.0]])}
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"weight_column 'w': one weight per example"):
        model.compute_loss(features, tf.constant([[1.0], [2.0]]), model(features))


def test_a_baseline_counts_the_features_its_weight_column_aside():
    model = canned.baseline_classifier(n_classes=3, weight_column="w")
    model.bias.assign([0.5, -1.0, 2.0])
    logits = model({"x": tf.zeros([4, 8, 8]), "tag": tf.constant(["a"] * 4), "w": tf.ones([4])})
    np.testing.assert_array_equal(logits.numpy(), [[0.5, -1.0, 2.0]] * 4)
    with pytest.raises(ValueError, match="a baseline model needs at least one feature besides the weight column"):
        model({"w": tf.ones([4])})
    with pytest.raises(tf.errors.InvalidArgumentError, match="features of different batch sizes"):
        model({"x": tf.zeros([4, 2]), "y": tf.zeros([3, 2])})


def test_a_saved_baseline_loads_with_its_head_and_bias(tmp_path):
    import tf_keras

    model = canned.baseline_classifier(n_classes=2, label_vocabulary=["no", "yes"], weight_column="w",
                                       loss_reduction="sum")
    model.bias.assign([1.25])
    model.save(tmp_path / "baseline.keras")
    loaded = tf_keras.models.load_model(tmp_path / "baseline.keras")
    assert isinstance(loaded, canned.BaselineModel)
    assert (loaded.label_vocabulary, loaded.weight_column.key, loaded.head_version) == (("no", "yes"), "w", "v1")
    np.testing.assert_array_equal(loaded.bias.numpy(), [1.25])
    np.testing.assert_array_equal(loaded.label_ids(tf.constant(["yes", "no"])).numpy(), [[1], [0]])
