"""compat.estimator_training.TrainingConfig and configure: the RunConfig checks the Estimator made, made the same
way, and the one setting the run-time tier takes only as None (train_distribute)."""

from __future__ import annotations

import logging

import numpy as np
import pytest
import tensorflow as tf
import tf_keras

from estimator_migrate.compat import (
    canned,
    chunked_calls,
    estimator_hooks,
    estimator_loop,
    estimator_training,
)
from estimator_migrate.compat.estimator_training import TrainingConfig
from tests.conftest import (
    MODERN_PYTHON,
    ROOT,
    latest_saved_step,
    listed_checkpoint_steps,
    run,
    sigkill_after_save,
)


def test_both_checkpoint_cadences_are_refused_as_runconfig_refused_them():
    with pytest.raises(ValueError, match="Can not provide both save_checkpoints_secs and save_checkpoints_steps"):
        TrainingConfig(save_checkpoints_steps=10, save_checkpoints_secs=60)
    assert TrainingConfig().cadence == ("secs", 600)
    assert TrainingConfig(save_checkpoints_steps=10).cadence == ("steps", 10)


def test_model_dir_given_twice_must_agree(tmp_path):
    model = canned.linear_regressor([tf.feature_column.numeric_column("x")])
    with pytest.raises(ValueError, match="model_dir are set both in constructor and RunConfig"):
        estimator_training.configure(model, model_dir=tmp_path / "a", config=TrainingConfig(model_dir=tmp_path / "b"))
    configured = estimator_training.configure(model, config=TrainingConfig(model_dir=tmp_path / "b"))
    assert configured.model_dir == str(tmp_path / "b")


TWO_REPLICAS = """
import tensorflow as tf
(cpu,) = tf.config.list_physical_devices("CPU")
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
from estimator_migrate.compat.estimator_training import TrainingConfig
try:
    TrainingConfig(train_distribute=tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"]))
except ValueError as error:
    print(error)
"""


def test_train_distribute_none_or_of_one_replica_is_no_strategy_and_several_replicas_are_one_error():
    """A program choosing its strategy by flag passes None on one machine (efficientdet's main.py); one written for
    several GPUs runs on one device (one replica: the Estimator took the steps of a training without it). With
    several replicas each step took a batch per replica, which a training without the strategy would not."""
    assert TrainingConfig(train_distribute=None).train_distribute is None
    assert TrainingConfig(train_distribute=tf.distribute.OneDeviceStrategy("/cpu:0")).train_distribute is None
    assert TrainingConfig(train_distribute=tf.distribute.MirroredStrategy()).train_distribute is None
    completed = run([MODERN_PYTHON, "-c", TWO_REPLICAS], cwd=ROOT)
    assert completed.stdout.startswith("RunConfig(train_distribute=MirroredStrategy) with 2 replicas:"), completed.stdout
    assert "build the estimator where the RunConfig is built" in completed.stdout


def test_settings_given_as_a_mapping_are_checked_by_name():
    """`RunConfig(**CONF.runconfig)` (wide_deep's build_estimator) migrates as `TrainingConfig(**settings)`."""
    settings = {"save_checkpoints_steps": 50, "keep_checkpoint_max": 3, "log_step_count_steps": 10}
    config = TrainingConfig(**settings).replace(session_config=object())
    assert (config.cadence, config.keep_checkpoint_max) == (("steps", 50), 3)
    with pytest.raises(TypeError, match=r"RunConfig\(save_checkpoint_steps=\.\.\.\) is not a setting the migration"):
        TrainingConfig(**settings, save_checkpoint_steps=10)  # (misspelt: RunConfig raised a TypeError too)


def test_a_clusters_settings_are_kept_and_device_placement_or_distributed_evaluation_only_as_none():
    """RunConfig's protocol, session_creation_timeout_secs, experimental_max_worker_delay_secs and
    checkpoint_save_graph_def change nothing a local training computes; device_fn, eval_distribute and
    experimental_distribute are taken as None (their default), anything else is one error naming it."""
    config = TrainingConfig(protocol="grpc", session_creation_timeout_secs=60, checkpoint_save_graph_def=False,
                            experimental_max_worker_delay_secs=5, device_fn=None, eval_distribute=None,
                            experimental_distribute=None, save_checkpoints_steps=10)
    assert (config.protocol, config.session_creation_timeout_secs, config.cadence) == ("grpc", 60, ("steps", 10))
    with pytest.raises(ValueError, match=r"RunConfig\(device_fn=<function .*\) is not carried over .* pass "
                                         r"device_fn=None"):
        TrainingConfig(device_fn=lambda op: "/cpu:0")
    with pytest.raises(ValueError, match=r"RunConfig\(eval_distribute=.*whole eval batches"):
        TrainingConfig(eval_distribute=tf.distribute.OneDeviceStrategy("/cpu:0"))


def test_a_runconfig_property_it_does_not_hold_is_one_clear_error():
    """A RunConfig property it does not carry over (a TF_CONFIG cluster's): reading one says so."""
    config = TrainingConfig()
    assert config.device_fn is None and not hasattr(config, "cluster_spec")
    with pytest.raises(AttributeError, match=r"RunConfig\.service is not carried over by the migration"):
        config.service  # noqa: B018


_RUNCONFIG_TASK = """
import json, os, tensorflow as tf
os.environ.pop("TF_CONFIG", None)
config = tf.estimator.RunConfig()
print(json.dumps({name: getattr(config, name) for name in %r}))
"""


@pytest.mark.legacy
def test_the_task_properties_are_the_estimator_s_local_task_and_a_cluster_is_one_error(legacy_python, monkeypatch):
    """Without a TF_CONFIG cluster, RunConfig's task properties (`is_chief`, `task_type`, `master`, ...) are the
    ones TF 2.15's RunConfig has (the migrated estimator trains as that one task: deepr's hook factories read
    `estimator.config.is_chief`); with a cluster, reading one is one error."""
    import json

    from estimator_migrate.compat.estimator_training import _LOCAL_TASK

    expected = json.loads(run([legacy_python, "-c", _RUNCONFIG_TASK % sorted(_LOCAL_TASK)]).stdout.strip().splitlines()[-1])
    monkeypatch.delenv("TF_CONFIG", raising=False)
    config = TrainingConfig()
    assert {name: getattr(config, name) for name in _LOCAL_TASK} == expected
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"worker": ["a:1", "b:2"]}, "task": {"type": "worker", "index": 1}}))
    with pytest.raises(ValueError, match=r"RunConfig\.is_chief: TF_CONFIG describes a cluster"):
        config.is_chief  # noqa: B018


# Cadence settings as programs give them (constructor arguments, then replace's), each with its RunConfig result
_CADENCE_CASES = [
    ({}, None),
    ({"save_checkpoints_steps": 100}, None),
    ({"save_checkpoints_secs": 30}, None),
    ({"save_checkpoints_steps": None}, None),  # a flag whose default is None: checkpointing off
    ({"save_checkpoints_secs": None}, None),
    ({"save_checkpoints_steps": None, "save_checkpoints_secs": None}, None),
    ({"save_checkpoints_steps": 0}, None),  # Estimator: `if secs or steps`, no CheckpointSaverHook
    ({"save_checkpoints_secs": 0}, None),
    ({}, {"save_checkpoints_steps": 20, "keep_checkpoint_max": 2}),
    ({"save_checkpoints_secs": 30}, {"save_checkpoints_steps": 20}),
    ({"save_checkpoints_steps": 100}, {"save_checkpoints_secs": 30}),
    ({}, {"save_checkpoints_steps": None}),
    ({"save_checkpoints_steps": 100}, {"save_checkpoints_steps": None, "save_checkpoints_secs": None}),
]
_RUNCONFIG_CADENCES = """
import json, tensorflow as tf
results = []
for settings, changes in %r:
    config = tf.estimator.RunConfig(**settings)
    if changes is not None:
        config = config.replace(**changes)
    results.append([config.save_checkpoints_steps, config.save_checkpoints_secs])
print(json.dumps(results))
"""


@pytest.mark.legacy
def test_cadences_given_replaced_or_switched_off_are_runconfig_s(legacy_python):
    """The two cadences, as TF 2.15's RunConfig resolves them from what a program gave (one None switches it off
    unless the other is given; replace's cadence replaces the other; 0 is off too). Switched off, Estimator saved
    nothing (tests/test_checkpoints_off.py), and what follows checkpoint saves (train_and_evaluate's evaluations,
    saving listeners) is one error, as Estimator's was."""
    import json

    expected = json.loads(run([legacy_python, "-c", _RUNCONFIG_CADENCES % _CADENCE_CASES]).stdout.strip().splitlines()[-1])
    for (settings, changes), (steps, secs) in zip(_CADENCE_CASES, expected):
        config = TrainingConfig(**settings)
        if changes is not None:
            config = config.replace(**changes)
        assert [config.save_checkpoints_steps, config.save_checkpoints_secs] == [steps, secs], (settings, changes)
        assert config.saves_checkpoints == bool(steps or secs)
        if not (steps or secs):
            with pytest.raises(ValueError, match=r"RunConfig switches checkpointing off .* Give the RunConfig a cadence"):
                config.cadence  # noqa: B018
        else:
            assert config.cadence == (("steps", steps) if steps else ("secs", secs))


def test_an_in_memory_evaluator_evaluates_only_the_estimator_it_is_given_to(tmp_path):
    """InMemoryEvaluatorHook evaluated its estimator's graph with the training's variables: given to the training
    of another estimator it is one error, before any step; a period of no steps is Estimator's error."""
    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": [[1.0], [2.0]]}, [[1.0], [2.0]])).batch(2)

    def regressor(name):
        model = canned.linear_regressor([tf.feature_column.numeric_column("x")])
        return estimator_training.configure(model, model_dir=tmp_path / name)

    with pytest.raises(ValueError, match="invalid every_n_iter=0"):
        estimator_training.InMemoryEvaluator(regressor("a"), input_fn, every_n_iter=0)
    evaluated, trained = regressor("evaluated"), regressor("trained")
    evaluator = estimator_training.InMemoryEvaluator(evaluated, input_fn, every_n_iter=1)
    with pytest.raises(ValueError, match="given to the training of another estimator"):
        estimator_training.train(trained, input_fn, max_steps=2, hooks=[evaluator])
    assert int(trained.optimizer.iterations) == 0


@pytest.mark.parametrize("module", ["estimator_training", "estimator_loop"])
def test_float_step_limits_train_until_the_step_reaches_them_and_canned_weights_read_by_estimator_names(
        module, tmp_path):
    """`train(steps=100 / 5)` (the Machine Learning Crash Course's `steps / periods`) trains 20 steps, and 2.5 three
    (Estimator's StopAtStepHook stopped once the step reached start + steps); `max_steps=24.5` ends at 25.
    get_variable_names / get_variable_value read a canned model's weights and global step by the Estimator's names
    from its latest checkpoint, also by a tensor's name ("global_step:0", as Estimator's load_variable read it); an
    optimizer slot, or no checkpoint yet, is one error."""
    from importlib import import_module

    trainer = import_module(f"estimator_migrate.compat.{module}")
    column = tf.feature_column.numeric_column("x")
    model = estimator_training.configure(canned.linear_regressor(feature_columns=[column], loss_reduction="sum"),
                                         model_dir=str(tmp_path))
    with pytest.raises(ValueError, match="Couldn't find a checkpoint"):
        estimator_training.get_variable_value(model, "linear/linear_model/x/weights")

    def input_fn():
        return tf.data.Dataset.from_tensors(({"x": [[1.0], [2.0]]}, [[1.0], [3.0]])).repeat()

    for limit, step in ((dict(steps=100 / 5), 20), (dict(steps=2.5), 23), (dict(max_steps=24.5), 25)):
        trainer.train(model, input_fn, **limit)
        assert int(model.optimizer.iterations) == step
    assert estimator_training.get_variable_value(model, "global_step") == 25
    assert estimator_training.get_variable_value(model, "global_step:0") == 25  # KataGo's spelling: a tensor's name
    assert model.get_variable_names() == ["global_step", "linear/linear_model/bias_weights",
                                          "linear/linear_model/x/weights"]
    weights = estimator_training.get_variable_value(model, "linear/linear_model/x/weights")
    assert weights.shape == (1, 1) and weights[0, 0] == model.get_layer("linear_model").weights[0].numpy()[0, 0] != 0
    with pytest.raises(ValueError, match="linear/linear_model/x/weights/Ftrl is not a weight of the migrated canned"):
        estimator_training.get_variable_value(model, "linear/linear_model/x/weights/Ftrl")



def _step_of_latest_save(directory, target: str) -> int:
    """The training step of the latest save in `directory`: the loop's checkpoints are numbered by step;
    BackupAndRestore numbers its backups 1, 2, ... and holds the optimizer's step count."""
    if target == "loop":
        return latest_saved_step(directory)
    latest = tf.train.latest_checkpoint(str(directory))
    return 0 if latest is None else int(tf.train.load_checkpoint(latest).get_tensor(
        "model/optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE"))


@pytest.mark.slow
@pytest.mark.parametrize("target", ["keras", "loop"])
def test_a_config_given_as_replace_or_a_factory_call_keeps_its_cadence(target, tmp_path):
    """tests/codemods/fixtures/runconfig_by_call migrated: `config=config.replace(model_dir=...)` and
    `config=make_config(...)` save every 50 steps, as the RunConfig they return said (the rewrite once read any
    call given as config= as `RunConfig(<its arguments>)`: every 600 s, and the summaries every 100 steps)."""
    program = ROOT / "tests" / "codemods" / "fixtures" / "runconfig_by_call" / f"{target}.py"
    for model in ("linear", "dnn"):
        saves = tmp_path / "runs" / model / ("backup/chief" if target == "keras" else "")
        sigkill_after_save([MODERN_PYTHON, program], saves, at_least=1, cwd=tmp_path)
        step = _step_of_latest_save(saves, target)
        assert step in (50, 100, 150), (model, step)  # killed after a cadence save, before the end (200)


def test_keep_checkpoint_max_zero_keeps_every_checkpoint_as_the_saver_did(tmp_path):
    """RunConfig(keep_checkpoint_max=0) (or None): Estimator's Saver deleted none; CheckpointManager refuses 0,
    so the migrated code gives it None, which keeps them all too."""
    from codemods.transformer import migrate_source

    checkpoint = tf.train.Checkpoint(step=tf.Variable(0))
    manager = estimator_training.manager_for(checkpoint, TrainingConfig(model_dir=tmp_path, keep_checkpoint_max=0))
    for _ in range(7):
        manager.save()
    assert len(manager.checkpoints) == 7
    program = ("import tensorflow as tf\n"
               "config = tf.estimator.RunConfig(model_dir='m', save_checkpoints_steps=10, keep_checkpoint_max=0)\n"
               "est = tf.estimator.LinearRegressor(feature_columns=[tf.feature_column.numeric_column('x')], config=config)\n"
               "est.train(input_fn=lambda: tf.data.Dataset.from_tensors(({'x': [1.0]}, [1.0])), max_steps=20)\n")
    for target in ("keras", "loop"):
        code = migrate_source(program, target=target).code
        assert "max_to_keep=None" in code and "max_to_keep=0" not in code, code


@pytest.fixture
def sized_at(monkeypatch) -> list[int]:
    """The steps from which compat.chunked_calls sized the next call of a training (empty: not chunked): fit's
    start and each call's end; the loop's start of each chunk."""
    steps = []
    steps_to_next_due = chunked_calls.steps_to_next_due
    monkeypatch.setattr(chunked_calls, "steps_to_next_due", lambda callbacks, step, model, rate=None: (
        steps.append(step), steps_to_next_due(callbacks, step, model, rate))[-1])
    return steps


def _forty_examples() -> tf.data.Dataset:
    features = {"x": tf.reshape(tf.range(40, dtype=tf.float32), [40, 1]) / 40.0}
    return tf.data.Dataset.from_tensor_slices((features, tf.range(40, dtype=tf.float32)[:, None] / 20.0)).batch(4)


def test_a_training_runs_in_each_call_the_steps_up_to_the_next_one_a_callback_needs(tmp_path, sized_at):
    """fit's calls end at the steps the callbacks need and nowhere else (checkpoints every 20, summaries every 10,
    or every 7: their union), checkpoints are model_dir's at steps 0, 20, 40 and 50 (the end), the loss is written
    at the summary steps, the weights are those of one step per call (a callback of the program's own sees every
    step); evaluate and predict go batch by batch after it."""
    def trained(name, hooks=None, **cadence):
        tf.keras.utils.set_random_seed(3)
        model = estimator_training.configure(
            canned.linear_regressor([tf.feature_column.numeric_column("x")]),
            config=TrainingConfig(model_dir=tmp_path / name, **cadence))
        sized_at.clear()
        estimator_training.train(model, lambda: _forty_examples().repeat(), max_steps=50, hooks=hooks)
        return model, list(sized_at)

    chunked, ends = trained("chunked", save_checkpoints_steps=20, save_summary_steps=10)
    assert ends == [0, 10, 20, 30, 40, 50]
    assert listed_checkpoint_steps(tmp_path / "chunked") == [0, 20, 40, 50]
    assert _loss_summary_steps(tmp_path / "chunked") == [10, 20, 30, 40, 50]
    _, ends = trained("uneven", save_checkpoints_steps=20, save_summary_steps=7)
    assert ends == [0, 7, 14, 20, 21, 28, 35, 40, 42, 49, 50]
    assert listed_checkpoint_steps(tmp_path / "uneven") == [0, 20, 40, 50]
    assert _loss_summary_steps(tmp_path / "uneven") == [7, 14, 21, 28, 35, 42, 49]
    stepwise, ends = trained("stepwise", hooks=[tf_keras.callbacks.Callback()], save_checkpoints_steps=20,
                             save_summary_steps=10)
    assert ends == []  # (not chunked: fit's calls are one step each)
    assert listed_checkpoint_steps(tmp_path / "stepwise") == [0, 20, 40, 50]
    for mine, theirs in zip(chunked.get_weights(), stepwise.get_weights()):
        np.testing.assert_array_equal(mine, theirs)
    assert int(chunked.steps_per_execution) == 1  # after the training
    metrics = estimator_training.evaluate(chunked, _forty_examples)
    assert metrics["global_step"] == 50 and np.isfinite(metrics["loss"])


def _loss_summary_steps(model_dir) -> list[int]:
    """The steps at which the training wrote its loss to TensorBoard (under model_dir)."""
    return sorted({event.step for path in model_dir.rglob("events.out.tfevents.*")
                   for event in tf.compat.v1.train.summary_iterator(str(path))
                   for value in event.summary.value if value.tag == "batch_loss"})


@pytest.mark.parametrize("module", [estimator_training, estimator_loop], ids=["fit", "loop"])
def test_hooks_with_a_step_cadence_see_their_steps_with_several_steps_per_call(module, tmp_path, sized_at, caplog):
    """LoggingTensorHook(every_n_iter), StepCounterHook(every_n_steps) and StopAtStepHook, migrated: fit's calls
    (the loop's chunks) end only where one of them (or a checkpoint, a summary) needs it, and they log, count and
    stop at the steps they did with one step per call (a callback of the program's own forces that)."""
    def trained(name, *own_callbacks):
        tf.keras.utils.set_random_seed(3)
        model_dir = tmp_path / name
        model = estimator_training.configure(
            canned.linear_regressor([tf.feature_column.numeric_column("x")]),
            config=TrainingConfig(model_dir=model_dir, save_checkpoints_steps=20, save_summary_steps=10))
        hooks = [estimator_hooks.LoggingTensorHook({"step": "global_step"}, every_n_iter=7),
                 estimator_hooks.StepCounter(every_n_steps=9, output_dir=str(model_dir / "counts")),
                 estimator_hooks.StopAtStep(num_steps=45),
                 estimator_training.InMemoryEvaluator(model, lambda: _forty_examples().take(2), every_n_iter=16),
                 estimator_hooks.Profiler(save_steps=25, output_dir=str(model_dir / "profile")), *own_callbacks]
        sized_at.clear()
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="tensorflow"):
            module.train(model, lambda: _forty_examples().repeat(), max_steps=50, hooks=hooks)
        logged = [record.getMessage().split(" (")[0] for record in caplog.records if "step = " in record.getMessage()]
        counted = sorted({event.step for path in (model_dir / "counts").rglob("events.out.tfevents.*")
                          for event in tf.compat.v1.train.summary_iterator(str(path))
                          for value in event.summary.value if value.tag == "global_step/sec"})
        evaluated = sorted({event.step for path in (model_dir / "eval").rglob("events.out.tfevents.*")
                            for event in tf.compat.v1.train.summary_iterator(str(path)) if event.summary.value})
        traced = sorted(path.name for path in (model_dir / "profile").iterdir())
        return (model, [step for step in sized_at if step < 45], logged, counted, listed_checkpoint_steps(model_dir),
                evaluated, traced)

    chunked, starts, logged, counted, saved, evaluated, traced = trained("chunked")
    # LoggingTensorHook reads at a call's start: 7, 14, ...; the counter: 1, 10, 19, ...; the evaluator: 16, 32;
    # the profiler traces the step to 25 alone (24 to 25, as the hook: 25 steps after the first); summaries, checkpoints and the stop at 45 end the others
    assert starts == [0, 1, 7, 10, 14, 16, 19, 20, 21, 24, 25, 28, 30, 32, 35, 37, 40, 42]
    assert logged == [f"step = {step}" for step in range(0, 45, 7)]
    assert counted == [10, 19, 28, 37] and saved == [0, 20, 40, 45]
    assert evaluated == [0, 16, 32, 45] and traced == ["step_25"]
    stepwise, starts, *seen = trained("stepwise", tf_keras.callbacks.Callback())
    assert starts == [] and seen == [logged, counted, saved, evaluated, traced]
    for mine, theirs in zip(chunked.get_weights(), stepwise.get_weights()):
        np.testing.assert_array_equal(mine, theirs)


def test_a_cadence_on_the_clock_sizes_the_calls_from_the_step_rate(tmp_path, sized_at):
    """save_checkpoints_secs (RunConfig's default cadence is 600 s) with no summaries: fit's calls run the steps
    the measured rate takes to the next due time, not one step each, and no save comes early (the timer restarts
    at each save, as Estimator's CheckpointSaverHook's did)."""
    tf.keras.utils.set_random_seed(3)
    model = estimator_training.configure(
        canned.linear_regressor([tf.feature_column.numeric_column("x")]),
        config=TrainingConfig(model_dir=tmp_path / "model", save_checkpoints_secs=0.25, save_summary_steps=0,
                              keep_checkpoint_max=100))
    estimator_training.train(model, lambda: _forty_examples().repeat(), max_steps=4000)
    steps = listed_checkpoint_steps(tmp_path / "model")
    assert steps[0] == 0 and steps[-1] == 4000 and len(steps) >= 3  # the start, saves on the clock, the end
    assert 0 < len(sized_at) < 4000 / 10  # (calls of 10 steps or more on average)
    written = [(tmp_path / "model" / f"ckpt-{step}.index").stat().st_mtime for step in steps[:-1]]
    assert all(later - earlier >= 0.2 for earlier, later in zip(written, written[1:]))  # none early
