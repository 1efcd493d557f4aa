"""Built-in hooks that only fetch tensors (LoggingTensorHook, NanTensorHook, ...) migrate as they are where a
model_fn kept as written runs them (codemods/runtime_tier.py, kind `session_hook`), and keep their TODO where
nothing proves it: a project with no such model_fn, a module making a TF1 session that may run them."""

from __future__ import annotations

import textwrap

from codemods.transformer import migrate_source

MODEL_FN = textwrap.dedent("""\
    import tensorflow as tf


    def model_fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [4, 1])
        loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - labels))
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, tf.compat.v1.train.get_global_step())
        hook = tf.estimator.LoggingTensorHook({"loss": loss}, every_n_iter=5)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, training_hooks=[hook])
    """)
WRAPPED_TRAINING = textwrap.dedent("""\


    def main(input_fn, loss):
        estimator = tf.estimator.Estimator(model_fn=model_fn, model_dir="/tmp/model")
        estimator.train(input_fn, max_steps=10, hooks=[tf.train.NanTensorHook(loss)])
    """)
CANNED_TRAINING = textwrap.dedent("""\
    import tensorflow as tf


    def main(input_fn, columns):
        estimator = tf.estimator.LinearClassifier(columns, model_dir="/tmp/model")
        estimator.train(input_fn, max_steps=10, hooks=[tf.estimator.LoggingTensorHook(["loss"], every_n_iter=5)])
    """)


def test_in_a_project_wrapping_its_model_fn_they_run_as_they_are():
    migrated = migrate_source(MODEL_FN + WRAPPED_TRAINING)
    code = migrated.code
    assert "wrapped_model_fns.WrappedModelFn(model_fn" in code
    assert 'hook = tf.compat.v1.train.LoggingTensorHook({"loss": loss}, every_n_iter=5)' in code
    assert "hooks=[tf.compat.v1.train.NanTensorHook(loss)]" in code
    assert "TODO(migrate)" not in code
    said = [f for f in migrated.findings if f.rule == "unsupported-api"]
    assert [(f.migrated, f.message.split(":")[0]) for f in said] == [(True, "LoggingTensorHook"),
                                                                      (True, "NanTensorHook")]
    assert migrate_source(code).code == code


def test_with_only_a_keras_model_to_train_them_they_keep_their_todo():
    code = migrate_source(CANNED_TRAINING).code
    assert "# TODO(migrate): unsupported-api: LoggingTensorHook: not migrated yet" in code
    assert "tf.compat.v1.train.LoggingTensorHook([" in code


def test_in_a_module_with_a_tf1_session_they_keep_their_todo():
    session = textwrap.dedent("""\


        def loop(train_op, loss):
            hooks = [tf.compat.v1.train.LoggingTensorHook({"loss": loss}, every_n_iter=5)]
            with tf.compat.v1.train.MonitoredSession(hooks=hooks) as session:
                session.run(train_op)
        """)
    code = migrate_source(MODEL_FN + WRAPPED_TRAINING + session).code
    assert code.count("TODO(migrate): unsupported-api: LoggingTensorHook: not migrated yet") == 2


def test_a_model_fn_module_migrates_them_when_another_module_wraps_it(tmp_path):
    from tests.conftest import MIGRATE, run

    trainer = tmp_path / "trainer"
    trainer.mkdir()
    (trainer / "model.py").write_text(MODEL_FN)
    (trainer / "task.py").write_text("import tensorflow as tf\n\nfrom trainer.model import model_fn\n"
                                     + WRAPPED_TRAINING)
    run([MIGRATE, "rewrite", tmp_path])
    model = (trainer / "model.py").read_text()
    assert "tf.compat.v1.train.LoggingTensorHook(" in model and "TODO(migrate)" not in model
    assert "wrapped_model_fns.WrappedModelFn(model_fn" in (trainer / "task.py").read_text()


def test_a_model_fn_modules_built_in_hooks_with_a_twin_become_it_when_another_module_wraps_it(tmp_path):
    """StopAtStepHook / ProfilerHook in the spec of a model_fn module that trains nothing become their
    compat.estimator_hooks callbacks (the wrapped model runs them with the training's callbacks); the same hooks
    in a function of that module returning no spec may be a TF1 session's elsewhere: kept, with their TODO."""
    from tests.conftest import MIGRATE, run

    hooks = textwrap.dedent("""\
        import tensorflow as tf


        def model_fn(features, labels, mode, params):
            w = tf.compat.v1.get_variable("w", [4, 1])
            loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - labels))
            train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, tf.compat.v1.train.get_global_step())
            hooks = [tf.estimator.StopAtStepHook(last_step=params["last_step"]),
                     tf.estimator.ProfilerHook(save_steps=100, output_dir=params["profile_dir"])]
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, training_hooks=hooks)


        def session_hooks():
            return [tf.estimator.StopAtStepHook(last_step=10)]
        """)
    trainer = tmp_path / "trainer"
    trainer.mkdir()
    (trainer / "model.py").write_text(hooks)
    (trainer / "task.py").write_text("import tensorflow as tf\n\nfrom trainer.model import model_fn\n"
                                     + WRAPPED_TRAINING)
    run([MIGRATE, "rewrite", tmp_path])
    model = (trainer / "model.py").read_text()
    assert 'hooks = [estimator_hooks.StopAtStep(last_step=params["last_step"]),' in model
    assert 'estimator_hooks.Profiler(save_steps=100, output_dir=params["profile_dir"])]' in model
    assert model.count("TODO(migrate)") == 1
    assert "TODO(migrate): unsupported-api: StopAtStepHook: not migrated yet" in model
    assert "return [tf.compat.v1.train.StopAtStepHook(last_step=10)]" in model
