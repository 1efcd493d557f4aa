"""Real canned-Estimator checkpoints for the converter's tests. Runs under the legacy environment.

    .venv-legacy/bin/python tests/legacy/make_canned_checkpoints.py OUT_DIR [CASE ...]

For every canned family x optimizer x head version (`case_names`), it trains the real Estimator for
`STEPS` steps on generated data and writes, under OUT_DIR/<case>/:
  before/       the model_dir after STEPS steps (model.ckpt-STEPS, checkpoint, graph.pbtxt, .meta);
  after/        the same model_dir after one more step on `batch.npz`'s batch (model.ckpt-STEPS+1);
  batch.npz     that batch (features and labels) and the logits `predict()` gave for it from `before/`;
  case.json     what was built (family, head, optimizer, n_classes or label_dimension, features).
Data and weights are seeded, so a re-run writes the same numbers. Nothing here is committed: the test
suite runs this once and caches the output by this file's hash.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1

STEPS = 3
BATCH = 8
FAMILIES = ("dnn", "linear", "dnn_linear_combined")
TASKS = ("classifier", "regressor")
OPTIMIZERS = ("Adagrad", "Adam", "Ftrl", "Momentum", "SGD", "RMSProp")
HEADS = ("v1", "v2")
LEARNING_RATES = {"Adagrad": 0.05, "Adam": 0.01, "Ftrl": 0.1, "Momentum": 0.01, "SGD": 0.02, "RMSProp": 0.01}
# Declared in this order on purpose: the Estimator's input layer concatenates them sorted by name.
SEVERAL_FEATURES = {"wide": 3, "age": 2}
ONE_FEATURE = {"x": 4}


CUSTOM_CASE = "custom_model_fn_adam_v1"


def case_names() -> list[str]:
    """The canned cases; CUSTOM_CASE (a model_fn Estimator for compat.load_legacy_checkpoint) comes too.

    Every family x optimizer x head, with one task each, chosen so that every pair of settings is covered:
    for a family and an optimizer the two heads give the two tasks, and for a family and a head each task
    meets optimizers of both variants (`describe`: binary and multi-class, 1- and 2-d labels). The two tasks
    differ only in the head's last layer and loss, which every optimizer's case exercises in one of them."""
    return [
        f"{family}_{TASKS[(FAMILIES.index(family) + OPTIMIZERS.index(optimizer) // 2 + HEADS.index(head)) % 2]}"
        f"_{optimizer.lower()}_{head}"
        for family in FAMILIES
        for optimizer in OPTIMIZERS
        for head in HEADS
    ]


def describe(name: str) -> dict:
    """The settings of one case: alternating binary/multi-class, 1-/2-d labels, one/several features."""
    family, task, optimizer, head = name.rsplit("_", 3)
    optimizer = next(o for o in OPTIMIZERS if o.lower() == optimizer)
    variant = OPTIMIZERS.index(optimizer) % 2
    case = {"name": name, "family": family, "task": task, "optimizer": optimizer, "head": head,
            "learning_rate": LEARNING_RATES[optimizer], "steps": STEPS,
            "features": ONE_FEATURE if optimizer == "SGD" else SEVERAL_FEATURES,
            "hidden_units": [5, 4]}
    if task == "classifier":
        case["n_classes"] = 3 if variant == 0 else 2
    else:
        case["label_dimension"] = 2 if variant == 0 else 1
    return case


def make_optimizer(case: dict):
    """A factory, as Estimators accept: each train() call builds its graph with a fresh optimizer."""
    lr, kind = case["learning_rate"], case["optimizer"]
    if case["head"] == "v1":
        return {
            "Adagrad": lambda: tf1.train.AdagradOptimizer(lr),
            "Adam": lambda: tf1.train.AdamOptimizer(lr),
            "Ftrl": lambda: tf1.train.FtrlOptimizer(lr),
            # Nesterov's: the converter reads it from the graph (v2's plain momentum covers the rest)
            "Momentum": lambda: tf1.train.MomentumOptimizer(lr, momentum=0.9, use_nesterov=True),
            "SGD": lambda: tf1.train.GradientDescentOptimizer(lr),
            # TF1's mean square starting at 1, centered, with momentum: every slot it can have
            "RMSProp": lambda: tf1.train.RMSPropOptimizer(lr, momentum=0.5, centered=True),
        }[kind]
    legacy = tf.keras.optimizers.legacy
    return {
        "Adagrad": lambda: legacy.Adagrad(lr),
        "Adam": lambda: legacy.Adam(lr),
        "Ftrl": lambda: legacy.Ftrl(lr),
        "Momentum": lambda: legacy.SGD(lr, momentum=0.9),
        "SGD": lambda: legacy.SGD(lr),
        "RMSProp": lambda: legacy.RMSprop(lr),  # no momentum: epsilon after the square root
    }[kind]


def make_estimator(case: dict, model_dir: str):
    module = tf1.estimator if case["head"] == "v1" else tf.estimator
    columns = [tf.feature_column.numeric_column(key, shape=[size]) for key, size in case["features"].items()]
    head_args = (
        {"n_classes": case["n_classes"]} if case["task"] == "classifier"
        else {"label_dimension": case["label_dimension"]}
    )
    config = tf.estimator.RunConfig(tf_random_seed=7, save_checkpoints_steps=STEPS)
    family = case["family"]
    cls = getattr(module, {"dnn": "DNN", "linear": "Linear", "dnn_linear_combined": "DNNLinearCombined"}[family]
                  + case["task"].capitalize())
    if family == "dnn":
        return cls(hidden_units=case["hidden_units"], feature_columns=columns, optimizer=make_optimizer(case),
                   model_dir=model_dir, config=config, **head_args)
    if family == "linear":
        return cls(feature_columns=columns, optimizer=make_optimizer(case), model_dir=model_dir, config=config,
                   **head_args)
    return cls(linear_feature_columns=columns, linear_optimizer=make_optimizer(case),
               dnn_feature_columns=columns, dnn_optimizer=make_optimizer(case),
               dnn_hidden_units=case["hidden_units"], model_dir=model_dir, config=config, **head_args)


def make_data(case: dict, rows: int, seed: int) -> tuple[dict, np.ndarray]:
    rng = np.random.default_rng(seed)
    features = {key: rng.normal(size=(rows, size)).astype(np.float32) for key, size in case["features"].items()}
    if case["task"] == "classifier":
        labels = rng.integers(0, case["n_classes"], size=(rows, 1)).astype(np.int32)
    else:
        labels = rng.normal(size=(rows, case["label_dimension"])).astype(np.float32)
    return features, labels


def numpy_input(features, labels=None, epochs=None):
    return tf1.estimator.inputs.numpy_input_fn(
        x=features, y=labels, batch_size=BATCH, num_epochs=epochs, shuffle=False
    )


def make_case(case: dict, out: Path) -> None:
    work = out / "work"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    estimator = make_estimator(case, str(work))
    estimator.train(numpy_input(*make_data(case, BATCH * STEPS, seed=1)), max_steps=STEPS)
    shutil.copytree(work, out / "before")

    features, labels = make_data(case, BATCH, seed=2)
    key = "logits" if case["task"] == "classifier" else "predictions"
    logits = np.stack([p[key] for p in estimator.predict(numpy_input(features, epochs=1), predict_keys=[key])])
    estimator.train(numpy_input(features, labels), steps=1)
    work.rename(out / "after")
    np.savez(out / "batch.npz", labels=labels, logits=logits, **{f"feature_{k}": v for k, v in features.items()})
    (out / "case.json").write_text(json.dumps(case, indent=1))


def custom_model_fn(features, labels, mode):
    """A typical hand-written model_fn: tf.compat.v1.layers, a TF1 Adam, a mean cross-entropy."""
    hidden = tf1.layers.dense(features["x"], 6, activation=tf.nn.relu, name="hidden")
    logits = tf1.layers.dense(hidden, 3, name="logits")
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
    loss = tf1.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf1.train.AdamOptimizer(0.01).minimize(loss, global_step=tf1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def make_custom_case(out: Path) -> None:
    case = {"name": CUSTOM_CASE, "features": {"x": 4}, "task": "classifier", "n_classes": 3, "steps": STEPS}
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    config = tf.estimator.RunConfig(tf_random_seed=7, save_checkpoints_steps=STEPS)
    estimator = tf.estimator.Estimator(custom_model_fn, model_dir=str(out / "work"), config=config)
    estimator.train(numpy_input(*make_data(case, BATCH * STEPS, seed=1)), max_steps=STEPS)
    shutil.copytree(out / "work", out / "before")
    features, labels = make_data(case, BATCH, seed=2)
    logits = np.stack([p["logits"] for p in estimator.predict(numpy_input(features, epochs=1))])
    estimator.train(numpy_input(features, labels), steps=1)
    (out / "work").rename(out / "after")
    np.savez(out / "batch.npz", labels=labels, logits=logits, **{f"feature_{k}": v for k, v in features.items()})
    (out / "case.json").write_text(json.dumps(case, indent=1))


def main(argv: list[str]) -> None:
    out_dir = Path(argv[0])
    tf1.logging.set_verbosity(tf1.logging.ERROR)
    for name in argv[1:] or [*case_names(), CUSTOM_CASE]:
        if name == CUSTOM_CASE:
            make_custom_case(out_dir / name)
        else:
            make_case(describe(name), out_dir / name)


if __name__ == "__main__":
    main(sys.argv[1:])
