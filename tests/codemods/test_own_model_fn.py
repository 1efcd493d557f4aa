"""A custom Estimator beside one that stays TF1 (codemods/runtime_tier._own_model_fn): wrapped when nothing else can
run its model_fn, whose Estimator names alone become compat's; kept, with its TODO, when the kept estimator, another
module or a shared helper may run that code too."""

from dataclasses import replace

from codemods.project.facts import module_facts
from codemods.transformer import migrate_source

PROGRAM = '''import numpy as np
import tensorflow as tf


def input_fn():
    features = {"x": np.random.rand(256, 4).astype(np.float32)}
    return tf.data.Dataset.from_tensor_slices((features, np.random.randint(0, 3, 256))).repeat().batch(32)


def own_model_fn(features, labels, mode):
    logits = tf.compat.v1.layers.dense(features["x"], 3)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    train_op = tf.compat.v1.train.AdamOptimizer(0.01).minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def kept_model_fn(features, labels, mode):
    logits = tf.compat.v1.layers.dense(features["x"], 3)
    return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})


class PinnedEstimator(tf.estimator.Estimator):
    def latest_checkpoint(self):
        return None


def train_custom(model_dir):
    config = tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=50)
    estimator = tf.estimator.Estimator(own_model_fn, config=config)
    estimator.train(input_fn, max_steps=100)


def train_pinned(model_dir):
    estimator = PinnedEstimator(kept_model_fn, model_dir=model_dir)
    estimator.train(input_fn, max_steps=100)
'''


def _function(code: str, name: str) -> str:
    start = code.index(f"def {name}(")
    end = code.find("\n\n\n", start)  # (the comments above the next definition are that one's)
    return code[start:] if end < 0 else code[start:end]


def _tiers(result) -> dict[str, str]:
    return {estimator.constructor: estimator.tier for estimator in result.estimators}


def test_a_model_fn_nothing_else_runs_is_wrapped_beside_a_kept_estimator():
    result = migrate_source(PROGRAM)
    assert _tiers(result) == {"Estimator": "wrapped", "PinnedEstimator": "kept"}
    own = _function(result.code, "own_model_fn")
    assert "wrapped_model_fns.EstimatorSpec(mode, loss=loss" in own and "estimator_training.ModeKeys.PREDICT" in own
    assert "tf.estimator" not in own and "TODO" not in own
    assert "estimator_training.configure(wrapped_model_fns.WrappedModelFn(own_model_fn), config=config)" in result.code
    kept = result.code[result.code.index("def kept_model_fn") - 400:]
    assert "return tf.estimator.EstimatorSpec(mode, predictions=" in kept
    assert "TODO(migrate): estimator-api: tf.estimator.EstimatorSpec in this definition" in kept


def test_a_model_fn_the_kept_estimator_also_runs_stays_tf1():
    result = migrate_source(PROGRAM.replace("PinnedEstimator(kept_model_fn,", "PinnedEstimator(own_model_fn,"))
    assert _tiers(result)["Estimator"] == "kept"
    assert "tf.estimator.EstimatorSpec(mode, loss=loss" in result.code
    assert "wrapped_model_fns" not in result.code


def test_a_model_fn_another_module_imports_stays_tf1():
    """`from train import own_model_fn` elsewhere in the project: that module may hand it to a kept estimator."""
    project = replace(module_facts(PROGRAM), exported_names=frozenset({"own_model_fn"}))
    result = migrate_source(PROGRAM, project=project)
    assert _tiers(result)["Estimator"] == "kept"
    assert "wrapped_model_fns" not in result.code
    whole = migrate_source(PROGRAM, project=replace(project, exported_names=None))  # `import train` elsewhere
    assert _tiers(whole)["Estimator"] == "kept"


def test_a_model_fn_through_a_helper_of_the_module_stays_tf1():
    """A spec built by a module function the kept one's model_fn may call too stays tf.estimator's for it."""
    source = PROGRAM.replace(
        "        return tf.estimator.EstimatorSpec(mode, predictions={\"logits\": logits})\n    return",
        "        return predict_spec(mode, logits)\n    return",
    ) + '''

def predict_spec(mode, logits):
    return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
'''
    result = migrate_source(source)
    assert _tiers(result)["Estimator"] == "kept"
    assert "wrapped_model_fns" not in result.code
