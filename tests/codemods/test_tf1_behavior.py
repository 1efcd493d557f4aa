"""Where a TF1 graph program kept as written gets TensorFlow 1.x's behaviour back (codemods/rules/tf1_behavior.py),
and where it does not. Its run against TensorFlow 1.x's: tests/test_tf1_graph_program.py."""

from __future__ import annotations

import textwrap

from codemods.transformer import migrate_source

GRAPH_PROGRAM = textwrap.dedent("""\
    import tensorflow as tf


    def main(_):
        x = tf.placeholder(tf.float32, [None, 4])
        with tf.Session() as sess:
            print(sess.run(tf.reduce_sum(x), feed_dict={x: [[1, 2, 3, 4]]}))


    if __name__ == "__main__":
        tf.app.run()


    if __name__ == "__main__":
        print("a second entry block")
    """)
SWITCH = "    tf1_programs.run_as_tf1()  # TensorFlow 1.x's behaviour: graph mode, TF1 variables\n"


def test_a_tf1_graph_program_switches_first_in_its_first_entry_block():
    migrated = migrate_source(GRAPH_PROGRAM)
    code = migrated.code
    assert code.count("run_as_tf1()") == 1
    assert f'if __name__ == "__main__":\n{SWITCH}    tf.compat.v1.app.run()' in code
    assert "from estimator_migrate.compat import tf1_programs" in code
    assert [f.migrated for f in migrated.findings if f.rule == "tf1-behavior"] == [True]
    again = migrate_source(code)
    assert again.code == code and not [f for f in again.findings if f.migrated]


def test_tf2_names_for_graph_code_with_no_graph_of_its_own_ran_on_tensorflow_1():
    """tf.compat.v1 graph code (as tf_upgrade_v2 leaves it) run in no graph the program builds: on TensorFlow 2 it
    stops at its first placeholder, so the program ran on 1.x, in graph mode."""
    source = GRAPH_PROGRAM.replace("tf.placeholder", "tf.compat.v1.placeholder").replace(
        "tf.Session", "tf.compat.v1.Session").replace("tf.app.run()", "main(None)")
    code = migrate_source(source).code
    assert f'if __name__ == "__main__":\n{SWITCH}    main(None)' in code
    assert migrate_source(code).code == code


def test_a_tensorflow_2_program_building_its_own_graph_keeps_tf2_behaviour():
    """The same code run in a graph the program builds (`with tf.Graph().as_default():`) runs on TensorFlow 2."""
    source = GRAPH_PROGRAM.replace("tf.placeholder", "tf.compat.v1.placeholder").replace(
        "tf.Session", "tf.compat.v1.Session").replace("tf.app.run()", "with tf.Graph().as_default():\n        main(None)")
    assert "with tf.Graph().as_default():\n        main(None)" in source
    assert "run_as_tf1" not in migrate_source(source).code


def test_a_program_that_switches_itself_is_left_to_do_so():
    source = GRAPH_PROGRAM.replace("    tf.app.run()", "    tf.disable_v2_behavior()\n    tf.app.run()")
    assert "run_as_tf1" not in migrate_source(source).code


def test_no_switch_where_the_module_also_runs_an_estimator():
    """Estimators migrate to the eager runtime, which TF1 behaviour would stop."""
    estimator = textwrap.dedent("""\


        def train(columns, input_fn):
            tf.estimator.LinearClassifier(columns, model_dir="/tmp/m").train(input_fn, max_steps=10)
        """)
    assert "run_as_tf1" not in migrate_source(GRAPH_PROGRAM + estimator).code


def test_no_switch_without_kept_graph_code():
    source = textwrap.dedent("""\
        import tensorflow as tf


        def main(_):
            tf.logging.info("eager: %s", tf.reduce_sum(tf.ones([4])))


        if __name__ == "__main__":
            tf.app.run()
        """)
    code = migrate_source(source).code
    assert "tf.compat.v1.logging.info" in code and "run_as_tf1" not in code


def test_a_tensorflow_2_keras_script_making_a_session_for_keras_keeps_tf2_behaviour():
    """A session TF2 makes eagerly (for `set_session`), in a script with no placeholder: written for TensorFlow 2."""
    source = textwrap.dedent("""\
        import tensorflow as tf


        def main():
            config = tf.compat.v1.ConfigProto()
            config.gpu_options.allow_growth = True
            tf.compat.v1.keras.backend.set_session(tf.compat.v1.Session(config=config))
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile("sgd", "mse")
            model.fit([[1.0]], [[2.0]], epochs=1)


        if __name__ == "__main__":
            main()
        """)
    assert "run_as_tf1" not in migrate_source(source).code


SCRIPT = textwrap.dedent("""\
    \"\"\"A TF1 tutorial script: its graph runs at module level, no entry block.\"\"\"
    import numpy as np
    import tensorflow as tf

    data = np.ones([8, 4], np.float32)
    x = tf.placeholder(tf.float32, [None, 4])
    total = tf.reduce_sum(x)
    with tf.Session() as sess:
        print(sess.run(total, feed_dict={x: data}))
    """)


def test_a_tf1_graph_script_switches_after_its_imports():
    migrated = migrate_source(SCRIPT)
    code = migrated.code
    assert ("import tensorflow as tf\nfrom estimator_migrate.compat import tf1_programs\n\n"
            "tf1_programs.run_as_tf1()  # TensorFlow 1.x's behaviour: graph mode, TF1 variables\n\n"
            "data = np.ones") in code
    assert [f.migrated for f in migrated.findings if f.rule == "tf1-behavior"] == [True]
    again = migrate_source(code)
    assert again.code == code and not [f for f in again.findings if f.migrated]


def test_a_module_whose_graph_code_is_only_in_functions_does_not_switch_when_imported():
    """A library module (its functions build graphs for whoever calls them): switching TF1 behaviour on at its
    import would change its importer's program; the importer's entry block decides."""
    library = SCRIPT.replace("x = tf.placeholder", "def build():\n    x = tf.placeholder").replace(
        "total = tf.reduce_sum(x)\nwith tf.Session() as sess:\n    print(sess.run(total, feed_dict={x: data}))",
        "    return tf.reduce_sum(x)")
    assert "def build():\n    x = tf.placeholder" in library
    assert "run_as_tf1" not in migrate_source(library).code


def test_a_graph_script_that_switches_itself_or_builds_its_own_graph_is_left_alone():
    switching = SCRIPT.replace("data = np.ones", "tf.disable_v2_behavior()\ndata = np.ones")
    assert "run_as_tf1" not in migrate_source(switching).code
    own_graph = SCRIPT.replace("tf.placeholder", "tf.compat.v1.placeholder").replace(
        "tf.Session", "tf.compat.v1.Session").replace("x = tf.compat", "graph = tf.Graph()\ngraph.as_default().__enter__()\nx = tf.compat")
    assert "run_as_tf1" not in migrate_source(own_graph).code


def test_graph_code_at_module_level_of_a_module_whose_training_migrates_gets_one_todo():
    """A notebook's shape: an estimator trained (migrated: eager), then a graph of its own at module level, which
    TensorFlow 2 stops at; no switch serves both, so the first placeholder says what to do, and no switch is added."""
    source = textwrap.dedent("""\
        import tensorflow as tf

        columns = [tf.feature_column.numeric_column("x", shape=[4])]
        classifier = tf.estimator.DNNClassifier(hidden_units=[8], feature_columns=columns, model_dir="/tmp/dnn")
        classifier.train(input_fn=lambda: tf.data.Dataset.from_tensors(({"x": [[1.0] * 4]}, [0])), max_steps=10)

        tf.reset_default_graph()
        X = tf.placeholder(tf.float32, shape=(None, 4), name="X")
        y = tf.placeholder(tf.int32, shape=(None), name="y")
        with tf.Session() as sess:
            print(sess.run(tf.reduce_sum(X), feed_dict={X: [[1, 2, 3, 4]]}))
        """)
    migrated = migrate_source(source)
    todos = [f for f in migrated.findings if f.rule == "tf1-behavior"]
    assert len(todos) == 1 and not todos[0].migrated and "graph code at module level" in todos[0].message
    assert "# TODO(migrate): tf1-behavior: graph code at module level" in migrated.code.split("X = tf.compat.v1.placeholder")[0]
    assert "run_as_tf1" not in migrated.code
    assert migrate_source(migrated.code).code == migrated.code


def test_a_supervisor_program_gets_tf1_behaviour():
    """`tf.train.Supervisor` (TF1's fault tolerance before MonitoredTrainingSession: saves every save_model_secs,
    restores from logdir) refuses eager execution; a program using it, even in TensorFlow 2's names with no
    placeholder, ran on 1.x in graph mode."""
    source = textwrap.dedent("""\
        import tensorflow as tf


        def main():
            loss = tf.reduce_sum(tf.compat.v1.get_variable("w", [3]) ** 2)
            step = tf.compat.v1.train.get_or_create_global_step()
            train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
            supervisor = tf.compat.v1.train.Supervisor(logdir="/tmp/sv", save_model_secs=60)
            with supervisor.managed_session() as sess:
                while not supervisor.should_stop():
                    sess.run(train_op)


        if __name__ == "__main__":
            main()
        """)
    code = migrate_source(source).code
    assert f'if __name__ == "__main__":\n{SWITCH}    main()' in code
