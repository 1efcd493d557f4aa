"""Two custom model_fn Estimators, for tests/test_custom_model_fn.py: both the input of `migrate rewrite` and,
unchanged, the legacy reference run. Fixed batch order, a checkpoint every 5 steps (step 0 included).
With --results, each is then evaluated on all of digits, predicts its first 50 examples, and is exported
(`export_saved_model`: raw features / a hand-written receiver of tf.Examples), its signatures serving the
first 50 examples (all written as JSON).

- `layers_model_fn`: the TensorFlow guide's shape: feature columns through `input_layer`, TF1 layers in a
  loop over params, each batch-normalized (train_op depending on the UPDATE_OPS), a dropout switched by mode,
  an L2-regularized logits layer (the loss adding get_regularization_loss()), PREDICT/EVAL branches,
  `tf.compat.v1.losses`, TF1 Adagrad with a polynomial learning-rate decay (to its end rate at step 15).
- `keras_model_fn`: Keras layers called inline on a feature, the loss from `tf.nn`, the train part in an
  `if mode == TRAIN:` branch with the global step in a variable, TF1 plain gradient descent at a rate halved
  every 4 steps (exponential_decay, staircase).
"""

import argparse
import itertools
import json
import os

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

tf1 = tf.compat.v1

LAYERS_PARAMS = {
    "feature_columns": [tf1.feature_column.numeric_column("pixels", shape=[64])],
    "hidden_units": [32, 16],
    "dropout": 0.0,
    "n_classes": 10,
    "learning_rate": 0.05,
}
KERAS_PARAMS = {"units": 24, "learning_rate": 0.1}


def layers_model_fn(features, labels, mode, params):
    net = tf1.feature_column.input_layer(features, params["feature_columns"])
    for units in params["hidden_units"]:
        net = tf1.layers.dense(net, units=units, use_bias=False)  # batch normalization centres it
        net = tf.nn.relu(tf1.layers.batch_normalization(net, training=mode == tf.estimator.ModeKeys.TRAIN))
    net = tf1.layers.dropout(net, rate=params["dropout"], training=mode == tf.estimator.ModeKeys.TRAIN)
    logits = tf1.layers.dense(
        net, params["n_classes"], activation=None, name="logits", kernel_regularizer=tf.keras.regularizers.l2(0.01)
    )

    predicted_classes = tf.argmax(logits, 1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        predictions = {"class_ids": predicted_classes[:, tf.newaxis], "probabilities": tf.nn.softmax(logits)}
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)

    loss = tf1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits) + tf1.losses.get_regularization_loss()
    accuracy = tf1.metrics.accuracy(labels=labels, predictions=predicted_classes, name="acc_op")
    tf1.summary.scalar("accuracy", accuracy[1])  # the guide's training summary (not carried over)
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"accuracy": accuracy})

    learning_rate = tf1.train.polynomial_decay(
        params["learning_rate"], tf1.train.get_global_step(), decay_steps=15, end_learning_rate=0.01
    )
    optimizer = tf1.train.AdagradOptimizer(learning_rate=learning_rate)
    update_ops = tf1.get_collection(tf1.GraphKeys.UPDATE_OPS)  # batch normalization's moving statistics
    with tf.control_dependencies(update_ops):
        train_op = optimizer.minimize(loss, global_step=tf1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def keras_model_fn(features, labels, mode, params):
    hidden = tf.keras.layers.Dense(params["units"], activation="tanh")(features["pixels"])
    logits = tf.keras.layers.Dense(10)(hidden)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"class": tf.argmax(logits, 1)})
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    if mode == tf.estimator.ModeKeys.TRAIN:
        global_step = tf1.train.get_global_step()
        optimizer = tf1.train.GradientDescentOptimizer(
            tf1.train.exponential_decay(params["learning_rate"], global_step, 4, 0.5, staircase=True)
        )
        train_op = optimizer.minimize(loss, global_step=global_step)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
    return tf.estimator.EstimatorSpec(mode, loss=loss)


DIGITS = load_digits()
PIXELS = (DIGITS.data / 16.0).astype(np.float32)


def train_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"pixels": PIXELS}, DIGITS.target)).repeat().batch(32)


def eval_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"pixels": PIXELS}, DIGITS.target)).batch(64)


def pixels_serving_input_fn():
    """Serialized tf.Examples holding the 64 pixels, fed as one tensor."""
    serialized = tf1.placeholder(tf.string, [None])
    features = tf1.io.parse_example(serialized, {"pixels": tf1.io.FixedLenFeature([64], tf.float32)})
    return tf.estimator.export.ServingInputReceiver(features, serialized)


def served(export_dir):
    """Each signature of the SavedModel: its inputs, and its outputs for the first 50 examples."""
    examples = []
    for pixels in PIXELS[:50]:
        example = tf.train.Example()
        example.features.feature["pixels"].float_list.value.extend(pixels.astype(float))
        examples.append(example.SerializeToString())
    loaded = tf.saved_model.load(export_dir.decode())
    found = {}
    for key, function in sorted(loaded.signatures.items()):
        inputs = function.structured_input_signature[1]
        given = {name: tf.constant(examples if spec.dtype == tf.string else PIXELS[:50]) for name, spec in inputs.items()}
        found[key] = {
            "inputs": {name: [spec.dtype.name, spec.shape.as_list()] for name, spec in inputs.items()},
            "outputs": {name: [value.dtype.name, value.numpy().tolist()] for name, value in function(**given).items()},
        }
    return found


def as_json(value):
    if isinstance(value, dict):
        return {key: as_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [as_json(item) for item in value]
    return np.asarray(value).tolist()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=20)
    parser.add_argument("--results", help="write evaluate() and the first predict() results here (JSON)")
    args = parser.parse_args()
    results = {}

    config = tf1.estimator.RunConfig(save_checkpoints_steps=5, keep_checkpoint_max=20)
    layers_estimator = tf.estimator.Estimator(
        model_fn=layers_model_fn,
        model_dir=os.path.join(args.model_dir, "layers"),
        config=config,
        params=LAYERS_PARAMS,
    )
    layers_estimator.train(input_fn=train_input_fn, max_steps=args.max_steps)
    if args.results:
        results["layers"] = {
            "evaluation": as_json(layers_estimator.evaluate(input_fn=eval_input_fn)),
            "predictions": as_json(list(itertools.islice(layers_estimator.predict(input_fn=eval_input_fn), 50))),
        }
        layers_export = layers_estimator.export_saved_model(
            os.path.join(args.model_dir, "layers_export"),
            tf.estimator.export.build_raw_serving_input_receiver_fn({"pixels": tf.zeros([1, 64])}),
        )
        results["layers"]["served"] = served(layers_export)
    keras_config = tf1.estimator.RunConfig(save_checkpoints_steps=5, keep_checkpoint_max=20)
    keras_estimator = tf.estimator.Estimator(
        model_fn=keras_model_fn,
        model_dir=os.path.join(args.model_dir, "keras"),
        config=keras_config,
        params=KERAS_PARAMS,
    )
    keras_estimator.train(input_fn=train_input_fn, max_steps=args.max_steps)
    if args.results:
        results["keras"] = {
            "evaluation": as_json(keras_estimator.evaluate(input_fn=eval_input_fn, steps=10)),
            "predictions": as_json(list(itertools.islice(keras_estimator.predict(input_fn=eval_input_fn), 50))),
        }
        keras_export = keras_estimator.export_saved_model(
            os.path.join(args.model_dir, "keras_export"), pixels_serving_input_fn
        )
        results["keras"]["served"] = served(keras_export)
        with open(args.results, "w") as file:
            json.dump(results, file)


if __name__ == "__main__":
    main()
