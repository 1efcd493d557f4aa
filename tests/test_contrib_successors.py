"""tf.contrib modules whose code TensorFlow 2 kept, migrated (codemods/rules/contrib_modules.py): tf.contrib.data
(and compat/contrib_data.py), tf.contrib.tpu and tf.contrib.cluster_resolver, tf.contrib.lookup
(compat/contrib_lookup.py), tf.contrib.framework.nest and tf.contrib.distribute's MirroredStrategy
(compat/contrib_distribute.py), tf.contrib.util's tensor protos. The fixture
tests/codemods/fixtures/contrib_data_to_experimental, rewritten, builds the batches TensorFlow 1.x's
transformations made (written out here from their documented behaviour: interleaving blocks of 3 from two shards,
mapping and batching by 4 with the remainder dropped, batching and padded batching with the remainder dropped),
and trains its estimator."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from tests.codemods.test_fixtures import FIXTURES
from tests.conftest import import_program

FIXTURE = FIXTURES / "contrib_data_to_experimental"
TPU_FIXTURE = FIXTURES / "contrib_tpu_modules"


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_the_migrated_pipeline_makes_tf1s_batches(target, tmp_path):
    program = import_program(FIXTURE / f"{target}.py")
    batches = [batch.tolist() for batch in program.input_fn({"batch_size": 4}).as_numpy_iterator()]
    # shard 0: 0..5, shard 1: 10..15, interleaved by blocks of 3: 0 1 2 10 11 12 3 4 5 13 14 15; doubled; by 4
    assert batches == [[0, 2, 4, 20], [22, 24, 6, 8], [10, 26, 28, 30]]
    rows, padded = program.row_input_fn({"batch_size": 3})
    assert [batch.tolist() for batch in rows.as_numpy_iterator()] == [[0, 1, 2], [3, 4, 5]]  # 6 dropped
    padded = [batch.tolist() for batch in padded.as_numpy_iterator()]
    assert padded == [[[0, 0], [0, 1]], [[0, 1, 2, 0], [0, 1, 2, 3]]]  # [0 1 2 3 4] dropped
    # and the estimator trains on it, as the migrated main() does (with its own model_dir)
    model = program.estimator_training.configure(
        program.wrapped_model_fns.WrappedModelFn(program.model_fn, params={"batch_size": 4}), model_dir=tmp_path)
    train = program.estimator_loop.train if target == "loop" else program.estimator_training.train
    train(model, program.input_fn, max_steps=3)
    assert int(np.asarray(model.tf1_variables["global_step"])) == 3


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_a_tpu_program_importing_tf_contrib_starts_and_trains_without_a_tpu(target, tmp_path):
    """tests/codemods/fixtures/contrib_tpu_modules (BERT's run_classifier shape), migrated: it imports (its
    tf.contrib.tpu and tf.contrib.cluster_resolver are tf.compat.v1's, the same objects) and trains to max_steps as
    TPUEstimator did with use_tpu=False. (With use_tpu=True its TPUClusterResolver asks GCE's metadata server for
    the TPU, as under TensorFlow 1.x.)"""
    source = (TPU_FIXTURE / f"{target}.py").read_text().split('"""', 2)[2]  # (after the docstring)
    assert "tensorflow.contrib" not in source and "tf.contrib" not in source
    program = import_program(TPU_FIXTURE / f"{target}.py")
    assert program.contrib_tpu.CrossShardOptimizer is tf.compat.v1.tpu.CrossShardOptimizer
    assert program.TPUClusterResolver is tf.distribute.cluster_resolver.TPUClusterResolver
    program.main(str(tmp_path / "model"))
    assert tf.train.latest_checkpoint(str(tmp_path / "model")).endswith("-20")


LOOKUP_FIXTURE = FIXTURES / "contrib_lookup_nest_distribute"


def _softmax_regression_by_hand(steps: int) -> np.ndarray:
    """The fixture's model_fn, trained as TF 1.x did, in numpy: softmax regression from zeros on (age, hours)
    doubled (its nest.map_structure), labels by their index in LABELS (its lookup table), GradientDescent(0.1) on the
    batch-mean cross entropy, batches of 4 of the 8 rows in order, repeated."""
    rows = np.arange(16, dtype=np.float64).reshape(8, 2) / 16.0 * 2.0
    labels = np.arange(8) % 2
    kernel, bias = np.zeros((2, 2)), np.zeros(2)
    for step in range(steps):
        x, y = rows[(step % 2) * 4:(step % 2) * 4 + 4], labels[(step % 2) * 4:(step % 2) * 4 + 4]
        logits = x @ kernel + bias
        probabilities = np.exp(logits - logits.max(axis=1, keepdims=True))
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        gradient = (probabilities - np.eye(2)[y]) / len(y)
        kernel -= 0.1 * x.T @ gradient
        bias -= 0.1 * gradient.sum(axis=0)
    return kernel


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_contrib_lookup_nest_and_mirrored_strategy_run_as_tf1_had_them(target, tmp_path):
    """tests/codemods/fixtures/contrib_lookup_nest_distribute, migrated: no tf.contrib is left; its lookup tables
    give what TensorFlow 1.x's tf.contrib.lookup documented (index_table_from_tensor's example with one OOV bucket:
    [0, 1, 3, 2]), and the estimator, given RunConfig(train_distribute=tf.contrib.distribute.MirroredStrategy()) on
    this machine (no GPU: one replica, the CPU), trains to the weights TF 1.x's softmax regression reaches."""
    source = (LOOKUP_FIXTURE / f"{target}.py").read_text().split('"""', 2)[2]
    assert "tensorflow.contrib" not in source and "tf.contrib" not in source
    program = import_program(LOOKUP_FIXTURE / f"{target}.py")
    assert program.oov_ids(tf.constant(["emerson", "lake", "and", "palmer"])).numpy().tolist() == [0, 1, 3, 2]
    assert program.label_ids(tf.constant([">50K", "<=50K", "?"])).numpy().tolist() == [1, 0, -1]
    estimator = program.main(str(tmp_path / "model"))
    assert tf.train.latest_checkpoint(str(tmp_path / "model")).endswith("-10")
    expected = _softmax_regression_by_hand(10)
    assert np.abs(expected).min() > 1e-3  # (every weight moved)
    np.testing.assert_allclose(np.asarray(estimator.tf1_variables["dense/kernel"]), expected, atol=1e-6)


def test_a_contrib_mirrored_strategy_over_several_devices_is_one_error():
    """contrib's MirroredStrategy gave each replica a whole batch, TensorFlow 2's splits it: over several devices
    the migrated training would take other steps, so it says so instead of training."""
    from compat import contrib_distribute

    with pytest.raises(ValueError, match="over 4 devices .* multiply the input_fn's batch size by 4"):
        contrib_distribute.MirroredStrategy(num_gpus=4)
    assert contrib_distribute.MirroredStrategy(num_gpus=0).num_replicas_in_sync == 1


METRICS_FIXTURE = FIXTURES / "contrib_metrics_to_tf_slim"


def _logistic_regression_by_hand(features, labels, steps: int):
    """The fixture's model_fn trained as TF 1.x did, in numpy: GradientDescent(0.1) on the batch-mean sigmoid cross
    entropy, batches of 4 in order, from its constant initial weights."""
    kernel, bias = np.array([[0.5], [-1.5]]), 0.25
    for step in range(steps):
        x, y = features[step * 4:step * 4 + 4].astype(np.float64), labels[step * 4:step * 4 + 4]
        gradient = (1.0 / (1.0 + np.exp(-(x @ kernel + bias))) - y) / len(y)
        kernel, bias = kernel - 0.1 * x.T @ gradient, bias - 0.1 * gradient.sum()
    return 1.0 / (1.0 + np.exp(-(features @ kernel + bias)))


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_contrib_streaming_metrics_evaluate_as_tf1s_did(target, tmp_path):
    """tests/codemods/fixtures/contrib_metrics_to_tf_slim, migrated: tf.contrib.metrics' streaming metrics, in its
    three spellings, are tf_slim.metrics' (the same code); evaluated over three batches after three training steps,
    they are the accuracy, RMSE and Pearson correlation of the trained model's probabilities on all twelve rows
    (computed here in numpy; contrib's Pearson is the unbiased covariance over the standard deviations)."""
    source = (METRICS_FIXTURE / f"{target}.py").read_text().split('"""', 2)[2]
    assert "tensorflow.contrib" not in source and "tf.contrib" not in source
    program = import_program(METRICS_FIXTURE / f"{target}.py")
    results = program.main(str(tmp_path / "model"))
    probabilities = _logistic_regression_by_hand(program.FEATURES, program.LABELS, 3)
    assert results["global_step"] == 3
    assert results["accuracy"] == pytest.approx(np.mean(np.round(probabilities) == program.LABELS), abs=1e-6)
    assert results["rmse"] == pytest.approx(np.sqrt(np.mean((probabilities - program.LABELS) ** 2)), abs=1e-5)
    assert results["pearson"] == pytest.approx(np.corrcoef(probabilities[:, 0], program.LABELS[:, 0])[0, 1],
                                               abs=1e-5)


PREDICTOR_FIXTURE = FIXTURES / "contrib_predictor_serving"


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_contrib_predictors_serve_the_estimators_predictions(target, tmp_path):
    """tests/codemods/fixtures/contrib_predictor_serving, migrated: tf.contrib.predictor's `from_saved_model` (the
    export's default signature run in a session of its own, fed serialized examples) and `from_estimator` (its
    latest checkpoint through the same receiver) give the scores the estimator's predict() gives."""
    source = (PREDICTOR_FIXTURE / f"{target}.py").read_text().split('"""', 2)[2]
    assert "tensorflow.contrib" not in source and "tf.contrib" not in source
    program = import_program(PREDICTOR_FIXTURE / f"{target}.py")
    served, from_checkpoint, predictions = program.main(str(tmp_path / "model"))
    probabilities = np.array([prediction["probabilities"] for prediction in predictions])
    assert np.ptp(probabilities[:, 1]) > 0.01  # (trained: not one score for all)
    for outputs in (served, from_checkpoint):
        assert sorted(outputs) == ["classes", "scores"]
        np.testing.assert_allclose(outputs["scores"], probabilities, rtol=0, atol=1e-6)
        assert outputs["classes"].tolist() == [[b"0", b"1"]] * 6


LEARN_FIXTURE = FIXTURES / "contrib_learn_vocabulary"


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_a_contrib_learn_vocabulary_gives_tf1s_word_ids(target, tmp_path):
    """tests/codemods/fixtures/contrib_learn_vocabulary, migrated: tf.contrib.learn's VocabularyProcessor is
    compat.contrib_learn's. Its ids are TF 1.x's (words numbered from 1 as first met, 0 the unknown word and the
    padding; with min_frequency, by descending count then alphabetically, capitals first), and a saved processor
    restores to the same vocabulary; the estimator trains on the ids."""
    source = (LEARN_FIXTURE / f"{target}.py").read_text().split('"""', 2)[2]
    assert "tensorflow.contrib" not in source and "tf.contrib" not in source
    program = import_program(LEARN_FIXTURE / f"{target}.py")
    ids, served = program.main(str(tmp_path / "model"))
    assert ids.tolist() == [[1, 2, 3, 0], [1, 2, 4, 0], [3, 3, 4, 0], [5, 6, 0, 0]]  # I like pizza it no idea
    assert served.tolist() == [[3, 0, 4, 0], [1, 2, 0, 0]]  # "or" unknown
    _, trimmed = program.vocabulary_ids(program.DOCUMENTS, 4, min_frequency=1)
    assert trimmed.tolist() == [[2, 4, 1, 0], [2, 4, 3, 0], [1, 1, 3, 0], [0, 0, 0, 0]]  # pizza 3, I, it, like 2
    # steps=3 over one batch: the input's end ends the training after a step, as the Estimator's did
    assert tf.train.latest_checkpoint(str(tmp_path / "model")).endswith("-1")


def test_a_vocabulary_tf1_pickled_restores(tmp_path):
    """A vocabulary file TensorFlow 1.x wrote pickles its own classes (tf.contrib.learn's text and
    categorical_vocabulary modules) and the default tokenizer function: restore reads it as compat.contrib_learn's
    classes, the same attributes, the same ids. (The pickle is made here under those module names, as TF 1.x's
    `save` made it: no TensorFlow has tf.contrib to run.)"""
    import pickle
    import sys
    import types

    from compat import contrib_learn

    fitted = contrib_learn.VocabularyProcessor(3)
    list(fitted.fit_transform(["red green", "green blue"]))
    text, vocabulary = (types.ModuleType(name) for name in (
        "tensorflow.contrib.learn.python.learn.preprocessing.text",
        "tensorflow.contrib.learn.python.learn.preprocessing.categorical_vocabulary"))
    text.VocabularyProcessor = type("VocabularyProcessor", (), {"__module__": text.__name__})
    text.tokenizer = types.FunctionType(contrib_learn.tokenizer.__code__, {}, "tokenizer")
    text.tokenizer.__module__, text.tokenizer.__qualname__ = text.__name__, "tokenizer"
    vocabulary.CategoricalVocabulary = type("CategoricalVocabulary", (), {"__module__": vocabulary.__name__})
    tf1_vocabulary = vocabulary.CategoricalVocabulary()
    tf1_vocabulary.__dict__.update(fitted.vocabulary_.__dict__)
    tf1_processor = text.VocabularyProcessor()
    tf1_processor.__dict__.update({**fitted.__dict__, "vocabulary_": tf1_vocabulary, "_tokenizer": text.tokenizer})
    sys.modules.update({text.__name__: text, vocabulary.__name__: vocabulary})
    try:
        (tmp_path / "vocab").write_bytes(pickle.dumps(tf1_processor))
    finally:
        del sys.modules[text.__name__], sys.modules[vocabulary.__name__]
    assert b"tensorflow.contrib.learn" in (tmp_path / "vocab").read_bytes()

    restored = contrib_learn.VocabularyProcessor.restore(str(tmp_path / "vocab"))
    assert isinstance(restored, contrib_learn.VocabularyProcessor)
    assert restored._tokenizer is contrib_learn.tokenizer
    assert [row.tolist() for row in restored.transform(["blue red", "green"])] == [[3, 1, 0], [2, 0, 0]]
    assert list(restored.reverse([[3, 1, 0]])) == ["blue red <UNK>"]


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_a_serving_clients_tensor_protos_round_trip(target):
    """tf.contrib.util.make_tensor_proto / make_ndarray -> tf.compat.v1's (the functions TF 1.15 re-exported)."""
    from types import SimpleNamespace

    program = import_program(FIXTURES / "contrib_util_serving_client" / f"{target}.py")
    images = np.arange(12, dtype=np.float32).reshape(1, 2, 2, 3)

    class Inputs(dict):
        def __missing__(self, key):
            self[key] = tf.make_tensor_proto(0.0)
            return self[key]

    request = program.request_inputs(SimpleNamespace(inputs=Inputs()), images)
    assert request.inputs["images"].tensor_shape.dim[3].size == 3
    response = SimpleNamespace(outputs={"scores": request.inputs["images"]})
    np.testing.assert_array_equal(program.scores(response), images)
