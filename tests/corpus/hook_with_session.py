"""A SessionRunHook that talks to the session: cannot be a Keras callback as it is."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1


class WarmStartHook(tf1.train.SessionRunHook):
    def __init__(self, values):
        self._values = values

    def after_create_session(self, session, coord):
        for name, value in self._values.items():
            variable = tf1.get_default_graph().get_tensor_by_name(name)
            variable.load(value, session)

    def before_run(self, run_context):
        return tf1.train.SessionRunArgs(tf1.train.get_global_step())


columns = [tf1.feature_column.numeric_column("x")]
config = tf1.estimator.RunConfig(model_dir="/tmp/session_hook", save_checkpoints_steps=10)
classifier = tf1.estimator.LinearClassifier(feature_columns=columns, config=config)
data = tf1.estimator.inputs.numpy_input_fn(x={"x": np.ones((8, 1), np.float32)}, y=np.ones(8), shuffle=False)
classifier.train(input_fn=data, hooks=[WarmStartHook({"linear/w:0": 0.5})], max_steps=50)
