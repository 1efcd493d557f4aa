"""tf.contrib.estimator.replicate_model_fn and TowerOptimizer (TensorFlow's official models 1.x, --multi_gpu) ->
compat.contrib_estimator's: over one device, TF 1.x's single_device_model_fn called the model_fn as it was (params
and config copied) and a TowerOptimizer of one tower was its optimizer. tests/legacy/multi_gpu_program.py with
--multi_gpu, migrated for each target and run from the Estimator's model.ckpt-0 on this machine (no GPU: one
device), takes the steps the real Estimator takes without it (TensorFlow 2.15 has no tf.contrib): every variable
within 1e-5 after 20 steps, the same evaluation and predictions. Over several devices it is one error."""

from __future__ import annotations

import pytest
import tensorflow as tf

from estimator_migrate.compat import contrib_estimator
from tests.conftest import (
    ROOT,
    assert_wrapped_run_matches_estimator,
    run_wrapped_from_estimator_start,
    wrapped_reference,
)

PROGRAM = ROOT / "tests" / "legacy" / "multi_gpu_program.py"
STEPS = 20


@pytest.fixture(scope="module")
def estimator_dir(legacy_python, tmp_path_factory):
    return wrapped_reference(legacy_python, PROGRAM, tmp_path_factory.mktemp("replicated") / "model", STEPS, as_tf1=True)


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.parametrize("target", ["loop"])  # one target: tests/conftest.py, "Targets"
def test_one_device_replication_takes_the_estimators_steps(estimator_dir, target, tmp_path):
    source, model_dir, results = run_wrapped_from_estimator_start(PROGRAM, estimator_dir, target, tmp_path, STEPS,
                                                                  "--multi_gpu")
    assert "contrib_estimator.replicate_model_fn(model_fn" in source and "contrib_estimator.TowerOptimizer(" in source
    assert "tf.contrib" not in source
    assert_wrapped_run_matches_estimator(model_dir, estimator_dir, STEPS, ("hidden/kernel", "logits/kernel"),
                                         results, {"accuracy", "loss", "global_step"})


def test_replication_over_several_devices_or_unreduced_losses_is_one_error():
    def model_fn(features, labels, mode):
        raise AssertionError("not called")

    with pytest.raises(ValueError, match=r"replicate_model_fn over 2 devices .* is not migrated"):
        contrib_estimator.replicate_model_fn(model_fn, devices=["/device:GPU:0", "/device:GPU:1"])
    with pytest.raises(ValueError, match="Tower losses need to be reduced"):
        contrib_estimator.replicate_model_fn(model_fn, loss_reduction=tf.compat.v1.losses.Reduction.NONE)


def test_a_one_device_replica_is_given_copies_of_params_and_config_it_takes():
    seen = {}

    def model_fn(features, labels, mode, params):
        params["changed"] = True
        seen.update(features=features, labels=labels, mode=mode, params=params)
        return "spec"

    replicated = contrib_estimator.replicate_model_fn(model_fn, devices=["/device:CPU:0"])
    params = {"lr": 0.1}
    assert replicated("f", "l", "train", params=params, config="config") == "spec"
    assert seen == {"features": "f", "labels": "l", "mode": "train", "params": {"lr": 0.1, "changed": True}}
    assert params == {"lr": 0.1}


def test_a_tower_optimizer_of_one_tower_is_its_optimizer():
    with tf.Graph().as_default():
        weight = tf.compat.v1.get_variable("w", initializer=[1.0, 2.0])
        step = tf.compat.v1.train.get_or_create_global_step()
        tower = contrib_estimator.TowerOptimizer(lambda: tf.compat.v1.train.MomentumOptimizer(0.1, 0.9))
        train_op = tower.minimize(tf.reduce_sum(weight ** 2), global_step=step)
        assert tower.get_name() == "Momentum" and tower.get_slot_names() == ["momentum"]
        assert tower.get_slot(weight, "momentum").name == "w/Momentum:0"
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            session.run(train_op)
            assert session.run(weight).tolist() == pytest.approx([0.8, 1.6]) and session.run(step) == 1
