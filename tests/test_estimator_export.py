"""compat.estimator_export on migrated canned models: what the SavedModel serves, where it is written, bad input.

The signatures against the real Estimator's exports (names, inputs, outputs, values) are compared in
tests/test_canned_equivalence.py (programs with `export=`); here the served values are compared with the
migrated model's own `predict`, and the directory handling is checked on real files.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
import tensorflow as tf

from estimator_migrate.compat import canned, estimator_export, estimator_prediction

fc = tf.feature_column
SHADES = ["dark", "mid", "light"]


def _columns():
    shade = fc.categorical_column_with_vocabulary_list("shade", SHADES)
    return [fc.numeric_column("x", shape=[4]), fc.indicator_column(shade)]


def _features(count=6):
    rng = np.random.default_rng(0)
    return {
        "x": rng.normal(size=(count, 4)).astype(np.float32),
        "shade": np.array((SHADES + ["blank"]) * count)[:count],  # "blank" is out of the vocabulary
    }


def _example(features, index, with_shade=True):
    example = tf.train.Example()
    example.features.feature["x"].float_list.value.extend(features["x"][index].tolist())
    if with_shade:
        example.features.feature["shade"].bytes_list.value.append(features["shade"][index].encode())
    return example.SerializeToString()


def _models():
    return {
        "multi_class": canned.dnn_classifier(_columns(), [5], n_classes=3, label_vocabulary=["a", "b", "c"]),
        "binary": canned.linear_classifier(_columns()),
        "regression": canned.dnn_regressor(_columns(), [5], label_dimension=2),
    }


SIGNATURES = {
    "multi_class": ["classification", "predict", "serving_default"],
    "binary": ["classification", "predict", "regression", "serving_default"],
    "regression": ["predict", "regression", "serving_default"],
}


@pytest.mark.parametrize("kind", sorted(SIGNATURES))
def test_parsed_examples_are_served_as_the_model_predicts(kind, tmp_path):
    model = _models()[kind]
    features = _features()
    serving = estimator_export.build_parsing_serving_input_receiver_fn(fc.make_parse_example_spec(_columns()))
    loaded = tf.saved_model.load(estimator_export.export_saved_model(model, str(tmp_path), serving).decode())

    assert sorted(loaded.signatures) == SIGNATURES[kind]
    examples = tf.constant([_example(features, index) for index in range(6)])
    served = loaded.signatures["predict"](examples=examples)
    (expected,) = estimator_prediction.predict(model, tf.data.Dataset.from_tensors(features), yield_single_examples=False)
    assert sorted(served) == sorted(expected)
    for key, value in expected.items():
        assert served[key].dtype.as_numpy_dtype == value.dtype or value.dtype == object, key
        if value.dtype == object:
            np.testing.assert_array_equal(served[key].numpy(), value, err_msg=key)
        else:
            np.testing.assert_allclose(served[key].numpy(), value, rtol=1e-6, atol=1e-6, err_msg=key)
    default = loaded.signatures["serving_default"](inputs=examples)
    if kind == "regression":
        np.testing.assert_allclose(default["outputs"].numpy(), expected["predictions"], rtol=1e-6)
    else:
        np.testing.assert_allclose(default["scores"].numpy(), expected["probabilities"], rtol=1e-6)
        np.testing.assert_array_equal(default["classes"].numpy(), expected["all_classes"])
    if kind == "binary":
        regression = loaded.signatures["regression"](inputs=examples)
        np.testing.assert_allclose(regression["outputs"].numpy(), expected["logistic"], rtol=1e-6)


def test_an_example_without_a_categorical_value_gives_that_feature_no_weight(tmp_path):
    """The parsed SparseTensor has no value there, and the feature columns read none: not even a hashed ""."""
    columns = [fc.numeric_column("x", shape=[4]), fc.indicator_column(fc.categorical_column_with_hash_bucket("stroke", 5))]
    model = canned.linear_regressor(columns)
    model.set_weights([np.arange(w.size, dtype=np.float32).reshape(w.shape) + 1 for w in model.get_weights()])
    serving = estimator_export.build_parsing_serving_input_receiver_fn(fc.make_parse_example_spec(columns))
    loaded = tf.saved_model.load(estimator_export.export_saved_model(model, str(tmp_path), serving).decode())
    examples = [tf.train.Example(), tf.train.Example()]  # the first with a stroke, the second without
    for example in examples:
        example.features.feature["x"].float_list.value.extend([1.0, 2.0, 3.0, 4.0])
    examples[0].features.feature["stroke"].bytes_list.value.append(b"s1")

    served = loaded.signatures["predict"](examples=tf.constant([e.SerializeToString() for e in examples]))
    served = served["predictions"][1:]
    x = np.array([[1.0, 2.0, 3.0, 4.0]], np.float32)
    without_stroke = model({"x": x, "stroke": np.array([""])})  # feature columns drop "": no value
    np.testing.assert_allclose(served.numpy(), without_stroke.numpy(), rtol=1e-6)
    for stroke in ("s0", "s1", "s2", "s3"):  # a value adds its bucket's weight
        assert not np.allclose(served.numpy(), model({"x": x, "stroke": np.array([stroke])}).numpy())


def test_raw_features_are_served_by_predict_only(tmp_path):
    model = _models()["binary"]
    features = _features()
    serving = estimator_export.build_raw_serving_input_receiver_fn({"x": tf.zeros([1, 4]), "shade": tf.constant(["dark"])})
    loaded = tf.saved_model.load(estimator_export.export_saved_model(model, str(tmp_path), serving).decode())

    assert sorted(loaded.signatures) == ["predict"]  # classification/regression read one tf.Example string
    inputs = loaded.signatures["predict"].structured_input_signature[1]
    assert {name: (spec.dtype, spec.shape.as_list()) for name, spec in inputs.items()} == {
        "x": (tf.float32, [None, 4]), "shade": (tf.string, [None])
    }
    served = loaded.signatures["predict"](x=tf.constant(features["x"]), shade=tf.constant(features["shade"]))
    np.testing.assert_allclose(served["logits"].numpy(), model(features, training=False).numpy(), rtol=1e-6)


def test_exports_go_to_new_timestamped_directories_with_extra_assets(tmp_path):
    model = _models()["regression"]
    vocabulary = tmp_path / "vocabulary.txt"
    vocabulary.write_text("dark\nmid\n")
    serving = estimator_export.build_raw_serving_input_receiver_fn({"x": tf.zeros([1, 4]), "shade": tf.constant(["dark"])})
    base = tmp_path / "export"
    first = estimator_export.export_saved_model(model, str(base), serving, assets_extra={"vocab/v.txt": str(vocabulary)})
    second = estimator_export.export_saved_model(model, str(base), serving)

    assert isinstance(first, bytes)
    assert first != second and {os.path.basename(p).decode() for p in (first, second)} == set(os.listdir(base))
    assert all(os.path.basename(p).isdigit() for p in (first, second))
    assert (base / os.path.basename(first).decode() / "assets.extra" / "vocab" / "v.txt").read_text() == "dark\nmid\n"


def test_a_failed_export_leaves_nothing_behind(tmp_path):
    model = _models()["regression"]
    serving = estimator_export.build_raw_serving_input_receiver_fn({"x": tf.zeros([1, 4]), "shade": tf.constant(["dark"])})
    base = tmp_path / "export"
    with pytest.raises(FileNotFoundError):
        estimator_export.export_saved_model(model, str(base), serving, assets_extra={"v.txt": str(tmp_path / "missing")})
    assert os.listdir(base) == []  # neither the timestamped directory nor its temp-... one


def test_a_hand_written_receiver_runs_as_the_estimator_ran_it(tmp_path):
    """TF1 graph code (a placeholder, parsing with a hand-made spec), single tensors keyed "input"/"feature"."""
    model = canned.linear_regressor([fc.numeric_column("feature", shape=[4])])

    def serving_input_receiver_fn():
        serialized = tf.compat.v1.placeholder(tf.string, [None])
        features = tf.io.parse_example(serialized, {"x": tf.io.FixedLenFeature([4], tf.float32)})
        return estimator_export.ServingInputReceiver(features["x"], serialized)

    loaded = tf.saved_model.load(estimator_export.export_saved_model(model, str(tmp_path), serving_input_receiver_fn))
    example = tf.train.Example()
    example.features.feature["x"].float_list.value.extend([1.0, 2.0, 3.0, 4.0])
    examples = tf.constant([example.SerializeToString()])
    expected = model({"feature": np.array([[1.0, 2.0, 3.0, 4.0]], np.float32)}).numpy()
    np.testing.assert_allclose(loaded.signatures["predict"](input=examples)["predictions"].numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(loaded.signatures["serving_default"](inputs=examples)["outputs"].numpy(), expected, rtol=1e-6)


def test_raw_features_take_their_dtype_and_shape_after_the_first_dimension_as_estimator_did():
    """Measured under TF 2.15's Estimator: a scalar feature gave a [None] input, one of unknown rank an input of
    unknown shape; a migrated program's TensorSpecs (its placeholders built outside a graph) give theirs."""
    serving = estimator_export.build_raw_serving_input_receiver_fn({
        "scalar": tf.constant(1.0), "unknown": tf.TensorSpec(None, tf.float32),
        "ids": tf.TensorSpec([None, 16], tf.int64, name="feat_ids"), "x": tf.zeros([1, 4]),
    }, default_batch_size=8)
    with tf.Graph().as_default():
        tensors = serving().receiver_tensors
        shapes = {name: (tensor.dtype, tensor.shape) for name, tensor in tensors.items()}
    assert shapes["unknown"][1].rank is None
    assert {name: (dtype, shape.as_list()) for name, (dtype, shape) in shapes.items() if name != "unknown"} == {
        "scalar": (tf.float32, [8]), "ids": (tf.int64, [8, 16]), "x": (tf.float32, [8, 4])}


def test_bad_serving_inputs_are_one_clear_error(tmp_path):
    with pytest.raises(ValueError, match="feature_spec must be a non-empty dict"):
        estimator_export.build_parsing_serving_input_receiver_fn([fc.numeric_column("x")])
    model = _models()["binary"]
    with pytest.raises(TypeError, match="serving_input_receiver_fn must be a function"):
        estimator_export.export_saved_model(model, str(tmp_path), {"x": tf.zeros([1, 4])})
    with pytest.raises(TypeError, match="must return a compat.estimator_export.ServingInputReceiver or "
                                        "TensorServingInputReceiver, got dict"):
        estimator_export.export_saved_model(model, str(tmp_path), lambda: {"x": tf.zeros([1, 4])})
    assert os.listdir(tmp_path) == []


def test_exporters_keep_what_estimator_kept(tmp_path):
    """LatestExporter: the newest exports_to_keep (None: all); FinalExporter: only the final evaluation's."""
    model = _models()["regression"]
    serving = estimator_export.build_raw_serving_input_receiver_fn({"x": tf.zeros([1, 4]), "shade": tf.constant(["a"])})
    latest = estimator_export.LatestExporter("latest", serving, exports_to_keep=2)
    every = estimator_export.LatestExporter("every", serving, exports_to_keep=None)
    final = estimator_export.FinalExporter("final", serving)
    for evaluation in range(3):
        is_final = evaluation == 2
        returned = [e.export(model, str(tmp_path / e.name), None, {}, is_final) for e in (latest, every, final)]
        assert all(isinstance(path, bytes) for path in returned[:2])
        assert (returned[2] is None) == (not is_final)
    assert [len(os.listdir(tmp_path / name)) for name in ("latest", "every", "final")] == [2, 3, 1]
    assert os.path.basename(returned[0]).decode() == max(os.listdir(tmp_path / "latest"))  # the newest stays


def test_a_text_export_serves_what_the_binary_one_serves(tmp_path):
    """as_text=True (export_saved_model's, an exporter's): saved_model.pbtxt in place of saved_model.pb, as
    Estimator wrote it; TensorFlow's loader reads it and the signatures serve the same values."""
    model = _models()["binary"]
    features = _features()
    receiver = estimator_export.build_parsing_serving_input_receiver_fn(fc.make_parse_example_spec(_columns()))
    binary = estimator_export.export_saved_model(model, str(tmp_path / "binary"), receiver)
    text = estimator_export.FinalExporter("final", receiver, as_text=True).export(
        model, str(tmp_path / "text"), None, {}, is_the_final_export=True)
    assert sorted(os.listdir(text)) == sorted(name.replace(b"saved_model.pb", b"saved_model.pbtxt")
                                              for name in os.listdir(binary))
    examples = tf.constant([_example(features, index) for index in range(6)])
    served = [tf.saved_model.load(path.decode()).signatures for path in (binary, text)]
    assert sorted(served[0]) == sorted(served[1]) == SIGNATURES["binary"]
    for name in SIGNATURES["binary"]:
        (argument,) = served[0][name].structured_input_signature[1]  # predict's "examples", the others' "inputs"
        for key, value in served[0][name](**{argument: examples}).items():
            np.testing.assert_array_equal(served[1][name](**{argument: examples})[key], value, err_msg=f"{name}: {key}")


def test_exporters_refuse_what_they_cannot_do():
    with pytest.raises(ValueError, match="exports_to_keep must be a positive number or None"):
        estimator_export.LatestExporter("latest", lambda: None, exports_to_keep=0)


def test_best_exporter_exports_at_the_first_evaluation_then_when_compare_fn_says_better(tmp_path):
    model = _models()["regression"]
    serving = estimator_export.build_raw_serving_input_receiver_fn({"x": tf.zeros([1, 4]), "shade": tf.constant(["a"])})
    best = estimator_export.BestExporter("best", serving, exports_to_keep=None)  # compare_fn: the loss is lower
    exported = [best.export(model, str(tmp_path), None, {"loss": loss}, False) is not None
                for loss in (3.0, 4.0, 2.0, 2.0)]
    assert exported == [True, False, True, False]
    assert len(os.listdir(tmp_path)) == 2
    with pytest.raises(ValueError, match="current_eval_result cannot be empty or no loss is found in it"):
        best.export(model, str(tmp_path), None, {"accuracy": 1.0}, False)
