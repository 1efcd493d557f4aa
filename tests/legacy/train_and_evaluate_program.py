"""An Estimator program trained with `train_and_evaluate`, for tests/test_train_and_evaluate.py.

Both the input of `migrate rewrite` and, unchanged, the reference run under the legacy environment: fixed
batch order, no dropout, a binary head (so every metric, AUCs included, is compared), a checkpoint every
5 steps and no evaluation throttle, so Estimator evaluates after every checkpoint save. Training reads a
numpy_input_fn (rewritten), evaluation an input_fn factory returning a tf.data.Dataset (kept as it is).
An early-stopping hook ends training once an evaluation's accuracy in --eval_dir (None: the estimator's, as a flag
left unset gave it) is above --stop_above_accuracy.
After each evaluation a LatestExporter exports (keeping the newest 2), a FinalExporter once the evaluated
step reaches max_steps, and a BestExporter when the accuracy beats the last exported one (and at the first
evaluation); what train_and_evaluate returned goes to --metrics_out: the metrics, and for each exporter its
export's signature names and the logits it serves for the first examples (None: no export).
"""

import argparse
import json

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

tf1 = tf.compat.v1
SERVED_EXAMPLES = 20


def make_input_fn(images, labels, batch_size):
    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": images}, labels)).batch(batch_size)

    return input_fn


def served(export_dir, images):
    """What an export returned by train_and_evaluate serves: its signatures, its predict logits."""
    if export_dir is None:
        return None
    examples = []
    for image in images[:SERVED_EXAMPLES]:
        example = tf.train.Example()
        example.features.feature["x"].float_list.value.extend(image.reshape(-1).astype(float))
        examples.append(example.SerializeToString())
    loaded = tf.saved_model.load(export_dir.decode())
    logits = loaded.signatures["predict"](examples=tf.constant(examples))["logits"]
    return {"signatures": sorted(loaded.signatures), "logits": logits.numpy().tolist()}


def higher_accuracy(best_eval_result, current_eval_result):
    return current_eval_result["accuracy"] > best_eval_result["accuracy"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=20)
    parser.add_argument("--metrics_out", required=True)
    parser.add_argument("--stop_above_accuracy", type=float, default=2.0)  # by default: never
    parser.add_argument("--eval_dir", default=None)  # by default: the estimator's, as the hook reads then
    args = parser.parse_args()

    digits = load_digits()
    images = (digits.images / 16.0 + 0.05).astype(np.float32)
    labels = (digits.target >= 5).astype(np.int32)

    columns = [tf1.feature_column.numeric_column("x", shape=[8, 8])]
    config = tf1.estimator.RunConfig(save_checkpoints_steps=5, keep_checkpoint_max=10, tf_random_seed=7)
    classifier = tf1.estimator.DNNClassifier(
        feature_columns=columns,
        hidden_units=[32, 16],
        optimizer=tf1.train.GradientDescentOptimizer(0.01),
        model_dir=args.model_dir,
        config=config,
    )
    train_input_fn = tf1.estimator.inputs.numpy_input_fn(
        x={"x": images}, y=labels, batch_size=32, num_epochs=None, shuffle=False
    )
    stop = tf1.estimator.experimental.stop_if_higher_hook(
        classifier, "accuracy", args.stop_above_accuracy, eval_dir=args.eval_dir, run_every_secs=None, run_every_steps=1
    )
    train_spec = tf1.estimator.TrainSpec(train_input_fn, max_steps=args.max_steps, hooks=[stop])
    serving_input_fn = tf1.estimator.export.build_parsing_serving_input_receiver_fn(
        tf1.feature_column.make_parse_example_spec(columns)
    )
    exporters = [
        tf1.estimator.LatestExporter("latest", serving_input_fn, exports_to_keep=2),
        tf1.estimator.FinalExporter("final", serving_input_fn),
        tf1.estimator.BestExporter("best", serving_input_fn, compare_fn=higher_accuracy, exports_to_keep=None),
    ]
    eval_spec = tf1.estimator.EvalSpec(
        make_input_fn(images, labels, 100), steps=None, throttle_secs=0, exporters=exporters
    )
    metrics, exports = tf1.estimator.train_and_evaluate(classifier, train_spec, eval_spec)
    result = None
    if metrics is not None:
        result = {
            "metrics": {key: float(value) for key, value in metrics.items()},
            "exports": [served(export, images) for export in exports],
        }
    with open(args.metrics_out, "w") as out:
        json.dump(result, out)


if __name__ == "__main__":
    main()
