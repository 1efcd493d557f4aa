"""Input functions: digits-shaped examples (64 features, 10 classes), generated."""
import numpy as np
import tensorflow as tf


def examples(count, seed):
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, 10, size=count).astype(np.int32)
    centres = np.random.RandomState(42).uniform(0, 16, size=(10, 64)).astype(np.float32)
    pixels = centres[labels] + rng.normal(0, 3, size=(count, 64)).astype(np.float32)
    return {"pixels": pixels / 16.0}, labels  # scaled as sklearn digits are usually fed


def make_input(count, seed, batch_size, epochs=None, shuffle=True):
    features, labels = examples(count, seed)
    dataset = tf.data.Dataset.from_tensor_slices((features, labels))
    if shuffle:
        dataset = dataset.shuffle(count)
    return dataset.repeat(epochs).batch(batch_size)
