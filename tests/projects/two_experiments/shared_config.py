"""Both experiments on the team's one RunConfig: every experiment checkpoints at the same cadence."""
import sys

import tensorflow as tf

from data import eval_input_fn, result_line, train_input_fn
from train import model_fn

CONFIG = tf.estimator.RunConfig(save_checkpoints_steps=50, keep_checkpoint_max=3)


def train_linear(model_dir, steps):
    columns = [tf.feature_column.numeric_column("point", shape=[10])]
    estimator = tf.estimator.LinearClassifier(feature_columns=columns, n_classes=4, model_dir=model_dir, config=CONFIG)
    estimator.train(input_fn=train_input_fn, max_steps=steps)
    return estimator.evaluate(input_fn=eval_input_fn)


def train_pinned(model_dir, steps):
    from pinned import PinnedEstimator

    estimator = PinnedEstimator(model_fn, model_dir=model_dir, config=CONFIG, params={"width": 16})
    estimator.train(train_input_fn, max_steps=steps)
    return estimator.evaluate(eval_input_fn)


if __name__ == "__main__":
    experiment, model_dir, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    metrics = train_linear(model_dir, steps) if experiment == "linear" else train_pinned(model_dir, steps)
    print(result_line(metrics))
