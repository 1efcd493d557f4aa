"""compat.wrapped_model_fns on its own (modern environment): the model_fn's variables keep their TF1 names
across traces and checkpoints, a second evaluation starts its streaming metrics from zero, and what a
wrapped model_fn cannot do fails with one error naming it. Equivalence with the real Estimator:
tests/test_wrapped_model_fn.py."""

from __future__ import annotations

import contextlib
import gc
import logging

import numpy as np
import pytest
import tensorflow as tf

from estimator_migrate.compat import wrapped_model_fns
from estimator_migrate.compat.estimator_training import ModeKeys
from estimator_migrate.compat.legacy_checkpoint import CheckpointError
from estimator_migrate.compat.wrapped_model_fns import EstimatorSpec, WrappedModelFn


def model_fn(features, labels, mode, params):
    with tf.compat.v1.variable_scope("hidden"):
        w = tf.compat.v1.get_variable("w", [4, 3], initializer=tf.compat.v1.glorot_uniform_initializer(seed=3))
    # (seeded so that the metrics below are the same every run)
    logits = tf.compat.v1.layers.dense(tf.matmul(features["x"], w), 2, name="logits",
                                       kernel_initializer=tf.compat.v1.glorot_uniform_initializer(seed=4))
    if mode == ModeKeys.PREDICT:
        return EstimatorSpec(mode, predictions={"class": tf.argmax(logits, 1)})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    if mode == ModeKeys.EVAL:
        return EstimatorSpec(mode, loss=loss, eval_metric_ops={
            "accuracy": tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))})
    optimizer = tf.compat.v1.train.MomentumOptimizer(params["learning_rate"], 0.9)
    return EstimatorSpec(mode, loss=loss, train_op=optimizer.minimize(loss, tf.compat.v1.train.get_global_step()))


def _dataset(size=20, batch=8):
    x = np.random.RandomState(0).rand(size, 4).astype(np.float32)
    y = (x.sum(axis=1) > 2).astype(np.int32)
    return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(batch)


def _trained(steps_per_epoch=None):
    model = WrappedModelFn(model_fn, params={"learning_rate": 0.1})
    model.make_variables(_dataset().element_spec)
    model.fit(_dataset(), epochs=2, verbose=0, steps_per_epoch=steps_per_epoch)
    return model


def test_variables_keep_tf1_names_and_the_global_step_follows_the_steps():
    model = _trained()
    assert sorted(model.tf1_variables) == ["global_step", "hidden/w", "hidden/w/Momentum", "logits/bias",
                                           "logits/bias/Momentum", "logits/kernel", "logits/kernel/Momentum"]
    assert int(model.tf1_variables["global_step"]) == int(model.optimizer.iterations) == 6  # 2 epochs of 3 batches


def test_a_checkpoint_restores_every_variable_by_name(tmp_path):
    model = _trained()
    path = tf.train.Checkpoint(model=model, optimizer=model.optimizer).save(str(tmp_path / "ckpt"))
    again = WrappedModelFn(model_fn, params={"learning_rate": 0.1})
    tf.train.Checkpoint(model=again, optimizer=again.optimizer).restore(path)
    again.make_variables(_dataset().element_spec)  # made after the restore: deferred restoration fills them
    for name, variable in model.tf1_variables.items():
        np.testing.assert_array_equal(again.tf1_variables[name].numpy(), variable.numpy(), err_msg=name)
    assert int(again.optimizer.iterations) == 6


def test_each_evaluation_starts_its_streaming_metrics_from_zero():
    model = _trained()
    assert model.estimator_evaluate(_dataset()) == model.estimator_evaluate(_dataset())
    whole = model.estimator_evaluate(_dataset())
    classes = np.array([p["class"] for p in model.estimator_predict(_dataset().map(lambda x, y: x))])
    labels = np.concatenate([y.numpy() for _, y in _dataset()])
    first_batch = float(np.mean(classes[:8] == labels[:8]))
    assert whole["accuracy"] == pytest.approx(float(np.mean(classes == labels)))
    assert first_batch != pytest.approx(whole["accuracy"]), "the data cannot tell a reset from an accumulation"
    assert model.estimator_evaluate(_dataset(), steps=1)["accuracy"] == pytest.approx(first_batch)


def test_evaluate_and_predict_do_not_run_a_train_op_they_do_not_fetch():
    """A model_fn building its train_op in every mode: Estimator's evaluate/predict never ran it."""

    def always_training(features, labels, mode, params):
        spec = model_fn(features, labels, ModeKeys.TRAIN if labels is not None else mode, params)
        return spec if mode == ModeKeys.TRAIN else spec._replace(mode=mode)

    model = WrappedModelFn(always_training, params={"learning_rate": 0.1})
    model.make_variables(_dataset().element_spec)
    model.fit(_dataset(), verbose=0)
    before = {name: variable.numpy() for name, variable in model.tf1_variables.items()}
    model.estimator_evaluate(_dataset())
    for name, value in before.items():
        np.testing.assert_array_equal(model.tf1_variables[name].numpy(), value, err_msg=name)


def test_predict_yields_the_predict_specs_predictions_per_example():
    predictions = list(_trained().estimator_predict(_dataset().map(lambda features, labels: features)))
    assert len(predictions) == 20 and set(predictions[0]) == {"class"}


def test_an_estimator_checkpoint_of_another_model_fn_is_refused_naming_the_variables(tmp_path):
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.get_variable("other/w", [4, 3])
        tf.compat.v1.train.get_or_create_global_step()
        saver = tf.compat.v1.train.Saver()
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            prefix = saver.save(session, str(tmp_path / "model.ckpt"), global_step=0)
    model = WrappedModelFn(model_fn, params={"learning_rate": 0.1})
    model.make_variables(_dataset().element_spec)
    with pytest.raises(CheckpointError, match="no variable of the model_fn for other/w; nothing in the checkpoint for"):
        model.load_estimator_checkpoint(prefix)


def test_prediction_hooks_and_other_return_values_are_one_error():
    def hooked(features, labels, mode):
        spec = model_fn(features, labels, mode, {"learning_rate": 0.1})
        return spec._replace(prediction_hooks=(tf.compat.v1.train.StopAtStepHook(last_step=1),))

    with pytest.raises(ValueError, match=r"model_fn returns prediction_hooks \(StopAtStepHook\)"):
        WrappedModelFn(hooked).make_variables(_dataset().element_spec[0])
    with pytest.raises(TypeError, match="All hooks must be SessionRunHook instances"):
        EstimatorSpec(ModeKeys.TRAIN, loss=1.0, train_op=tf.constant(0), training_hooks=[object()])
    with pytest.raises(TypeError, match="must return compat.wrapped_model_fns.EstimatorSpec"):
        WrappedModelFn(lambda features, labels, mode: None).make_variables(_dataset().element_spec)


def test_an_evaluations_scaffold_saver_restores_by_its_names_and_a_trainings_gives_the_retention():
    """EVAL's `Scaffold(saver=Saver({"logits/kernel/swapped": kernel, ...}))` evaluates with the value saved under
    that name (here: a variable the TRAIN graph made), and the model keeps its own afterwards; a Saver in TRAIN
    saved model_dir's checkpoints: its retention is the model's (tests/test_scaffold_saver.py)."""

    def swapped(features, labels, mode, params):
        spec = model_fn(features, labels, mode, params)
        kernel = next(variable for variable in tf.compat.v1.global_variables() if variable.name == "logits/kernel:0")
        if mode == ModeKeys.TRAIN:
            tf.compat.v1.get_variable("logits/kernel/swapped", kernel.shape, initializer=tf.compat.v1.zeros_initializer(),
                                      trainable=False)
            return spec
        restore = {variable.name.split(":")[0]: variable for variable in tf.compat.v1.global_variables()
                   if variable is not kernel}
        restore["logits/kernel/swapped"] = kernel
        return spec._replace(scaffold=tf.compat.v1.train.Scaffold(saver=tf.compat.v1.train.Saver(restore)))

    model = WrappedModelFn(swapped, params={"learning_rate": 0.1})
    model.make_variables(_dataset().element_spec)
    model.fit(_dataset(), epochs=1, verbose=0)
    kernel = model.tf1_variables["logits/kernel"].numpy()
    assert np.abs(kernel).min() > 0  # the swap changes every logit
    zero_kernel = WrappedModelFn(model_fn, params={"learning_rate": 0.1})
    zero_kernel.make_variables(_dataset().element_spec)
    for name, variable in zero_kernel.tf1_variables.items():
        variable.assign(np.zeros_like(variable) if name == "logits/kernel" else model.tf1_variables[name])
    zero_kernel.optimizer.iterations.assign(model.optimizer.iterations)
    assert model.estimator_evaluate(_dataset()) == zero_kernel.estimator_evaluate(_dataset())
    np.testing.assert_array_equal(model.tf1_variables["logits/kernel"].numpy(), kernel)

    def saving(features, labels, mode, params):
        spec = model_fn(features, labels, mode, params)
        return spec._replace(scaffold=tf.compat.v1.train.Scaffold(saver=tf.compat.v1.train.Saver(max_to_keep=3)))

    saved = WrappedModelFn(saving, params={"learning_rate": 0.1})
    saved.make_variables(_dataset().element_spec)
    assert dict(saved.saver_retention) == {"max_to_keep": 3, "keep_checkpoint_every_n_hours": 10000.0}


def test_export_outputs_default_and_are_checked_as_estimator_s():
    """A PREDICT spec's export outputs, as Estimator's EstimatorSpec made them (the export itself:
    tests/test_wrapped_model_fn.py, against the real Estimator's SavedModel)."""
    predictions = {"logits": tf.constant([[1.0]])}
    default = EstimatorSpec(ModeKeys.PREDICT, predictions=predictions).export_outputs
    assert list(default) == ["serving_default"] and default["serving_default"].outputs == predictions
    scores = wrapped_model_fns.ClassificationOutput(scores=predictions["logits"])
    named = EstimatorSpec(ModeKeys.PREDICT, predictions=predictions, export_outputs={"scores": scores}).export_outputs
    assert named == {"scores": scores, "serving_default": scores}
    assert wrapped_model_fns.PredictOutput(predictions["logits"]).outputs == {"output": predictions["logits"]}
    with pytest.raises(ValueError, match="none of them are specified as the default"):
        EstimatorSpec(ModeKeys.PREDICT, predictions=predictions,
                      export_outputs={"a": scores, "b": wrapped_model_fns.RegressionOutput(predictions["logits"])})
    with pytest.raises(TypeError, match="must be ExportOutput objects"):
        EstimatorSpec(ModeKeys.PREDICT, predictions=predictions, export_outputs={"a": predictions})
    with pytest.raises(ValueError, match="At least one of `scores` and `classes`"):
        wrapped_model_fns.ClassificationOutput()


def test_an_export_drops_a_classification_signature_without_one_string_input_as_estimator_did(tmp_path):
    """Estimator left out a classify/regress signature whose receiver is not one string tensor; a receiver
    giving sparse features is one error."""
    from estimator_migrate.compat import estimator_export, estimator_training

    def classifying(features, labels, mode, params):
        logits = tf.compat.v1.layers.dense(features["x"], 2, name="logits")
        return EstimatorSpec(mode, predictions={"logits": logits}, export_outputs={
            "serving_default": wrapped_model_fns.ClassificationOutput(scores=tf.nn.softmax(logits)),
            "logits": wrapped_model_fns.PredictOutput(logits)})

    model = estimator_training.configure(WrappedModelFn(classifying), model_dir=tmp_path)
    raw = estimator_export.build_raw_serving_input_receiver_fn({"x": tf.zeros([1, 4])})
    with pytest.raises(ValueError, match="Couldn't find trained model at"):  # as Estimator: no checkpoint yet
        estimator_training.export_saved_model(model, tmp_path / "export", raw)
    model.make_variables({"x": tf.TensorSpec([None, 4], tf.float32)}, ModeKeys.PREDICT)
    tf.train.Checkpoint(model=model).save(str(tmp_path / "ckpt"))
    exported = tf.saved_model.load(estimator_training.export_saved_model(model, tmp_path / "export", raw).decode())
    assert list(exported.signatures) == ["logits"]
    assert exported.signatures["logits"](x=tf.ones([3, 4]))["output"].shape == (3, 2)

    def sparse_receiver():
        serialized = tf.compat.v1.placeholder(tf.string, [None])
        parsed = tf.io.parse_example(serialized, {"x": tf.io.VarLenFeature(tf.float32)})
        return estimator_export.ServingInputReceiver(parsed, {"examples": serialized})

    with pytest.raises(TypeError, match="gives the model_fn a SparseTensor feature"):
        estimator_training.export_saved_model(model, tmp_path / "export", sparse_receiver)


def test_exact_resume_refuses_a_model_fn_drawing_from_tf1_random_ops():
    from estimator_migrate.compat.estimator_training import check_exact

    def dropout_model_fn(features, labels, mode, params):
        features = {"x": tf.compat.v1.layers.dropout(features["x"], 0.5, training=mode == ModeKeys.TRAIN)}
        return model_fn(features, labels, mode, params)

    model = WrappedModelFn(dropout_model_fn, params={"learning_rate": 0.1})
    model.make_variables(_dataset().element_spec)
    assert model.stateful_random_ops == ["RandomUniform"]
    with pytest.raises(ValueError, match=r"TF1 ops \(RandomUniform\), whose state no checkpoint holds"):
        check_exact(model)
    check_exact(_trained())  # no random op: nothing to refuse


def test_variables_initialised_from_tensors_are_made_once_with_those_values():
    """`tf.Variable(tf.zeros(...))` and `get_variable(initializer=<tensor>)`, as TF1 code wrote them: the value
    is computed once, its random ops with their seeds (as TF1's initializer ran once), and training moves on
    from it; an initial value computed from the input is one error naming the variable."""

    def tensor_initialised(features, labels, mode, params):
        scale = tf.compat.v1.Variable(tf.ones([]), name="scale")
        noise = tf.compat.v1.get_variable("noise", initializer=tf.random.normal([4], seed=7), trainable=False)
        return model_fn({"x": features["x"] * scale + noise}, labels, mode, params)

    model = WrappedModelFn(tensor_initialised, params={"learning_rate": 0.1})
    model.make_variables(_dataset().element_spec)
    assert float(model.tf1_variables["scale"]) == 1.0
    noise = model.tf1_variables["noise"].numpy()
    again = WrappedModelFn(tensor_initialised, params={"learning_rate": 0.1})
    again.make_variables(_dataset().element_spec)
    np.testing.assert_array_equal(again.tf1_variables["noise"].numpy(), noise)  # the op's seed came along
    model.fit(_dataset(), verbose=0)
    assert float(model.tf1_variables["scale"]) != 1.0  # trained, not re-initialised at every step
    np.testing.assert_array_equal(model.tf1_variables["noise"].numpy(), noise)

    def input_initialised(features, labels, mode, params):
        tf.compat.v1.get_variable("offset", initializer=tf.reduce_mean(features["x"], axis=0))
        return model_fn(features, labels, mode, params)

    model = WrappedModelFn(input_initialised, params={"learning_rate": 0.1})
    with pytest.raises(ValueError, match=r"variable offset: its initial value .* is computed from the model_fn's input"):
        model.make_variables(_dataset().element_spec)


def test_a_partitioned_variable_is_one_error_naming_it():
    """An embedding lookup over TF1's parts ('mod' strategy) maps ids to rows otherwise than over one whole
    variable: dropping the partitioner would compute differently, so it stops with one error."""

    def partitioned(features, labels, mode, params):
        tf.compat.v1.get_variable("table", [8, 4], partitioner=tf.compat.v1.fixed_size_partitioner(2))
        return model_fn(features, labels, mode, params)

    model = WrappedModelFn(partitioned, params={"learning_rate": 0.1})
    with pytest.raises(ValueError, match=r"variable table: a partitioned variable .* is not migrated"):
        model.make_variables(_dataset().element_spec)
    with tf.Graph().as_default():  # the refusal ends with the model_fn's graph: TF1 code elsewhere still partitions
        table = tf.compat.v1.get_variable("table", [8, 4], partitioner=tf.compat.v1.fixed_size_partitioner(2))
        assert len(list(table)) == 2


def test_init_from_checkpoint_warm_starts_once_when_the_variables_are_made(tmp_path):
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.get_variable("warm/w", initializer=tf.fill([4, 3], 0.5))
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            warm = tf.compat.v1.train.Saver().save(session, str(tmp_path / "warm.ckpt"))

    def warm_started(features, labels, mode, params):
        spec = model_fn(features, labels, mode, params)
        tf.compat.v1.train.init_from_checkpoint(warm, {"warm/w": "hidden/w"})
        return spec

    model = WrappedModelFn(warm_started, params={"learning_rate": 0.1})
    model.make_variables(_dataset().element_spec)
    np.testing.assert_array_equal(model.tf1_variables["hidden/w"].numpy(), np.full([4, 3], 0.5, np.float32))
    model.fit(_dataset(), verbose=0)
    trained = model.tf1_variables["hidden/w"].numpy()
    assert not np.allclose(trained, 0.5)  # trained from the warm start, not reset to it at every step
    model.estimator_evaluate(_dataset())
    list(model.estimator_predict(_dataset().map(lambda x, y: x)))
    np.testing.assert_array_equal(model.tf1_variables["hidden/w"].numpy(), trained)


def test_a_hook_kept_tf1_runs_against_the_wrapped_graph(tmp_path):
    """tests/codemods/fixtures/wrapped_tf1_hook, migrated: the module imports (its kept hook class is
    tf.compat.v1.train's), and the hook, given to the training of the wrapped model_fn, fetches the graph's
    `loss:0` by name at every step, as under Estimator (compat.wrapped_hooks)."""
    from tests.codemods.test_fixtures import FIXTURES
    from tests.conftest import import_program

    for target in ("keras", "loop"):
        program = import_program(FIXTURES / "wrapped_tf1_hook" / f"{target}.py")
        assert program.main(str(tmp_path / target), history=False) is None
        assert tf.train.latest_checkpoint(str(tmp_path / target)).endswith("-10")
        losses = program.main(str(tmp_path / f"{target}_history"), history=True)
        assert len(losses) == 10 and all(np.ndim(loss) == 0 for loss in losses) and losses[-1] < losses[0], losses


def test_tensors_compare_and_hash_by_identity_while_the_model_fn_builds_as_in_a_tf1_graph():
    """tf_slim's create_train_op asks `train_op not in tf.get_collection(TRAIN_OP)` (a TF1 optimizer put its
    update there), and TF1 code keys dicts by tensors: in Estimator's graph both went by identity; in the traced
    function they would compare element-wise ("can't convert Operation to Tensor") or be unhashable."""

    def identity_model_fn(features, labels, mode):
        logits = tf.compat.v1.layers.dense(features["x"], 2, name="logits")
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        update = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, tf.compat.v1.train.get_global_step())
        with tf.control_dependencies([update]):
            train_op = tf.identity(loss)
        assert train_op not in tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.TRAIN_OP)
        names = {loss: "loss", train_op: "train_op"}
        return EstimatorSpec(mode, loss=loss, train_op=train_op if names[train_op] == "train_op" else update)

    model = WrappedModelFn(identity_model_fn)
    model.make_variables(_dataset().element_spec)
    model.fit(_dataset(), epochs=1, verbose=0)
    assert int(model.optimizer.iterations) == 3
    assert tf.Tensor._USE_EQUALITY  # noqa: SLF001  (TF2's own behaviour again outside the model_fn)


def test_a_projects_estimator_class_keeps_its_constructor_and_reads_as_an_estimator(tmp_path):
    """`class MyModel(tf.estimator.Estimator)` migrates as a subclass of wrapped_model_fns.Estimator: Estimator's
    constructor parameters, `params` (a copy) and `model_dir`/`config` as Estimator had them; a name the migrated
    estimator has too is one error."""
    from estimator_migrate.compat.estimator_training import TrainingConfig, train

    class LinearModel(wrapped_model_fns.Estimator):
        def __init__(self, model_dir, learning_rate=0.1, config=None):
            super().__init__(model_fn=model_fn, model_dir=model_dir, config=config,
                             params={"learning_rate": learning_rate})

    model = LinearModel(str(tmp_path), config=TrainingConfig(save_checkpoints_steps=2))
    model.params["learning_rate"] = 5.0  # a copy, as Estimator's
    assert (model.params, model.model_dir, model.config.save_checkpoints_steps) == ({"learning_rate": 0.1}, str(tmp_path), 2)
    train(model, input_fn=_dataset, steps=3)
    assert int(model.tf1_variables["global_step"]) == 3
    with pytest.raises(TypeError, match="Summarized defines summary, which the migrated estimator .* rename it"):
        class Summarized(wrapped_model_fns.Estimator):
            def summary(self):
                return "a helper of the project's own"


def test_built_in_hooks_of_the_spec_find_the_global_step_read_estimator_made(tmp_path):
    """Estimator read the global step once before the model_fn, and StopAtStepHook (like every built-in hook)
    fetches that read: in a spec's training_hooks it stops the training at its last_step. A hook reading a
    variable's graph op (StepCounterHook's summary tag) is one error naming it."""
    from estimator_migrate.compat.estimator_training import configure, train

    def stopping_model_fn(features, labels, mode, params):
        spec = model_fn(features, labels, mode, params)
        hooks = [tf.compat.v1.train.StopAtStepHook(last_step=4), *params.get("hooks", ())]
        return EstimatorSpec(mode, loss=spec.loss, train_op=spec.train_op, training_hooks=hooks)

    def endless():
        return _dataset().repeat()

    model = configure(WrappedModelFn(stopping_model_fn, params={"learning_rate": 0.1}), model_dir=str(tmp_path / "a"))
    train(model, input_fn=endless, steps=10)
    assert int(model.optimizer.iterations) == int(model.tf1_variables["global_step"]) == 4
    counter = tf.compat.v1.train.StepCounterHook(every_n_steps=2, output_dir=str(tmp_path / "counter"))
    counting = configure(WrappedModelFn(stopping_model_fn, params={"learning_rate": 0.1, "hooks": [counter]}),
                         model_dir=str(tmp_path / "b"))
    with pytest.raises(TypeError, match=r"StepCounterHook\.begin\(\) reads the graph op of a variable"):
        train(counting, input_fn=endless, steps=10)


def test_a_summary_saver_hook_reading_an_unfinalized_scaffold_is_one_error(tmp_path):
    """SummarySaverHook(scaffold=...) read `merge_all` from the Scaffold Estimator's session had finalized; a wrapped
    model_fn's is not, and the hook would write nothing: one error saying what to give it instead. Given its
    summary_op, it runs (its summaries compared with Estimator's: tests/test_session_hooks.py)."""
    from estimator_migrate.compat.estimator_training import configure, train

    def summarizing_model_fn(features, labels, mode, params):
        spec = model_fn(features, labels, mode, params)
        tf.compat.v1.summary.scalar("the_loss", spec.loss)
        hook = tf.compat.v1.train.SummarySaverHook(save_steps=2, output_dir=str(tmp_path / params["out"]),
                                                   **params["source"]())
        return EstimatorSpec(mode, loss=spec.loss, train_op=spec.train_op, training_hooks=[hook])

    by_scaffold = {"out": "hooked_a", "source": lambda: {"scaffold": tf.compat.v1.train.Scaffold()}}
    model = configure(WrappedModelFn(summarizing_model_fn, params={"learning_rate": 0.1, **by_scaffold}),
                      model_dir=str(tmp_path / "a"))
    with pytest.raises(ValueError, match=r"SummarySaverHook\(scaffold=\.\.\.\).*summary_op=tf\.compat\.v1\.summary\.merge_all"):
        train(model, input_fn=lambda: _dataset().repeat(), steps=3)

    by_op = {"out": "hooked", "source": lambda: {"summary_op": tf.compat.v1.summary.merge_all()}}
    model = configure(WrappedModelFn(summarizing_model_fn, params={"learning_rate": 0.1, **by_op}),
                      model_dir=str(tmp_path / "b"))
    train(model, input_fn=lambda: _dataset().repeat(), steps=3)
    written = [(event.step, value.tag) for path in (tmp_path / "hooked").glob("events.out.tfevents*")
               for event in tf.compat.v1.train.summary_iterator(str(path)) for value in event.summary.value]
    assert written == [(1, "the_loss"), (3, "the_loss")]


def test_a_hook_saves_with_a_tf1_saver_and_a_checkpoint_saver_hook_is_one_error(tmp_path):
    """A hook of the program's own saving with a TF1 Saver (a best-model saver: `saver.save(run_context.session,
    path)`, which checks that it is given a session) writes the model's variables by their TF1 names, as they were
    after that step. A CheckpointSaverHook replaced Estimator's own saving: one error saying what to do instead."""
    from estimator_migrate.compat.estimator_training import configure, train

    class SaveAtStep(tf.compat.v1.train.SessionRunHook):
        def begin(self):
            self.saver = tf.compat.v1.train.Saver(max_to_keep=1)
            self.step = tf.compat.v1.train.get_global_step()

        def after_run(self, run_context, run_values):
            if int(run_context.session.run(self.step)) == 3:
                self.saved = self.saver.save(run_context.session, str(tmp_path / "best" / "model.ckpt"), global_step=3)
                run_context.request_stop()

    def hooked(hooks):  # (not through params, which Estimator deep-copied)
        def hooked_model_fn(features, labels, mode, params):
            spec = model_fn(features, labels, mode, params)
            return EstimatorSpec(mode, loss=spec.loss, train_op=spec.train_op, training_hooks=hooks)
        return hooked_model_fn

    saving = SaveAtStep()
    model = configure(WrappedModelFn(hooked([saving]), params={"learning_rate": 0.1}), model_dir=str(tmp_path / "a"))
    train(model, input_fn=lambda: _dataset().repeat(), steps=10)
    assert saving.saved == str(tmp_path / "best" / "model.ckpt-3") and int(model.optimizer.iterations) == 3
    saved = tf.train.load_checkpoint(saving.saved)
    assert int(saved.get_tensor("global_step")) == 3
    for name in ("hidden/w", "logits/kernel", "logits/bias"):
        np.testing.assert_array_equal(saved.get_tensor(name), model.tf1_variables[name].numpy(), err_msg=name)

    saver_hook = tf.compat.v1.train.CheckpointSaverHook(str(tmp_path / "elsewhere"), save_steps=2)
    model = configure(WrappedModelFn(hooked([saver_hook]), params={"learning_rate": 0.1}), model_dir=str(tmp_path / "b"))
    with pytest.raises(ValueError, match=r"a CheckpointSaverHook among the hooks of a wrapped model_fn.*"
                                         r"RunConfig\(save_checkpoints_steps=\.\.\., keep_checkpoint_max=\.\.\.\)"):
        train(model, input_fn=lambda: _dataset().repeat(), steps=10)


def test_a_hooks_coordinator_stops_the_training_and_reports_its_threads_error(tmp_path):
    """after_create_session(session, coord) gets MonitoredSession's Coordinator: a stop requested on it ends the
    training after that step; an error a thread reported to it (`coord.request_stop(error)`) is raised when the
    training ends, as MonitoredSession's close raised it."""
    from estimator_migrate.compat.estimator_training import configure, train

    class StopThroughTheCoordinator(tf.compat.v1.train.SessionRunHook):
        def __init__(self, fail=False):
            self.fail = fail

        def after_create_session(self, session, coord):
            self.coord = coord

        def after_run(self, run_context, run_values):
            if int(run_context.session.run(tf.compat.v1.train.get_global_step())) != 2:
                return
            if not self.fail:
                self.coord.request_stop()
                return
            try:  # as a feeding thread reported its error
                raise RuntimeError("the feeder thread died")
            except RuntimeError as error:
                self.coord.request_stop(error)

    def hooked(hook):
        def hooked_model_fn(features, labels, mode, params):
            spec = model_fn(features, labels, mode, params)
            return EstimatorSpec(mode, loss=spec.loss, train_op=spec.train_op, training_hooks=[hook])
        return hooked_model_fn

    model = configure(WrappedModelFn(hooked(StopThroughTheCoordinator()), params={"learning_rate": 0.1}),
                      model_dir=str(tmp_path / "a"))
    train(model, input_fn=lambda: _dataset().repeat(), steps=10)
    assert int(model.optimizer.iterations) == 2
    failing = configure(WrappedModelFn(hooked(StopThroughTheCoordinator(fail=True)),
                                       params={"learning_rate": 0.1}), model_dir=str(tmp_path / "b"))
    with pytest.raises(RuntimeError, match="the feeder thread died"):
        train(failing, input_fn=lambda: _dataset().repeat(), steps=10)
    assert int(failing.optimizer.iterations) == 2


def test_built_in_hooks_the_rewrite_made_callbacks_run_from_the_specs_training_hooks(tmp_path):
    """A built-in hook in a spec's training_hooks is rewritten wherever it is built (codemods/runtime_tier.py's
    RUNTIME_HOOKS): the compat.estimator_hooks callbacks it becomes run with the training's callbacks. Here
    StopAtStep ends the training at step 7 (of 10), StepCounter writes global_step/sec at steps 3 and 5 and 7, and
    Profiler traces steps 3 and 6 (not the first; then every 3), each holding the model's own MatMul."""
    from estimator_migrate.compat import estimator_hooks
    from estimator_migrate.compat.estimator_hooks import read_eval_metrics
    from estimator_migrate.compat.estimator_training import configure, train

    def hooked_model_fn(features, labels, mode, params, config):
        spec = model_fn(features, labels, mode, params)
        hooks = [estimator_hooks.StopAtStep(last_step=7),
                 estimator_hooks.StepCounter(every_n_steps=2, output_dir=f"{config.model_dir}/counter"),
                 estimator_hooks.Profiler(save_steps=3, output_dir=f"{config.model_dir}/profile")]
        return EstimatorSpec(mode, loss=spec.loss, train_op=spec.train_op, training_hooks=hooks)

    model = configure(WrappedModelFn(hooked_model_fn, params={"learning_rate": 0.1}), model_dir=str(tmp_path))
    train(model, input_fn=lambda: _dataset().repeat(), steps=10)
    assert int(model.optimizer.iterations) == int(model.tf1_variables["global_step"]) == 7
    assert sorted(read_eval_metrics(str(tmp_path / "counter"))) == [3, 5, 7]
    traces = {path.parts[-5]: path.read_bytes() for path in (tmp_path / "profile").glob("*/plugins/profile/*/*.xplane.pb")}
    assert sorted(traces) == ["step_3", "step_6"]
    assert all(b"MatMul" in trace for trace in traces.values())
    with pytest.raises(TypeError, match="All hooks must be SessionRunHook instances"):
        EstimatorSpec(ModeKeys.EVAL, loss=tf.constant(0.0), evaluation_hooks=[estimator_hooks.StopAtStep(last_step=1)])


def test_run_options_that_only_change_an_oom_report_are_taken_and_others_are_one_error(tmp_path):
    """efficientdet's OomReportingHook asks each step for `report_tensor_allocations_upon_oom` (TF1 then listed the
    live tensors in an out-of-memory error): the steps run, the same. Options that change how the step runs or what
    it returns (a FULL_TRACE, run_metadata) are one error naming them."""
    from estimator_migrate.compat.estimator_training import configure, train

    class OptionsHook(tf.compat.v1.train.SessionRunHook):
        def __init__(self, options, metadata=False):
            self.options, self.metadata, self.steps = options, metadata, 0

        def before_run(self, run_context):
            if self.metadata:
                run_context.session.run(tf.compat.v1.train.get_global_step(), options=self.options,
                                        run_metadata=tf.compat.v1.RunMetadata())
            return tf.compat.v1.train.SessionRunArgs(fetches=[], options=self.options)

        def after_run(self, run_context, run_values):
            self.steps += 1

    oom_report = OptionsHook(tf.compat.v1.RunOptions(report_tensor_allocations_upon_oom=True))
    model = configure(WrappedModelFn(model_fn, params={"learning_rate": 0.1}), model_dir=str(tmp_path / "a"))
    train(model, input_fn=_dataset, hooks=[oom_report], steps=3)
    assert oom_report.steps == int(model.tf1_variables["global_step"]) == 3
    trace = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE)
    for hook, named in ((OptionsHook(trace), r"SessionRunArgs\(feed_dict=\.\.\., options=\.\.\.\) is not migrated \(trace_level\)"),
                        (OptionsHook(None, metadata=True), r"session.run\(options=..., run_metadata=...\) is not migrated \(run_metadata\)")):
        model = configure(WrappedModelFn(model_fn, params={"learning_rate": 0.1}), model_dir=str(tmp_path / "b"))
        with pytest.raises(ValueError, match=named):
            train(model, input_fn=_dataset, hooks=[hook], steps=3)


def test_a_configured_model_handed_elsewhere_answers_estimators_calls(tmp_path):
    """Code the rewrite did not follow (a helper given the estimator: simclr's `perform_evaluation(estimator,
    input_fn, ...)`) calls Estimator's methods on the migrated model: train and export_saved_model are
    compat.estimator_training's, evaluate and predict too when given an input_fn; given arrays or a dataset,
    evaluate and predict are Keras's own."""
    from estimator_migrate.compat import estimator_export, estimator_training

    model = estimator_training.configure(WrappedModelFn(model_fn, params={"learning_rate": 0.1}), model_dir=tmp_path,
                                         config=estimator_training.TrainingConfig(save_checkpoints_steps=3))
    model.train(lambda: _dataset().repeat(), max_steps=6)
    assert tf.train.latest_checkpoint(str(tmp_path)).endswith("-6")
    metrics = model.evaluate(lambda: _dataset(), steps=2, name="helper")
    assert metrics["global_step"] == 6 and set(metrics) == {"accuracy", "loss", "global_step"}
    assert (tmp_path / "eval_helper").is_dir()
    predicted = list(model.predict(input_fn=lambda: _dataset().map(lambda x, y: x)))
    assert len(predicted) == 20 and set(predicted[0]) == {"class"}
    keras_predictions = model.predict(_dataset().map(lambda x, y: x), verbose=0)  # Keras's: arrays of the batches
    np.testing.assert_array_equal(keras_predictions["class"], [p["class"] for p in predicted])
    raw = estimator_export.build_raw_serving_input_receiver_fn({"x": tf.zeros([1, 4])})
    assert (tmp_path / "export").joinpath(model.export_saved_model(str(tmp_path / "export"), raw).decode()).is_dir()


def test_prediction_and_evaluation_restore_without_a_warning_for_the_optimizer_state_they_do_not_build(tmp_path,
                                                                                                       caplog):
    """Estimator's PREDICT and EVAL graphs had no optimizer slots and its Saver restored what they had, silently;
    a migrated predict or evaluate in a new process (a program's `--task_type infer`) restores the weights, and
    the slots it never builds are no warning per variable."""
    from estimator_migrate.compat import estimator_training

    def configured():
        return estimator_training.configure(WrappedModelFn(model_fn, params={"learning_rate": 0.1}),
                                            model_dir=tmp_path, config=estimator_training.TrainingConfig())

    configured().train(lambda: _dataset().repeat(), max_steps=6)
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        predicted = list(configured().predict(input_fn=lambda: _dataset().map(lambda x, y: x)))
        metrics = configured().evaluate(lambda: _dataset())
        gc.collect()  # TensorFlow warns of unrestored values when the checkpoint object goes
    assert len(predicted) == 20 and metrics["global_step"] == 6
    assert [r.getMessage() for r in caplog.records if "restored" in r.getMessage()] == []


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_each_training_call_starts_the_train_specs_streaming_metrics_from_zero(target, tmp_path):
    """official/resnet's model_fn logs `tf.identity(accuracy[1], name="train_accuracy")` in training, and trains
    in cycles (train, evaluate, train again): each Estimator train call ran a new session, whose local_init_op
    zeroed the metric's counts. Here the weights do not move (rate 0), so each call sees the same accuracies."""
    from estimator_migrate.compat import estimator_loop, estimator_training

    def metric_model_fn(features, labels, mode, params):
        spec = model_fn(features, labels, mode, params)
        if mode == ModeKeys.TRAIN:
            logits = tf.compat.v1.get_default_graph().get_tensor_by_name("logits/BiasAdd:0")
            accuracy = tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))
            tf.identity(accuracy[1], name="train_accuracy")
        return spec

    class Recorder(tf.compat.v1.train.SessionRunHook):
        def __init__(self):
            self.calls = []

        def begin(self):
            self.calls.append([])

        def before_run(self, run_context):
            return tf.compat.v1.train.SessionRunArgs("train_accuracy:0")

        def after_run(self, run_context, run_values):
            self.calls[-1].append(float(run_values.results))

    model = estimator_training.configure(WrappedModelFn(metric_model_fn, params={"learning_rate": 0.0}),
                                         model_dir=tmp_path, config=estimator_training.TrainingConfig())
    recorder, train = Recorder(), estimator_training.train if target == "keras" else estimator_loop.train
    train(model, lambda: _dataset(), hooks=[recorder], max_steps=3)
    train(model, lambda: _dataset(), hooks=[recorder], max_steps=6)
    first, second = recorder.calls
    assert len(first) == len(second) == 3 and len(set(first)) > 1  # the counts accumulate within a call
    assert second == first


def test_evaluate_given_an_estimator_checkpoint_name_reads_the_migrated_checkpoint_of_that_step(tmp_path):
    """A program evaluating its checkpoints by Estimator's names (`model_dir/model.ckpt-N`, as a real project's
    per-checkpoint evaluation loop computed them) gets the migrated checkpoint of step N (the loop target keeps one
    each save_checkpoints_steps); a step with none is one error listing the steps there are, not TensorFlow's
    NotFoundError."""
    from estimator_migrate.compat import estimator_loop, estimator_training

    model = estimator_training.configure(WrappedModelFn(model_fn, params={"learning_rate": 0.1}), model_dir=tmp_path,
                                         config=estimator_training.TrainingConfig(save_checkpoints_steps=3))
    estimator_loop.train(model, lambda: _dataset().repeat(), max_steps=6)
    for step in (3, 6):
        metrics = estimator_training.evaluate(model, lambda: _dataset(), checkpoint_path=f"{tmp_path}/model.ckpt-{step}")
        assert metrics["global_step"] == step
    with pytest.raises(ValueError, match=r"evaluate\(checkpoint_path='.*/model.ckpt-4'\): no checkpoint there .* "
                                         r"holds the migrated checkpoints of steps \[0, 3, 6\]"):
        estimator_training.evaluate(model, lambda: _dataset(), checkpoint_path=str(tmp_path / "model.ckpt-4"))


def test_a_hook_fetching_the_global_step_by_name_gets_its_value(tmp_path):
    """TF 1.x hooks fetch the global step by its name ("global_step:0": a ref variable's value there); the wrapped
    graph's variable lives outside it, and its value goes by that name. Read in the step's call, it races the step's
    increment as it did under Estimator (a value before the step, or after it)."""
    from estimator_migrate.compat.estimator_training import configure, train

    class StepsSeen(tf.compat.v1.train.SessionRunHook):
        def __init__(self):
            self.seen = []

        def before_run(self, run_context):
            return tf.compat.v1.train.SessionRunArgs("global_step:0")

        def after_run(self, run_context, run_values):
            self.seen.append(int(run_values.results))

    hook = StepsSeen()
    model = configure(WrappedModelFn(model_fn, params={"learning_rate": 0.1}), model_dir=str(tmp_path))
    train(model, input_fn=lambda: _dataset().repeat(), max_steps=5, hooks=[hook])
    assert len(hook.seen) == 5 and all(seen in (before, before + 1) for before, seen in enumerate(hook.seen)), hook.seen


class _RaiseFlagAt(tf.compat.v1.train.SessionRunHook):
    """criteo/deepr's early stopping: a flag variable made in begin(), raised with session.run(assign) when a step is
    reached (and a stop requested); a training that finds it raised stops."""

    def __init__(self, step=None):
        self.step, self.seen = step, []

    def begin(self):
        with tf.compat.v1.variable_scope("signal", reuse=tf.compat.v1.AUTO_REUSE):
            self.flag = tf.compat.v1.get_variable("STOP", [], tf.bool, tf.compat.v1.constant_initializer(False),
                                                  collections=[tf.compat.v1.GraphKeys.GLOBAL_VARIABLES], trainable=False)
        self.raise_flag = tf.compat.v1.assign(self.flag, True)

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self.flag)

    def after_run(self, run_context, run_values):
        # (the steps of this training counted: a global step fetched with the step's own races its increment)
        self.seen.append(bool(run_values.results))
        if run_values.results:
            run_context.request_stop()
        elif len(self.seen) == self.step:
            run_context.session.run(self.raise_flag)
            run_context.request_stop()


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_a_variable_a_hook_makes_is_saved_and_restored_with_the_model_fns(tmp_path, target):
    """Estimator's Saver saved every global variable, a hook's too (measured with TF 2.15: deepr's STOP flag is in
    model.ckpt-N, and a training started again on that model_dir stops after one step). Here: the flag is in the
    migrated checkpoint by its TF1 name, and the next training finds it raised."""
    from estimator_migrate.compat import estimator_loop, estimator_training
    from estimator_migrate.compat.estimator_training import configure

    train = estimator_training.train if target == "keras" else estimator_loop.train
    first = _RaiseFlagAt(step=3)
    model = configure(WrappedModelFn(model_fn, params={"learning_rate": 0.1}), model_dir=str(tmp_path))
    train(model, input_fn=lambda: _dataset().repeat(), hooks=[first], steps=10)
    assert first.seen == [False, False, False] and int(model.tf1_variables["global_step"]) == 3
    assert bool(model.tf1_variables["signal/STOP"]) is True
    saved = tf.train.load_checkpoint(str(tmp_path))
    assert any(name.startswith("model/tf1_variables/signal.SSTOP/") for name in saved.get_variable_to_shape_map())

    again = _RaiseFlagAt()
    model = configure(WrappedModelFn(model_fn, params={"learning_rate": 0.1}), model_dir=str(tmp_path))
    train(model, input_fn=lambda: _dataset().repeat(), hooks=[again], steps=10)
    assert again.seen == [True] and int(model.tf1_variables["global_step"]) == 4


def test_only_a_model_fn_writing_summaries_of_its_own_has_its_training_write_them(tmp_path):
    """Estimator's summary hook ran for every training; here the training writes them (stepping eagerly, as with any
    SessionRunHook) only when the model_fn wrote summaries of its own and save_summary_steps is set: otherwise
    Estimator wrote just the loss, which the migrated training already writes, and the steps stay one traced call."""
    from estimator_migrate.compat.estimator_training import TrainingConfig, configure

    def summarizing_model_fn(features, labels, mode, params):
        spec = model_fn(features, labels, mode, params)
        tf.compat.v1.summary.scalar("batch_mean", tf.reduce_mean(features["x"]))
        return spec

    written = {}
    for name, function, steps in (("plain", model_fn, 100), ("summarizing", summarizing_model_fn, 100),
                                  ("never", summarizing_model_fn, None), ("under_a_writer", summarizing_model_fn, 100)):
        model = configure(WrappedModelFn(function, params={"learning_rate": 0.1}), model_dir=str(tmp_path / name),
                          config=TrainingConfig(save_summary_steps=steps))
        # (TF2 turns TF1 summary ops into writes to a default TF2 writer, as Keras's TensorBoard callback sets one:
        # in the model_fn's graph they stay TF1's)
        with tf.summary.create_file_writer(str(tmp_path / "other")).as_default() if name == "under_a_writer" \
                else contextlib.nullcontext():
            model.make_variables(_dataset().element_spec)
        written[name] = model.writes_summaries
    assert written == {"plain": False, "summarizing": True, "never": False, "under_a_writer": True}


def test_params_are_copied_when_built_and_for_each_call_as_estimator_copied_them():
    """Estimator deep-copied `params` in its constructor and gave each model_fn and input_fn call a copy: a
    program changing its dict afterwards, or a call changing what it got, changes nothing the model_fn sees."""
    given = {"learning_rate": 0.1, "layers": [4]}
    model = WrappedModelFn(model_fn, params=given)
    given["learning_rate"] = 5.0
    given["layers"].append(8)
    for mode in (ModeKeys.TRAIN, ModeKeys.EVAL):
        for params in (model.params_for_model_fn(mode), model.params_for_input_fn(mode)):
            assert params == {"learning_rate": 0.1, "layers": [4]}
            params["layers"].append(16)
