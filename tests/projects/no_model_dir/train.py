"""Fits a linear price model: no model_dir, no RunConfig; two train calls of 100 steps each."""
import tensorflow as tf
from compat import json_line
from data import eval_input_fn, input_fn

columns = [tf.feature_column.numeric_column(name) for name in ("rooms", "area", "age")]
regressor = tf.estimator.LinearRegressor(feature_columns=columns)
regressor.train(input_fn=input_fn, steps=100)
regressor.train(input_fn=input_fn, steps=100)
metrics = regressor.evaluate(input_fn=eval_input_fn)
print(json_line({"global_step": int(metrics["global_step"]), "average_loss": float(metrics["average_loss"])}))
