"""Training with the built-in hooks real jobs attach."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1

x = np.random.rand(500, 5).astype(np.float32)
y = x @ np.arange(5, dtype=np.float32)[:, None]
columns = [tf1.feature_column.numeric_column("x", shape=(5,))]
config = tf1.estimator.RunConfig(model_dir="/tmp/hooks", save_checkpoints_steps=100)
regressor = tf1.estimator.DNNRegressor(hidden_units=[10], feature_columns=columns, config=config)
input_fn = tf1.estimator.inputs.numpy_input_fn(x={"x": x}, y=y, batch_size=50, num_epochs=None, shuffle=True)
hooks = [
    tf1.train.LoggingTensorHook({"step": "global_step"}, every_n_iter=100),
    tf1.train.StopAtStepHook(num_steps=300),
    tf1.train.ProfilerHook(save_steps=500, output_dir="/tmp/hooks/profile"),
]
regressor.train(input_fn=input_fn, hooks=hooks, max_steps=1000)
