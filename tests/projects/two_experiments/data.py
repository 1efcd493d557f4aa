"""Points of four clusters in ten dimensions, generated (no download), split into training and test examples."""
import json

import numpy as np
import tensorflow as tf

_rng = np.random.RandomState(7)
CENTRES = _rng.normal(0, 2, size=(4, 10)).astype(np.float32)
LABELS = _rng.randint(0, 4, size=1200).astype(np.int32)
POINTS = (CENTRES[LABELS] + _rng.normal(0, 1.5, size=(1200, 10))).astype(np.float32)


def train_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"point": POINTS[:1000]}, LABELS[:1000])).repeat().batch(40)


def eval_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"point": POINTS[1000:]}, LABELS[1000:])).batch(100)


def result_line(metrics):
    return json.dumps({"global_step": int(metrics["global_step"]), "accuracy": float(metrics["accuracy"])})
