"""train_and_evaluate with an exporter of the program's own, a `tf.estimator.Exporter` subclass in the shape of the
widely copied best-checkpoint copier: after each evaluation it keeps the evaluated checkpoint's files in
model_dir/best when its loss is the lowest so far, and notes what it was given. For tests/test_custom_exporter.py.
Trains to --max_steps (an evaluation after each checkpoint, every 5 steps), then writes the notes to --results.
"""

import argparse
import glob
import json
import os
import shutil

import numpy as np
import tensorflow as tf


class BestCheckpointCopier(tf.estimator.Exporter):
    def __init__(self, name="best_checkpoints", score_metric="loss"):
        self._name = name
        self.score_metric = score_metric
        self.best = None
        self.calls = []

    @property
    def name(self):
        return self._name

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        score = float(eval_result[self.score_metric])
        step = int(checkpoint_path.rsplit("-", 1)[1])
        self.calls.append({"step": step, "global_step": int(eval_result["global_step"]), "loss": score,
                           "final": bool(is_the_final_export), "export_path": os.path.relpath(export_path,
                                                                                         estimator.model_dir)})
        if self.best is not None and score >= self.best:
            return None
        self.best = score
        destination = os.path.join(os.path.dirname(checkpoint_path), "best")
        shutil.rmtree(destination, ignore_errors=True)
        os.makedirs(destination)
        for path in glob.glob(checkpoint_path + ".*"):
            shutil.copy(path, destination)
        return destination


def input_fn():
    x = np.linspace(-1, 1, 64, dtype=np.float32).reshape(32, 2)
    return tf.data.Dataset.from_tensor_slices(({"x": x}, x[:, :1] * 3 - x[:, 1:])).repeat().batch(8)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=20)
    parser.add_argument("--results", required=True)
    args = parser.parse_args()
    config = tf.estimator.RunConfig(save_checkpoints_steps=5, keep_checkpoint_max=10)
    regressor = tf.estimator.DNNRegressor(hidden_units=[4], feature_columns=[tf.feature_column.numeric_column(
        "x", shape=[2])], model_dir=args.model_dir, config=config, optimizer="Adagrad")
    copier = BestCheckpointCopier()
    train_spec = tf.estimator.TrainSpec(input_fn, max_steps=args.max_steps)
    eval_spec = tf.estimator.EvalSpec(input_fn, steps=2, exporters=[copier], throttle_secs=0)
    tf.estimator.train_and_evaluate(regressor, train_spec, eval_spec)
    kept = sorted(path.rsplit(".", 1)[0] for path in os.listdir(os.path.join(args.model_dir, "best"))
                  if path.endswith(".index"))
    with open(args.results, "w") as out:
        json.dump({"calls": copier.calls, "best": kept}, out)


if __name__ == "__main__":
    main()
