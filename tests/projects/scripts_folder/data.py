"""Digits (8x8 images, 10 classes), split and scaled once for every script of this folder."""
import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

_digits = load_digits()
PIXELS = (_digits.data / 16.0).astype(np.float32)
LABELS = _digits.target.astype(np.int32)
TRAIN, TEST = slice(0, 1500), slice(1500, None)


def train_input_fn(batch_size=50):
    features = {"pixels": PIXELS[TRAIN]}
    return tf.data.Dataset.from_tensor_slices((features, LABELS[TRAIN])).repeat().batch(batch_size)


def eval_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"pixels": PIXELS[TEST]}, LABELS[TEST])).batch(100)


def result_line(metrics):
    """The last line every script prints: its final step and test accuracy, as JSON."""
    import json

    return json.dumps({"global_step": int(metrics["global_step"]), "accuracy": float(metrics["accuracy"])})
