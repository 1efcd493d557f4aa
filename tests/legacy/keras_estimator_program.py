"""A Keras model turned into an Estimator with `tf.keras.estimator.model_to_estimator`, as TensorFlow 2.x's
tutorial "Create an Estimator from a Keras model" wrote it (digits instead of iris: no downloads), for
tests/test_keras_estimator.py: the input of `migrate rewrite` (compat/keras_estimators.py) and, unchanged,
the legacy reference run. A Sequential model compiled with a string optimizer and loss object and an
accuracy metric; the input_fn keys its features by the first layer's input name (`dense_input`), as the
tutorial did; batches in a fixed order, a checkpoint every 10 steps (step 0 included). With --results, the
estimator is evaluated on all of digits and predicts its first 20 examples (written as JSON).
"""

import argparse
import json

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

BATCH = 32


def input_fn():
    digits = load_digits()
    x, y = (digits.data / 16.0).astype(np.float32), digits.target.astype(np.int32)
    dataset = tf.data.Dataset.from_tensor_slices((x, y))
    dataset = dataset.map(lambda features, labels: ({"dense_input": features}, labels))
    return dataset.batch(BATCH).repeat()


def eval_input_fn():
    digits = load_digits()
    x, y = (digits.data / 16.0).astype(np.float32), digits.target.astype(np.int32)
    return tf.data.Dataset.from_tensor_slices(({"dense_input": x}, y)).batch(BATCH)


def predict_input_fn():
    digits = load_digits()
    return tf.data.Dataset.from_tensor_slices({"dense_input": (digits.data[:20] / 16.0).astype(np.float32)}).batch(8)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=20)
    parser.add_argument("--results")
    args = parser.parse_args()

    model = tf.keras.models.Sequential([
        tf.keras.layers.Dense(32, activation="relu", input_shape=(64,),
                              kernel_regularizer=tf.keras.regularizers.l2(1e-4)),
        tf.keras.layers.Dense(10),
    ])
    model.compile(loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), optimizer="adam",
                  metrics=["accuracy"])
    config = tf.estimator.RunConfig(save_checkpoints_steps=10)
    keras_estimator = tf.keras.estimator.model_to_estimator(keras_model=model, model_dir=args.model_dir,
                                                            config=config)
    keras_estimator.train(input_fn=input_fn, max_steps=args.max_steps)
    if args.results:
        metrics = keras_estimator.evaluate(input_fn=eval_input_fn)
        predictions = list(keras_estimator.predict(input_fn=predict_input_fn))
        with open(args.results, "w") as out:
            json.dump({"metrics": {k: float(v) for k, v in metrics.items()},
                       "logits": [p["dense_1"].tolist() for p in predictions]}, out)


if __name__ == "__main__":
    main()
