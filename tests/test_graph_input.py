"""input_fns returning an iterator's tensors (compat.graph_input), and the step count of `fit` on inputs of
unknown length (compat.step_count).

End to end: tests/legacy/graph_input_program.py (a canned estimator whose input_fns change the tensors of a
one-shot iterator's get_next(), trained until the input ends) runs under the real Estimator (legacy env) and,
migrated for both targets, from the Estimator's converted model.ckpt-0: it ends at the Estimator's step (36),
with the weights of its model.ckpt-36 within 1e-5 and its evaluation metrics. tests/legacy/tfrecord_program.py
(tier 1: a TFRecord dataset trained until it ends, then on to max_steps=50) ends with the weights of the
Estimator's model.ckpt-50: counted one step too many at the input's end, it would take 13 steps, not 14.
With the step counter not waiting for the batch (tf_keras 2.21's own train_step) both end a step ahead."""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf
import tf_keras

from estimator_migrate.compat import canned, estimator_training, graph_input, model_fns
from tests.conftest import (
    MODERN_PYTHON,
    ROOT,
    assert_matches_estimator_checkpoint,
    assert_tf1_variables_match,
    estimator_start,
    migrate_file,
    run,
    run_migrated_from_estimator_start,
)

PROGRAM = ROOT / "tests" / "legacy" / "graph_input_program.py"
TFRECORD_PROGRAM = ROOT / "tests" / "legacy" / "tfrecord_program.py"
NUMPY_CALL_PROGRAM = ROOT / "tests" / "legacy" / "numpy_input_call_program.py"
ITERATOR_HOOK_PROGRAM = ROOT / "tests" / "legacy" / "iterator_hook_program.py"
AS_TF1 = ROOT / "tests" / "legacy" / "run_as_tf1.py"


def _iterator_input_fn(values, batch, shuffle=False):
    def input_fn():
        dataset = tf.data.Dataset.from_tensor_slices(values)
        if shuffle:
            dataset = dataset.shuffle(len(values))
        features = tf.compat.v1.data.make_one_shot_iterator(dataset.batch(batch)).get_next()
        return {"x": features * 2.0, "s": tf.sparse.from_dense(tf.reshape(features, [-1, 1]))}, features > 2

    return input_fn


def _session_batches(input_fn, seed=None):
    """What a TF1 session running the input_fn's tensors gave, until OutOfRangeError."""
    with tf.Graph().as_default():
        if seed is not None:
            tf.compat.v1.set_random_seed(seed)
        outputs = input_fn()
        batches = []
        with tf.compat.v1.Session() as session:
            while True:
                try:
                    batches.append(session.run(outputs))
                except tf.errors.OutOfRangeError:
                    return batches


def _as_numpy(batch):
    features, labels = batch
    return features["x"].numpy(), tf.sparse.to_dense(features["s"]).numpy(), labels.numpy()


def test_graph_input_gives_the_sessions_batches_then_ends_and_starts_again_when_iterated_again():
    input_fn = _iterator_input_fn(np.arange(7, dtype=np.float32), 3)
    assert graph_input.returns_tensors(input_fn())  # eagerly, one batch of tensors
    dataset = graph_input.graph_input_dataset(input_fn, {}, "input_fn")
    expected = _session_batches(input_fn)
    for _ in range(2):  # each Estimator.train call started its input_fn again
        got = [_as_numpy(batch) for batch in dataset]
        assert len(got) == len(expected) == 3
        for (x, s, labels), (features, expected_labels) in zip(got, expected):
            np.testing.assert_array_equal(x, features["x"])
            sparse = features["s"]
            dense = np.zeros(sparse.dense_shape, np.float32)
            dense[tuple(sparse.indices.T)] = sparse.values
            np.testing.assert_array_equal(s, dense)
            np.testing.assert_array_equal(labels, expected_labels)


def test_a_graph_seed_orders_a_shuffle_the_same_every_time():
    input_fn = _iterator_input_fn(np.arange(50, dtype=np.float32), 10, shuffle=True)
    first, second = ([_as_numpy(b)[0] for b in graph_input.graph_input_dataset(input_fn, {}, "f", seed=7)]
                     for _ in range(2))
    np.testing.assert_array_equal(np.concatenate(first), np.concatenate(second))
    assert sorted(np.concatenate(first)) == [2.0 * v for v in range(50)]
    unseeded = np.concatenate([_as_numpy(b)[0] for b in graph_input.graph_input_dataset(input_fn, {}, "f", seed=8)])
    assert not np.array_equal(np.concatenate(first), unseeded)


def test_a_placeholder_input_is_read_in_a_graph_whose_open_session_a_hook_initializes():
    """Placeholders cannot be made eagerly: the input is read in a graph, whose first session is open before
    any batch is read, so that a hook can initialize the iterator through it (feeding the arrays)."""
    made = {}

    def input_fn():
        placeholder = tf.compat.v1.placeholder(tf.float32, [6])
        iterator = tf.compat.v1.data.make_initializable_iterator(tf.data.Dataset.from_tensor_slices(placeholder).batch(4))
        made["initializer"], made["placeholder"] = iterator.initializer, placeholder
        x = iterator.get_next()
        return {"x": x}, x > 2

    with pytest.raises(RuntimeError) as eager:
        input_fn()
    assert graph_input.needs_graph(eager.value)
    dataset = graph_input.graph_input_dataset(input_fn, {}, "input_fn")
    session = graph_input.input_session(made["initializer"].graph)
    session.run(made["initializer"], feed_dict={made["placeholder"]: np.arange(6, dtype=np.float32)})
    assert [batch[0]["x"].numpy().tolist() for batch in dataset] == [[0, 1, 2, 3], [4, 5]]
    assert graph_input.input_session(made["initializer"].graph) is None  # closed with the input's end


def test_queue_runner_input_is_one_error_not_a_session_waiting_forever():
    def input_fn():
        queue = tf.compat.v1.train.input_producer(tf.constant([1.0, 2.0]), num_epochs=None, shuffle=False)
        return {"x": tf.reshape(queue.dequeue(), [1, 1])}, tf.constant([0])

    with pytest.raises(ValueError, match="input_fn `input_fn` reads through queue runners"):
        graph_input.graph_input_dataset(input_fn, {}, "input_fn")


def test_exact_training_refuses_graph_input_with_one_error(tmp_path):
    """No checkpoint can hold a session's position in its iterator: --exact asks for the dataset itself."""
    model = estimator_training.configure(canned.linear_classifier([tf.feature_column.numeric_column("x")]),
                                         model_dir=tmp_path)

    def input_fn():
        dataset = tf.data.Dataset.from_tensor_slices(({"x": [[1.0], [2.0]]}, [0, 1])).batch(1)
        return tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()

    with pytest.raises(ValueError, match="exact resume: input_fn `.*input_fn` returns tensors"):
        estimator_training.train(model, input_fn, max_steps=2, exact=True)


@pytest.mark.parametrize("steps_per_call", [1, 5])
@pytest.mark.parametrize("kind", ["linear", "dnn_linear_combined", "model_fn"])
def test_fit_to_the_end_of_an_input_of_unknown_length_counts_the_steps_it_took(kind, steps_per_call):
    """36 batches whose number fit cannot know (a filter): iterations end at 36 for every optimizer."""
    columns = [tf.feature_column.numeric_column("x", shape=[4])]
    rng = np.random.default_rng(0)
    dataset = tf.data.Dataset.from_tensor_slices(
        ({"x": rng.random((3594, 4)).astype(np.float32)}, rng.integers(0, 2, 3594).astype(np.float32))
    ).batch(100).filter(lambda *batch: True)
    if kind == "dnn_linear_combined":
        model = canned.dnn_linear_combined_classifier(columns, columns, [3], linear_optimizer="Ftrl")
    elif kind == "linear":
        model = canned.linear_classifier(columns, optimizer=tf_keras.optimizers.Adam(0.01))
    else:
        model = _ModelFnModel()
        model.compile(optimizer=tf_keras.optimizers.SGD(0.1))
    model.compile(optimizer=model.optimizer, loss=model.loss, steps_per_execution=steps_per_call)
    model.fit(dataset, epochs=1, verbose=0, steps_per_epoch=None if steps_per_call == 1 else 50)
    optimizers = [model.optimizer, getattr(model, "linear_optimizer", None)]
    assert [int(o.iterations) for o in optimizers if o is not None] == [36] * (2 if kind == "dnn_linear_combined" else 1)


class _ModelFnModel(model_fns.EstimatorModel):
    """A migrated custom model_fn's shape: a layer made inline, a loss of its own."""

    def call(self, features, training=False):
        return self.layer(tf_keras.layers.Dense, 1)(features["x"])

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None):
        return tf.reduce_mean(tf.square(y_pred[:, 0] - y))


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.parametrize(("program", "target"), [(PROGRAM, "loop"), (NUMPY_CALL_PROGRAM, "keras")],  # one target each: tests/conftest.py, "Targets"
                         ids=["iterator-loop", "numpy_input_fn_called-keras"])
def test_migrated_iterator_input_fns_take_the_estimators_steps(program, target, legacy_python, tmp_path):
    """Also for numpy_input_call_program.py: its numpy_input_fn, called by the input_fn itself, gives the
    tensors of each batch as it did (`make_one_shot_iterator(...).get_next()`)."""
    estimator_dir, metrics = tmp_path / "estimator", tmp_path / "estimator.json"
    run([legacy_python, program, "--model_dir", estimator_dir, "--metrics_out", metrics])
    migrated_metrics = tmp_path / "migrated.json"
    _, model_dir = run_migrated_from_estimator_start(program, estimator_dir, target, tmp_path,
                                                     "--metrics_out", migrated_metrics)

    assert_matches_estimator_checkpoint(model_dir, estimator_dir, 36)
    expected, got = json.loads(metrics.read_text()), json.loads(migrated_metrics.read_text())
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, rel=1e-5), key


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.parametrize("target", ["keras", "loop"])
def test_migrated_training_to_the_end_of_a_tfrecord_input_counts_the_estimators_steps(target, legacy_python,
                                                                                       tmp_path):
    estimator_dir = tmp_path / "estimator"
    run([legacy_python, TFRECORD_PROGRAM, "--model_dir", estimator_dir])
    _, model_dir = run_migrated_from_estimator_start(TFRECORD_PROGRAM, estimator_dir, target, tmp_path)
    assert_matches_estimator_checkpoint(model_dir, estimator_dir, 50)


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.parametrize("target", ["keras"])  # one target: tests/conftest.py, "Targets"
def test_placeholder_input_initialized_by_a_hook_takes_the_estimators_steps(target, legacy_python, tmp_path):
    """iterator_hook_program.py: placeholders, an initializable iterator and a hook feeding the arrays in
    after_create_session. Migrated, the input is made in a graph and its session given to the hook: from the
    Estimator's model.ckpt-0, 60 steps end with its model.ckpt-60 (1e-5) and its evaluation."""
    estimator_dir, metrics = tmp_path / "estimator", tmp_path / "estimator.json"
    run([legacy_python, AS_TF1, ITERATOR_HOOK_PROGRAM, "--model_dir", estimator_dir, "--metrics_out", metrics])
    model_dir = estimator_start(estimator_dir, tmp_path / "model")
    migrated, migrated_metrics = migrate_file(ITERATOR_HOOK_PROGRAM, tmp_path / "migrated", target), tmp_path / "m.json"
    run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--metrics_out", migrated_metrics])

    assert_tf1_variables_match(model_dir, estimator_dir / "model.ckpt-60", estimator_dir / "model.ckpt-0", 60,
                               ("hidden/kernel", "logits/kernel"), target)
    expected, got = json.loads(metrics.read_text()), json.loads(migrated_metrics.read_text())
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, rel=1e-5), key


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.parametrize("target", ["loop"])  # one target: tests/conftest.py, "Targets"
def test_a_canned_estimators_placeholder_input_initialized_by_a_hook_takes_the_estimators_steps(
        target, legacy_python, tmp_path):
    """iterator_hook_program.py --canned: a DNNClassifier fed by the IteratorInitializerHook pattern. Its Keras
    model has no TF1 session; the hook, acting on sessions only, runs on the input's graph session (compat.graph_input),
    in training and in the evaluation: from the Estimator's model.ckpt-0, 60 steps end with its model.ckpt-60 (1e-5)
    and its evaluation."""
    estimator_dir, metrics = tmp_path / "estimator", tmp_path / "estimator.json"
    run([legacy_python, AS_TF1, ITERATOR_HOOK_PROGRAM, "--model_dir", estimator_dir, "--metrics_out", metrics,
         "--canned"])
    migrated_metrics = tmp_path / "migrated.json"
    migrated, model_dir = run_migrated_from_estimator_start(ITERATOR_HOOK_PROGRAM, estimator_dir, target, tmp_path,
                                                            "--metrics_out", migrated_metrics, "--canned")
    assert "canned.dnn_classifier(" in migrated.read_text()
    assert_matches_estimator_checkpoint(model_dir, estimator_dir, 60)
    expected, got = json.loads(metrics.read_text()), json.loads(migrated_metrics.read_text())
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, rel=1e-5), key


class _InitializingHook(tf.compat.v1.train.SessionRunHook):
    def after_create_session(self, session, coord):
        self.initialized = True


def test_a_canned_models_session_hook_needs_an_input_read_as_a_graph(tmp_path):
    """A hook acting on sessions only has none to act on when the input_fn returns a dataset (a canned model has
    no TF1 graph): one error naming it, nothing trained. A hook fetching around the steps stays one error too."""
    model = estimator_training.configure(canned.linear_classifier([tf.feature_column.numeric_column("x")]),
                                         model_dir=str(tmp_path))

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": [[1.0], [2.0]]}, [0, 1])).batch(1)

    with pytest.raises(ValueError, match="hook _InitializingHook acts on the Estimator's TF1 graph and session"):
        estimator_training.train(model, input_fn, hooks=[_InitializingHook()], steps=1)
    assert tf.train.latest_checkpoint(str(tmp_path)) is None

    class Fetching(tf.compat.v1.train.SessionRunHook):
        def before_run(self, run_context):
            return None

    with pytest.raises(TypeError, match="hook Fetching is not a Keras callback"):
        estimator_training.train(model, input_fn, hooks=[Fetching()], steps=1)
