# -*- coding: latin-1 -*-
import tensorflow as tf
name = "café"
estimator = tf.estimator.LinearRegressor(feature_columns=[])
