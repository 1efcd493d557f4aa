"""Estimator programs for the canned-estimator equivalence tests, one per estimator (sources, not modules).

Each is both the input of `migrate rewrite` and, unchanged, the reference run under the legacy environment:
fixed batch order (shuffle=False), no dropout, a checkpoint at step 0 and at --max_steps. After training
it evaluates on every example once (18 batches, the last one short) and predicts the first 100; metrics and
predictions (dtype, values as strings) go to --metrics_out. Programs given an `export` receiver then export
a SavedModel (`export_saved_model`) and serve the first 100 examples through each of its signatures
(tf.Examples where a signature reads strings, the features themselves where it reads them raw): the
signatures' inputs (dtype, shape) and outputs go to --metrics_out too.

Features: the 8x8 image "x" and, for the categorical programs (`CATEGORICAL`), three more made from it:
"shade" (a string, one of four; the vocabulary lists three, so "blank" has no weight), "stroke" (a
string hashed into 5 buckets) and "ink" (a float, bucketized).
"""

TEMPLATE = '''\
import argparse
import json
import os

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

tf1 = tf.compat.v1
PREDICTIONS_COMPARED = 100


def serve(export_dir, features):
    """Every signature of the SavedModel in export_dir, called on the first examples of features."""
    examples = []
    for index in range(PREDICTIONS_COMPARED):
        example = tf.train.Example()
        for name, values in features.items():
            value = np.asarray(values[index]).reshape(-1)
            if value.dtype.kind in "US":
                example.features.feature[name].bytes_list.value.extend(v.encode() for v in value.astype(str))
            else:
                example.features.feature[name].float_list.value.extend(value.astype(float))
        examples.append(example.SerializeToString())
    served = {{}}
    loaded = tf.saved_model.load(export_dir.decode())
    for key, function in sorted(loaded.signatures.items()):
        inputs = function.structured_input_signature[1]
        arguments = {{
            name: tf.constant(examples if spec.dtype == tf.string and name not in features
                              else features[name][:PREDICTIONS_COMPARED])
            for name, spec in inputs.items()
        }}
        served[key] = {{
            "inputs": {{name: [spec.dtype.name, spec.shape.as_list()] for name, spec in inputs.items()}},
            "outputs": {{
                name: [value.dtype.name, value.numpy().astype(str).tolist()]
                for name, value in function(**arguments).items()
            }},
        }}
    return served


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--max_steps", type=int, default=20)
    parser.add_argument("--metrics_out", required=True)
    args = parser.parse_args()

{data}    labels = {labels}
    features = {features}

{columns}
    # Seeded: some random starting points amplify TF 2.15/2.21 last-bit differences past 1e-5 in 20 steps.
    config = tf1.estimator.RunConfig(
        save_checkpoints_steps=args.max_steps, keep_checkpoint_max=10, tf_random_seed=7
    )
    model = {constructor}
    train_input_fn = tf1.estimator.inputs.numpy_input_fn(
        x=features, y=labels, batch_size=32, num_epochs=None, shuffle=False
    )
    model.train(input_fn=train_input_fn, max_steps=args.max_steps)
    eval_input_fn = tf1.estimator.inputs.numpy_input_fn(
        x=features, y=labels, batch_size=100, num_epochs=1, shuffle=False
    )
    metrics = model.evaluate(input_fn=eval_input_fn)
    predictions = model.predict(input_fn=eval_input_fn)
    first = [next(predictions) for _ in range(PREDICTIONS_COMPARED)]
    predictions.close()  # Estimator.predict's generator holds its finalized graph as the default until closed
    served = {{}}
{export}    with open(args.metrics_out, "w") as out:
        json.dump(
            {{
                "metrics": {{key: float(value) for key, value in metrics.items()}},
                "predictions": [
                    {{key: [str(value.dtype), value.astype(str).tolist()] for key, value in example.items()}}
                    for example in first
                ],
                "serving": served,
            }},
            out,
        )


if __name__ == "__main__":
    main()
'''

NUMERIC_COLUMNS = """\
    columns = [tf1.feature_column.numeric_column("x", shape=[8, 8])]"""
# (`linear_columns` and `dnn_columns`; tests/test_canned_equivalence.py builds them in the modern env too)
CATEGORICAL_COLUMNS = """\
    fc = tf1.feature_column
    image = fc.numeric_column("x", shape=[8, 8])
    shade_column = fc.categorical_column_with_vocabulary_list("shade", ["dark", "mid", "light"])
    stroke_column = fc.categorical_column_with_hash_bucket("stroke", 5)
    ink_column = fc.bucketized_column(fc.numeric_column("ink"), [20.0, 25.0, 30.0])
    linear_columns = [image, shade_column, stroke_column, ink_column]
    dnn_columns = [
        image, fc.indicator_column(shade_column), fc.embedding_column(stroke_column, 3), ink_column
    ]"""


# What the programs given `export=` export: serialized tf.Examples parsed as the feature columns parse them
# ("parsing", "hand"), or the features themselves (one tensor per feature, as the input_fn gave them).
PARSING_EXPORT = """\
    serving_input_fn = tf1.estimator.export.build_parsing_serving_input_receiver_fn(
        tf1.feature_column.make_parse_example_spec({columns})
    )
    export_dir = model.export_saved_model(os.path.join(args.model_dir, "export"), serving_input_fn)
    served = serve(export_dir, features)
"""
RAW_EXPORT = """\
    export_dir = model.export_saved_model(
        os.path.join(args.model_dir, "export"),
        tf.estimator.export.build_raw_serving_input_receiver_fn({features}),
    )
    served = serve(export_dir, features)
"""
# A receiver function written by hand: TF1 graph code, the examples fed under a name of its own.
HAND_WRITTEN_EXPORT = """\
    def serving_input_fn():
        serialized = tf1.placeholder(tf.string, [None], name="serialized")
        features = tf1.io.parse_example(serialized, tf1.feature_column.make_parse_example_spec({columns}))
        return tf1.estimator.export.ServingInputReceiver(features, {{"serialized_examples": serialized}})

    export_dir = model.export_saved_model(os.path.join(args.model_dir, "export"), serving_input_fn)
    served = serve(export_dir, features)
"""
_RAW_FEATURES = '{"x": tf.zeros([1, 8, 8])}'
_RAW_CATEGORICAL_FEATURES = (
    '{"x": tf.zeros([1, 8, 8]), "shade": tf.constant(["dark"]), "stroke": tf.constant(["s0"]), "ink": tf.zeros([1])}'
)


def _export(export: str | None, categorical: bool) -> str:
    columns = "linear_columns + dnn_columns" if categorical else "columns"
    if export == "parsing":
        return PARSING_EXPORT.format(columns=columns)
    if export == "hand":
        return HAND_WRITTEN_EXPORT.format(columns=columns)
    if export == "raw":
        return RAW_EXPORT.format(features=_RAW_CATEGORICAL_FEATURES if categorical else _RAW_FEATURES)
    return ""


# The examples every program reads (`categorical_features` evaluates the same lines in the tests).
DATA = """\
    digits = load_digits()
    images = (digits.images / 16.0 + 0.05).astype(np.float32)
    ink = images.sum(axis=(1, 2)).astype(np.float32)
    shade = np.array(["dark", "mid", "light", "blank"])[np.digitize(ink, np.quantile(ink, [0.3, 0.6, 0.9]))]
    stroke = np.char.add("s", digits.images[:, 2, 3].astype(int).astype(str))
"""
CATEGORICAL_FEATURES = '{"x": images, "shade": shade, "stroke": stroke, "ink": ink}'


def categorical_features() -> dict:
    """The features dict the categorical programs train, evaluate and predict on (every example)."""
    import textwrap

    import numpy as np
    from sklearn.datasets import load_digits

    namespace = {"np": np, "load_digits": load_digits}
    exec(textwrap.dedent(DATA), namespace)
    return eval(CATEGORICAL_FEATURES, namespace)


def _program(
    labels: str, constructor: str, categorical: bool = False, weighted: bool = False, export: str | None = None
) -> str:
    features = CATEGORICAL_FEATURES if categorical else '{"x": images}'
    if weighted:  # example weights 0.5, 1.0 and 1.5
        features = features[:-1] + ', "weight": ((1 + digits.target % 3) / 2).astype(np.float32)}'
    return TEMPLATE.format(
        data=DATA,
        labels=labels,
        constructor=constructor,
        features=features,
        columns=CATEGORICAL_COLUMNS if categorical else NUMERIC_COLUMNS,
        export=_export(export, categorical),
    )


PROGRAMS = {
    "linear_classifier_ftrl": _program(
        labels="digits.target.astype(np.int32)",
        constructor="tf1.estimator.LinearClassifier(\n"
        "        feature_columns=columns,\n"
        "        n_classes=10,\n"
        "        optimizer=tf1.train.FtrlOptimizer(0.05),\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
    ),
    "dnn_regressor_momentum": _program(
        labels="np.stack([digits.target / 10.0, images.mean(axis=(1, 2))], axis=1).astype(np.float32)",
        constructor="tf1.estimator.DNNRegressor(\n"
        "        feature_columns=columns,\n"
        "        hidden_units=[32, 16],\n"
        "        label_dimension=2,\n"
        "        optimizer=tf1.train.MomentumOptimizer(0.0005, momentum=0.9),\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
        export="parsing",
    ),
    "dnn_linear_combined_classifier_ftrl_adam": _program(
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
    "linear_classifier_ftrl_by_name": _program(
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
    "dnn_classifier_adagrad_by_name": _program(
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
    "dnn_classifier_binary": _program(
        labels="(digits.target >= 5).astype(np.int32)",
        constructor="tf1.estimator.DNNClassifier(\n"
        "        feature_columns=columns,\n"
        "        hidden_units=[32, 16],\n"
        "        optimizer=tf1.train.GradientDescentOptimizer(0.01),\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
        export="parsing",
    ),
    "linear_classifier_binary_v2": _program(
        labels="(digits.target >= 5).astype(np.int32)",
        constructor="tf.estimator.LinearClassifier(\n"
        "        feature_columns=columns,\n"
        '        optimizer="Ftrl",\n'
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
        export="raw",
    ),
    # No optimizer on a v2 DNN: dnn.py passes the name "Adagrad" with no learning rate, so Keras's own
    # default (0.001) applies, not the v1 estimators' 0.05.
    "dnn_classifier_default_optimizer_v2": _program(
        labels="digits.target.astype(np.int32)",
        constructor="tf.estimator.DNNClassifier(\n"
        "        feature_columns=columns,\n"
        "        hidden_units=[32, 16],\n"
        "        n_classes=10,\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
    ),
    # A Keras (legacy) optimizer instance, as v2 canned estimators take them.
    "dnn_regressor_keras_sgd_momentum_v2": _program(
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
    # Labels given as class names (label_vocabulary): classes and all_classes predicted as those names.
    "dnn_classifier_label_vocabulary": _program(
        labels='np.array(["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"])'
        "[digits.target]",
        constructor="tf1.estimator.DNNClassifier(\n"
        "        feature_columns=columns,\n"
        "        hidden_units=[32, 16],\n"
        "        n_classes=10,\n"
        '        label_vocabulary=["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"],\n'
        "        optimizer=tf1.train.GradientDescentOptimizer(0.01),\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
        export="parsing",
    ),
    "linear_classifier_binary_label_vocabulary_v2": _program(
        labels='np.where(digits.target >= 5, "large", "small")',
        constructor="tf.estimator.LinearClassifier(\n"
        "        feature_columns=columns,\n"
        '        label_vocabulary=["small", "large"],\n'
        '        optimizer="Ftrl",\n'
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
    ),
    # Example weights (weight_column), given as a feature name or a numeric_column; every head kind.
    "dnn_classifier_weighted": _program(
        labels="digits.target.astype(np.int32)",
        constructor="tf1.estimator.DNNClassifier(\n"
        "        feature_columns=columns,\n"
        "        hidden_units=[32, 16],\n"
        "        n_classes=10,\n"
        '        weight_column="weight",\n'
        "        optimizer=tf1.train.GradientDescentOptimizer(0.01),\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
        weighted=True,
        export="hand",
    ),
    "dnn_classifier_binary_weighted": _program(
        labels="(digits.target >= 5).astype(np.int32)",
        constructor="tf1.estimator.DNNClassifier(\n"
        "        feature_columns=columns,\n"
        "        hidden_units=[32, 16],\n"
        '        weight_column="weight",\n'
        "        optimizer=tf1.train.GradientDescentOptimizer(0.01),\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
        weighted=True,
    ),
    "linear_classifier_binary_weighted_v2": _program(
        labels="(digits.target >= 5).astype(np.int32)",
        constructor="tf.estimator.LinearClassifier(\n"
        "        feature_columns=columns,\n"
        '        weight_column=tf.feature_column.numeric_column("weight"),\n'
        '        optimizer="Ftrl",\n'
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
        weighted=True,
    ),
    "dnn_regressor_weighted_v2": _program(
        labels="np.stack([digits.target / 10.0, images.mean(axis=(1, 2))], axis=1).astype(np.float32)",
        constructor="tf.estimator.DNNRegressor(\n"
        "        feature_columns=columns,\n"
        "        hidden_units=[32, 16],\n"
        "        label_dimension=2,\n"
        '        weight_column="weight",\n'
        "        optimizer=tf.keras.optimizers.legacy.SGD(learning_rate=0.0005, momentum=0.9),\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
        weighted=True,
    ),
    # Batch normalisation after each hidden layer: moving statistics trained and used by evaluate/predict.
    "dnn_classifier_batch_norm": _program(
        labels="digits.target.astype(np.int32)",
        constructor="tf1.estimator.DNNClassifier(\n"
        "        feature_columns=columns,\n"
        "        hidden_units=[32, 16],\n"
        "        n_classes=10,\n"
        "        batch_norm=True,\n"
        "        optimizer=tf1.train.GradientDescentOptimizer(0.05),\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
        export="parsing",
    ),
    "dnn_regressor_batch_norm_v2": _program(
        labels="np.stack([digits.target / 10.0, images.mean(axis=(1, 2))], axis=1).astype(np.float32)",
        constructor="tf.estimator.DNNRegressor(\n"
        "        feature_columns=columns,\n"
        "        hidden_units=[32, 16],\n"
        "        label_dimension=2,\n"
        "        batch_norm=True,\n"
        '        optimizer="Adagrad",\n'
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
    ),
    # RMSProp (compat.rmsprop): TF1's by name (mean square starting at 1, epsilon inside the square root) ...
    "dnn_classifier_rmsprop_by_name": _program(
        labels="digits.target.astype(np.int32)",
        constructor="tf1.estimator.DNNClassifier(\n"
        "        feature_columns=columns,\n"
        "        hidden_units=[32, 16],\n"
        "        n_classes=10,\n"
        '        optimizer="RMSProp",\n'
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
    ),
    # ... TF1's centered, with momentum ...
    "linear_regressor_rmsprop_centered": _program(
        labels="np.stack([digits.target / 10.0, images.mean(axis=(1, 2))], axis=1).astype(np.float32)",
        constructor="tf1.estimator.LinearRegressor(\n"
        "        feature_columns=columns,\n"
        "        label_dimension=2,\n"
        "        optimizer=tf1.train.RMSPropOptimizer(0.001, momentum=0.5, centered=True),\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
    ),
    # Nesterov's momentum: TF1's use_nesterov and Keras 2's nesterov, both as tf_keras SGD(nesterov=True).
    "linear_regressor_nesterov": _program(
        labels="np.stack([digits.target / 10.0, images.mean(axis=(1, 2))], axis=1).astype(np.float32)",
        constructor="tf1.estimator.LinearRegressor(\n"
        "        feature_columns=columns,\n"
        "        label_dimension=2,\n"
        "        optimizer=tf1.train.MomentumOptimizer(0.0005, momentum=0.9, use_nesterov=True),\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
    ),
    # An explicit loss_reduction other than the head's own (tf.Transform's census example: a v2 head that
    # sums the loss over the batch): the sum trains, and evaluate's "loss" is each batch's sum, averaged.
    "linear_classifier_binary_sum_v2": _program(
        labels="(digits.target >= 5).astype(np.int32)",
        constructor="tf.estimator.LinearClassifier(\n"
        "        feature_columns=columns,\n"
        "        config=config,\n"
        "        model_dir=args.model_dir,\n"
        "        loss_reduction=tf.losses.Reduction.SUM,\n"
        "    )",
    ),
    # (the sum of a regression head's loss adds every label dimension's squared error)
    "dnn_regressor_sum_v2": _program(
        labels="np.stack([digits.target / 10.0, images.mean(axis=(1, 2))], axis=1).astype(np.float32)",
        constructor="tf.estimator.DNNRegressor(\n"
        "        feature_columns=columns,\n"
        "        hidden_units=[32, 16],\n"
        "        label_dimension=2,\n"
        "        optimizer=tf.keras.optimizers.legacy.SGD(learning_rate=0.0002),\n"
        "        loss_reduction=tf.keras.losses.Reduction.SUM,\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
    ),
    # TF1's MEAN (a v1 head: the loss divided by the sum of the example weights), without a weight column: the mean
    # over the batch, the head's metrics v1's (a Cloud ML Engine template's regressor and classifier, 2 outputs here)
    "dnn_regressor_mean_v1": _program(
        labels="np.stack([digits.target / 10.0, images.mean(axis=(1, 2))], axis=1).astype(np.float32)",
        constructor="tf1.estimator.DNNRegressor(\n"
        "        feature_columns=columns,\n"
        "        hidden_units=[32, 16],\n"
        "        label_dimension=2,\n"
        "        optimizer=tf1.train.GradientDescentOptimizer(0.05),\n"
        "        loss_reduction=tf1.losses.Reduction.MEAN,\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
    ),
    # Adadelta: TF1's and Keras 2's kernels (compat.adadelta), dense here, sparse in the categorical program
    "dnn_classifier_adadelta": _program(
        labels="digits.target.astype(np.int32)",
        constructor="tf1.estimator.DNNClassifier(\n"
        "        feature_columns=columns,\n"
        "        hidden_units=[32, 16],\n"
        "        n_classes=10,\n"
        "        optimizer=tf1.train.AdadeltaOptimizer(learning_rate=1.0, rho=0.9),\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
    ),
    # A function making the optimizer, with a learning rate decaying with the global step: the form
    # Estimator's own docs show (DNNClassifier). The Keras twin's schedule steps on optimizer.iterations.
    "dnn_classifier_optimizer_function_decay_v2": _program(
        labels="digits.target.astype(np.int32)",
        constructor="tf.estimator.DNNClassifier(\n"
        "        feature_columns=columns,\n"
        "        hidden_units=[32, 16],\n"
        "        n_classes=10,\n"
        "        optimizer=lambda: tf.keras.optimizers.legacy.Adam(\n"
        "            learning_rate=tf1.train.exponential_decay(\n"
        "                learning_rate=0.005,\n"
        "                global_step=tf1.train.get_global_step(),\n"
        "                decay_steps=5,\n"
        "                decay_rate=0.5,\n"
        "            )\n"
        "        ),\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
    ),
    "dnn_classifier_keras_sgd_nesterov_v2": _program(
        labels="digits.target.astype(np.int32)",
        constructor="tf.estimator.DNNClassifier(\n"
        "        feature_columns=columns,\n"
        "        hidden_units=[32, 16],\n"
        "        n_classes=10,\n"
        "        optimizer=tf.keras.optimizers.legacy.SGD(learning_rate=0.01, momentum=0.9, nesterov=True),\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
    ),
}

# Categorical, bucketized, indicator and embedding columns. convert-checkpoint cannot rebuild these
# models (vocabularies and buckets are in the program); the migrated program carries the Estimator's
# model.ckpt-0 over into the model it builds, by itself (compat.resume).
CATEGORICAL = {
    "linear_classifier_categorical": _program(
        labels="digits.target.astype(np.int32)",
        constructor="tf1.estimator.LinearClassifier(\n"
        "        feature_columns=linear_columns,\n"
        "        n_classes=10,\n"
        "        optimizer=tf1.train.FtrlOptimizer(0.05),\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
        categorical=True,
    ),
    "dnn_classifier_embedding_v2": _program(
        labels="digits.target.astype(np.int32)",
        constructor="tf.estimator.DNNClassifier(\n"
        "        feature_columns=dnn_columns,\n"
        "        hidden_units=[32, 16],\n"
        "        n_classes=10,\n"
        '        optimizer="Adagrad",\n'
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
        categorical=True,
        export="raw",
    ),
    # ... and Keras 2 legacy's by name (no momentum: epsilon after the square root; sparse embedding updates).
    "dnn_classifier_embedding_rmsprop_v2": _program(
        labels="digits.target.astype(np.int32)",
        constructor="tf.estimator.DNNClassifier(\n"
        "        feature_columns=dnn_columns,\n"
        "        hidden_units=[32, 16],\n"
        "        n_classes=10,\n"
        '        optimizer="RMSProp",\n'
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
        categorical=True,
    ),
    # Keras 2's Adadelta (a v2 estimator's): its sparse kernel updates only the rows the batch touched
    "dnn_linear_combined_classifier_adadelta_v2": _program(
        labels="digits.target.astype(np.int32)",
        constructor="tf.estimator.DNNLinearCombinedClassifier(\n"
        "        linear_feature_columns=linear_columns,\n"
        "        linear_optimizer=tf.keras.optimizers.legacy.Adadelta(learning_rate=1.0),\n"
        "        dnn_feature_columns=dnn_columns,\n"
        "        dnn_hidden_units=[16],\n"
        "        dnn_optimizer=tf.keras.optimizers.legacy.Adadelta(learning_rate=0.5, rho=0.9),\n"
        "        n_classes=10,\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
        categorical=True,
    ),
    # Default optimizers: linear Ftrl at min(0.005, 1/sqrt(4 columns)), DNN Adagrad(0.05).
    "dnn_linear_combined_regressor_categorical": _program(
        labels="np.stack([digits.target / 10.0, images.mean(axis=(1, 2))], axis=1).astype(np.float32)",
        constructor="tf1.estimator.DNNLinearCombinedRegressor(\n"
        "        linear_feature_columns=linear_columns,\n"
        "        dnn_feature_columns=dnn_columns,\n"
        "        dnn_hidden_units=[16],\n"
        "        label_dimension=2,\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
        categorical=True,
        export="parsing",
    ),
}

# Baselines (no feature columns: one bias per output, whatever the features). convert-checkpoint cannot rebuild
# them (it recognises feature-column models); the migrated program carries model.ckpt-0 over by itself.
BASELINE = {
    # v2 head, the default optimizer (Ftrl at 0.3)
    "baseline_classifier_v2": _program(
        labels="digits.target.astype(np.int32)",
        constructor="tf.estimator.BaselineClassifier(\n"
        "        n_classes=10,\n"
        "        model_dir=args.model_dir,\n"
        "        config=config,\n"
        "    )",
        export="raw",
    ),
    # v1 head (loss summed), binary with class names, example weights, an optimizer by name (0.3)
    "baseline_classifier_binary_label_vocabulary_weighted": _program(
        labels='np.where(digits.target % 2 == 0, "even", "odd")',
        constructor="tf1.estimator.BaselineClassifier(\n"
        "        model_dir=args.model_dir,\n"
        "        n_classes=2,\n"
        '        weight_column="weight",\n'
        '        label_vocabulary=["even", "odd"],\n'
        '        optimizer="Adagrad",\n'
        "        config=config,\n"
        "    )",
        weighted=True,
    ),
    # arguments by position, a TF1 optimizer, two label dimensions
    "baseline_regressor_by_position": _program(
        labels="np.stack([digits.target / 10.0, images.mean(axis=(1, 2))], axis=1).astype(np.float32)",
        constructor="tf1.estimator.BaselineRegressor(\n"
        "        args.model_dir, 2, optimizer=tf1.train.MomentumOptimizer(0.05, 0.9), config=config\n"
        "    )",
        export="parsing",
    ),
}
