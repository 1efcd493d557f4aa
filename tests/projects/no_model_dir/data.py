"""House prices, generated: three features, a linear target with noise."""
import numpy as np
import tensorflow as tf


def make_examples(count=1000, seed=0):
    rng = np.random.RandomState(seed)
    rooms = rng.uniform(1, 8, size=count).astype(np.float32)
    area = rng.uniform(20, 200, size=count).astype(np.float32)
    age = rng.uniform(0, 80, size=count).astype(np.float32)
    price = 10 * rooms + 0.5 * area - 0.3 * age + rng.normal(0, 2, size=count).astype(np.float32)
    return {"rooms": rooms, "area": area / 100, "age": age / 100}, price / 100


def input_fn(batch_size=50):
    features, labels = make_examples()
    return tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(batch_size)


def eval_input_fn():
    features, labels = make_examples(300, seed=1)
    return tf.data.Dataset.from_tensor_slices((features, labels)).batch(100)
