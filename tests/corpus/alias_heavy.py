"""Import aliases as seen in the wild, and an optimizer given by name."""
import tensorflow.compat.v1 as tf
from tensorflow.compat.v1 import estimator as est
from tensorflow.compat.v1.feature_column import numeric_column as num

columns = [num("a"), num("b")]
run_config = est.RunConfig(model_dir="/tmp/aliases", save_checkpoints_steps=20, tf_random_seed=1)
linear = est.LinearClassifier(feature_columns=columns, optimizer="Ftrl", config=run_config)
data = est.inputs.numpy_input_fn(x={"a": [[1.0], [2.0]], "b": [[0.0], [1.0]]}, y=[[0], [1]], shuffle=False)
linear.train(input_fn=data, steps=100)
