"""DNNRegressor on a DataFrame through pandas_input_fn."""
import pandas as pd
import tensorflow as tf

frame = pd.DataFrame({"rooms": [3.0, 4.0, 2.0, 5.0], "area": [70.0, 90.0, 50.0, 120.0]})
prices = pd.Series([200.0, 260.0, 150.0, 330.0])

columns = [tf.feature_column.numeric_column(name) for name in ("rooms", "area")]
config = tf.estimator.RunConfig(model_dir="/tmp/houses", save_checkpoints_steps=50)
regressor = tf.estimator.DNNRegressor(hidden_units=[16, 8], feature_columns=columns, config=config)
input_fn = tf.compat.v1.estimator.inputs.pandas_input_fn(x=frame, y=prices, batch_size=2, num_epochs=None, shuffle=True)
regressor.train(input_fn=input_fn, max_steps=400)
