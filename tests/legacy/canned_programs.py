"""Estimator programs for the canned-estimator equivalence tests, one per estimator (sources, not modules).

Each is both the input of `migrate rewrite` and, unchanged, the reference run under the legacy environment:
fixed batch order (shuffle=False), no dropout, a checkpoint at step 0 and at --max_steps. After training
it evaluates on every example once (18 batches, the last one short) and predicts the first 100; metrics and
predictions (dtype, values as strings) go to --metrics_out.
"""

TEMPLATE = '''\
import argparse
import json

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

tf1 = tf.compat.v1
PREDICTIONS_COMPARED = 100


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=20)
    parser.add_argument("--metrics_out", required=True)
    args = parser.parse_args()

    digits = load_digits()
    images = (digits.images / 16.0 + 0.05).astype(np.float32)
    labels = {labels}

    columns = [tf1.feature_column.numeric_column("x", shape=[8, 8])]
    # Seeded: some random starting points amplify TF 2.15/2.21 last-bit differences past 1e-5 in 20 steps.
    config = tf1.estimator.RunConfig(
        save_checkpoints_steps=args.max_steps, keep_checkpoint_max=10, tf_random_seed=7
    )
    model = {constructor}
    train_input_fn = tf1.estimator.inputs.numpy_input_fn(
        x={{"x": images}}, y=labels, batch_size=32, num_epochs=None, shuffle=False
    )
    model.train(input_fn=train_input_fn, max_steps=args.max_steps)
    eval_input_fn = tf1.estimator.inputs.numpy_input_fn(
        x={{"x": images}}, y=labels, batch_size=100, num_epochs=1, shuffle=False
    )
    metrics = model.evaluate(input_fn=eval_input_fn)
    predictions = model.predict(input_fn=eval_input_fn)
    first = [next(predictions) for _ in range(PREDICTIONS_COMPARED)]
    with open(args.metrics_out, "w") as out:
        json.dump(
            {{
                "metrics": {{key: float(value) for key, value in metrics.items()}},
                "predictions": [
                    {{key: [str(value.dtype), value.astype(str).tolist()] for key, value in example.items()}}
                    for example in first
                ],
            }},
            out,
        )


if __name__ == "__main__":
    main()
'''

PROGRAMS = {
    "linear_classifier_ftrl": TEMPLATE.format(
        labels="digits.target.astype(np.int32)",
        constructor="tf1.estimator.LinearClassifier(\n"
        "        feature_columns=columns,\n"
        "        n_classes=10,\n"
        "        optimizer=tf1.train.FtrlOptimizer(0.05),\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
    ),
    "dnn_regressor_momentum": TEMPLATE.format(
        labels="np.stack([digits.target / 10.0, images.mean(axis=(1, 2))], axis=1).astype(np.float32)",
        constructor="tf1.estimator.DNNRegressor(\n"
        "        feature_columns=columns,\n"
        "        hidden_units=[32, 16],\n"
        "        label_dimension=2,\n"
        "        optimizer=tf1.train.MomentumOptimizer(0.0005, momentum=0.9),\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
    ),
    "dnn_linear_combined_classifier_ftrl_adam": TEMPLATE.format(
        labels="digits.target.astype(np.int32)",
        constructor="tf1.estimator.DNNLinearCombinedClassifier(\n"
        "        linear_feature_columns=columns,\n"
        "        linear_optimizer=tf1.train.FtrlOptimizer(0.05),\n"
        "        dnn_feature_columns=columns,\n"
        "        dnn_hidden_units=[32, 16],\n"
        "        dnn_optimizer=tf1.train.AdamOptimizer(0.01),\n"
        "        n_classes=10,\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
    ),
    # Optimizers given by name: the estimator picks the class and the learning rate (Linear: 0.2, DNN: 0.05)
    "linear_classifier_ftrl_by_name": TEMPLATE.format(
        labels="digits.target.astype(np.int32)",
        constructor="tf1.estimator.LinearClassifier(\n"
        "        feature_columns=columns,\n"
        "        n_classes=10,\n"
        '        optimizer="Ftrl",\n'
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
    ),
    # (Adam by name, i.e. at 0.05, matched to 1.6e-5 here: big Adam steps amplify TF 2.15/2.21 last-bit
    # differences past 1e-5 in 20 steps; Adagrad shows the DNN's learning rate for names as well.)
    "dnn_classifier_adagrad_by_name": TEMPLATE.format(
        labels="digits.target.astype(np.int32)",
        constructor="tf1.estimator.DNNClassifier(\n"
        "        feature_columns=columns,\n"
        "        hidden_units=[32, 16],\n"
        "        n_classes=10,\n"
        '        optimizer="Adagrad",\n'
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
    ),
    # Binary heads (one logit): precision, recall and both AUCs; v1 (tf.compat.v1.metrics.auc) and v2 (Keras AUC).
    "dnn_classifier_binary": TEMPLATE.format(
        labels="(digits.target >= 5).astype(np.int32)",
        constructor="tf1.estimator.DNNClassifier(\n"
        "        feature_columns=columns,\n"
        "        hidden_units=[32, 16],\n"
        "        optimizer=tf1.train.GradientDescentOptimizer(0.01),\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
    ),
    "linear_classifier_binary_v2": TEMPLATE.format(
        labels="(digits.target >= 5).astype(np.int32)",
        constructor="tf.estimator.LinearClassifier(\n"
        "        feature_columns=columns,\n"
        '        optimizer="Ftrl",\n'
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
    ),
    # A Keras (legacy) optimizer instance, as v2 canned estimators take them.
    "dnn_regressor_keras_sgd_momentum_v2": TEMPLATE.format(
        labels="np.stack([digits.target / 10.0, images.mean(axis=(1, 2))], axis=1).astype(np.float32)",
        constructor="tf.estimator.DNNRegressor(\n"
        "        feature_columns=columns,\n"
        "        hidden_units=[32, 16],\n"
        "        label_dimension=2,\n"
        "        optimizer=tf.keras.optimizers.legacy.SGD(learning_rate=0.0005, momentum=0.9),\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
    ),
}
