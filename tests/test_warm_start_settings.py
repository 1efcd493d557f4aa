"""compat.warm_start on a canned model in this process: what `warm_start_from` selects, renames and refuses,
from a name-based checkpoint written here with the Estimator's variable names (tests/test_warm_start.py runs
the real Estimator)."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from estimator_migrate.compat import canned
from estimator_migrate.compat.warm_start import WarmStartSettings, settings_of, warm_start_canned

WEIGHTS = {
    "dnn/hiddenlayer_0/kernel": np.full((4, 3), 0.5, "float32"),
    "dnn/hiddenlayer_0/bias": np.full((3,), 0.25, "float32"),
    "dnn/logits/kernel": np.full((3, 1), -1.0, "float32"),
    "dnn/logits/bias": np.full((1,), 2.0, "float32"),
}
STATE = {"dnn/hiddenlayer_0/kernel/Adagrad": np.full((4, 3), 0.1, "float32"), "global_step": np.array(7, "int64")}


@pytest.fixture
def estimator_checkpoint(tmp_path):
    """A checkpoint named as a DNNClassifier's (hidden_units=[3], one 4-wide feature): weights, a slot, the step."""
    tensors = {**WEIGHTS, **STATE}
    prefix = str(tmp_path / "base" / "model.ckpt-7")
    tf.io.gfile.makedirs(str(tmp_path / "base"))
    tf.raw_ops.SaveV2(prefix=prefix, tensor_names=list(tensors), shape_and_slices=[""] * len(tensors),
                      tensors=[tf.constant(value) for value in tensors.values()])
    with open(tmp_path / "base" / "checkpoint", "w") as state:
        state.write('model_checkpoint_path: "model.ckpt-7"\n')
    return tmp_path / "base"


def _model():
    return canned.dnn_classifier(hidden_units=[3], feature_columns=[tf.feature_column.numeric_column("x", shape=[4])],
                                 loss_reduction="sum_over_batch_size")


def _weights(model) -> dict:
    return {v.name.removesuffix(":0"): v.numpy() for v in model.weights}


def test_a_directory_warm_starts_every_trainable_weight(estimator_checkpoint):
    model = _model()
    assert warm_start_canned(model, settings_of(str(estimator_checkpoint))) == 4
    weights = _weights(model)
    np.testing.assert_array_equal(weights["hiddenlayer_0/kernel"], WEIGHTS["dnn/hiddenlayer_0/kernel"])
    np.testing.assert_array_equal(weights["logits/bias"], WEIGHTS["dnn/logits/bias"])
    assert int(model.optimizer.iterations) == 0  # the step starts afresh, as Estimator's did


def test_a_regular_expression_selects_and_a_previous_name_renames(estimator_checkpoint):
    model = _model()
    before = _weights(model)
    settings = WarmStartSettings(str(estimator_checkpoint), vars_to_warm_start=".*logits/kernel",
                                 var_name_to_prev_var_name={"dnn/logits/kernel": "dnn/logits/kernel"})
    assert warm_start_canned(model, settings) == 1
    after = _weights(model)
    np.testing.assert_array_equal(after["logits/kernel"], WEIGHTS["dnn/logits/kernel"])
    np.testing.assert_array_equal(after["hiddenlayer_0/kernel"], before["hiddenlayer_0/kernel"])


@pytest.mark.parametrize(
    ("settings", "error"),
    [
        (dict(vars_to_warm_start=["dnn/hiddenlayer_0/kernel"]), "selects dnn/hiddenlayer_0/kernel/Adagrad"),
        (dict(vars_to_warm_start=[".*"]), "selects dnn/hiddenlayer_0/kernel/Adagrad, global_step"),
        (dict(var_name_to_vocab_info={"dnn/hiddenlayer_0/kernel": object()}), "var_name_to_vocab_info"),
        (dict(vars_to_warm_start=".*logits.*", var_name_to_prev_var_name={"dnn/hiddenlayer_0/kernel": "old"}),
         "names \\['dnn/hiddenlayer_0/kernel'\\], which are not warm-started"),
        (dict(var_name_to_prev_var_name={"dnn/logits/bias": "dnn/old_logits/bias"}), "holds no dnn/old_logits/bias"),
    ],
)
def test_what_the_migrated_warm_start_cannot_do_is_one_error_and_nothing_assigned(estimator_checkpoint, settings,
                                                                                  error):
    model = _model()
    before = _weights(model)
    with pytest.raises(ValueError, match=error):
        warm_start_canned(model, WarmStartSettings(str(estimator_checkpoint), **settings))
    for name, value in _weights(model).items():
        np.testing.assert_array_equal(value, before[name], err_msg=name)


def test_a_shape_that_differs_is_one_error(tmp_path):
    prefix = str(tmp_path / "model.ckpt-1")
    tf.raw_ops.SaveV2(prefix=prefix, tensor_names=["dnn/logits/bias"], shape_and_slices=[""],
                      tensors=[tf.zeros([2])])
    with pytest.raises(ValueError, match=r"dnn/logits/bias in .* has shape \(2,\), the model's dnn/logits/bias \(1,\)"):
        warm_start_canned(_model(), WarmStartSettings(prefix, vars_to_warm_start=".*logits/bias"))


def test_settings_of_reads_a_saved_model_directory_and_refuses_other_types(tmp_path):
    (tmp_path / "export" / "variables").mkdir(parents=True)
    (tmp_path / "export" / "variables" / "variables.index").write_bytes(b"")
    assert settings_of(str(tmp_path / "export")) == WarmStartSettings(str(tmp_path / "export" / "variables" / "variables"))
    assert settings_of(None) is None
    with pytest.raises(ValueError, match="warm_start_from must be a string or a WarmStartSettings"):
        settings_of(3)
    with pytest.raises(ValueError, match="no checkpoint in"):
        warm_start_canned(_model(), settings_of(str(tmp_path)))
