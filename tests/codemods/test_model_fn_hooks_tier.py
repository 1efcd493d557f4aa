"""Which hooks keep a custom model_fn from becoming a Keras class: the spec's NanTensorHook of its own loss and a
train call's LoggingTensorHook of the global step do not (fixture custom_model_fn_hooks); a NanTensorHook of
another tensor, or a LoggingTensorHook of the model_fn's tensors, need its graph: the model_fn runs as written."""

from __future__ import annotations

import pytest

from codemods.transformer import migrate_source

PROGRAM = '''
import tensorflow as tf


def model_fn(features, labels, mode):
    logits = tf.layers.dense(features["x"], 2)
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    train_op = tf.train.AdamOptimizer(0.01).minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, training_hooks=[SPEC_HOOK])


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [[1.0, 2.0]]}, [1])).repeat().batch(1)


estimator = tf.estimator.Estimator(model_fn=model_fn, model_dir="/tmp/m")
estimator.train(input_fn=input_fn, max_steps=10, hooks=[TRAIN_HOOK])
'''
STEP_LOGGED = 'tf.train.LoggingTensorHook({"step": "global_step"}, every_n_iter=5)'


@pytest.mark.parametrize(
    "spec_hook, train_hook, tier",
    [
        ("tf.train.NanTensorHook(loss)", STEP_LOGGED, "rewritten"),
        ("tf.train.NanTensorHook(loss, fail_on_nan_loss=False)", "tf.train.StopAtStepHook(last_step=5)", "rewritten"),
        ("tf.train.NanTensorHook(logits)", STEP_LOGGED, "wrapped"),
        ("tf.train.NanTensorHook(loss)", 'tf.train.LoggingTensorHook({"loss": "loss"}, every_n_iter=5)', "wrapped"),
        ("tf.train.NanTensorHook(loss)", "tf.train.LoggingTensorHook({\"step\": STEP_NAME}, every_n_iter=5)", "wrapped"),
    ],
)
@pytest.mark.parametrize("target", ["keras", "loop"])
def test_a_model_fns_tier_with_hooks(spec_hook, train_hook, tier, target):
    source = PROGRAM.replace("SPEC_HOOK", spec_hook).replace("TRAIN_HOOK", train_hook)
    result = migrate_source(source, target)
    assert [estimator.tier for estimator in result.estimators] == [tier]
    assert ("class ModelFn(" in result.code) == (tier == "rewritten")
