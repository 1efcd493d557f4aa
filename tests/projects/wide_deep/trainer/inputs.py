"""Census-like examples, generated: two numbers, two strings, a binary label that depends on all four."""
import numpy as np
import tensorflow as tf

EDUCATION = ["Bachelors", "HS-grad", "Masters", "Doctorate", "Some-college"]
OCCUPATIONS = ["Tech-support", "Craft-repair", "Sales", "Exec-managerial", "Prof-specialty", "Farming"]


def examples(count, seed):
    rng = np.random.RandomState(seed)
    age = rng.uniform(17, 80, size=count).astype(np.float32)
    hours = rng.uniform(10, 70, size=count).astype(np.float32)
    education = rng.randint(len(EDUCATION), size=count)
    occupation = rng.randint(len(OCCUPATIONS), size=count)
    score = (age - 40) / 15 + (hours - 40) / 15 + 0.8 * (education >= 2) + 0.6 * (occupation % 3 == 0)
    labels = (score + rng.normal(0, 0.5, size=count) > 0.5).astype(np.int64)
    features = {
        "age": age,
        "hours_per_week": hours,
        "education": np.array(EDUCATION)[education],
        "occupation": np.array(OCCUPATIONS)[occupation],
    }
    return features, labels


def input_fn(count, seed, batch_size, num_epochs=None, shuffle=True):
    features, labels = examples(count, seed)
    dataset = tf.data.Dataset.from_tensor_slices((features, labels))
    if shuffle:
        dataset = dataset.shuffle(buffer_size=count)
    return dataset.repeat(num_epochs).batch(batch_size)
