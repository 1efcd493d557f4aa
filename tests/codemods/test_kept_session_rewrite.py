"""A MonitoredTrainingSession in no migrated loop shape: compat.graph_sessions's in TF1 graph code, a TODO in a module
that runs migrated (eager) code, where a graph session cannot run (codemods/rules/unsupported_api.py)."""

import textwrap

from codemods.transformer import migrate_source

GRAPH = textwrap.dedent("""\
    import tensorflow.compat.v1 as tf

    def train(model_dir, images, x, train_op):
        with tf.train.MonitoredTrainingSession(checkpoint_dir=model_dir, save_checkpoint_steps=10) as sess:
            while not sess.should_stop():
                sess.run(train_op, feed_dict={x: images})
    """)
CANNED = textwrap.dedent("""\
    def evaluate_canned(model_dir, input_fn):
        est = tf.estimator.LinearRegressor(feature_columns=[tf.feature_column.numeric_column("x")], model_dir=model_dir)
        est.train(input_fn, steps=10)
    """)


def test_in_graph_code_the_session_is_graph_sessions_and_reported_migrated():
    result = migrate_source(GRAPH)
    assert "with graph_sessions.monitored_training_session(checkpoint_dir=model_dir, save_checkpoint_steps=10) as sess:" \
        in result.code and "TODO" not in result.code
    [finding] = [f for f in result.findings if f.rule == "unsupported-api"]
    assert finding.migrated and "the same session" in finding.message and "exits 75" in finding.message
    assert migrate_source(result.code).code == result.code


def test_beside_migrated_eager_code_the_session_keeps_its_todo():
    result = migrate_source(GRAPH + "\n\n" + CANNED)
    assert "canned.linear_regressor(" in result.code and "graph_sessions" not in result.code
    assert "# TODO(migrate): unsupported-api: MonitoredTrainingSession" in result.code


def test_a_checkpoint_saver_hook_of_graph_code_is_graph_sessions_beside_eager_code_it_keeps_its_todo():
    graph = GRAPH.replace("checkpoint_dir=model_dir, save_checkpoint_steps=10", "checkpoint_dir=model_dir, hooks=[\n"
                          "            tf.train.CheckpointSaverHook(model_dir, save_steps=5)]")
    assert "graph_sessions.CheckpointSaverHook(model_dir, save_steps=5)" in migrate_source(graph).code
    beside = migrate_source(graph + "\n\n" + CANNED).code
    assert "graph_sessions" not in beside and "# TODO(migrate): unsupported-api: CheckpointSaverHook" in beside
