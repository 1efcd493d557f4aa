"""RunConfig(train_distribute=...) end to end: the real Estimator on two replicas (legacy env) against the
programs `migrate rewrite` makes of it, both targets (codemods/rules/train_distribute.py).

From the Estimator's step 0 (converted by convert-checkpoint), 20 migrated steps under the same
MirroredStrategy (fit, or the loop's strategy.run) give the Estimator's model.ckpt-20 within 1e-5: the same per-replica batches (each replica
takes whole input_fn batches) and the same reduction of the replicas' losses (v2 head: means scaled by
1/replicas; v1 head: sums). Its evaluate() then gives the Estimator's metrics. SIGKILLed mid-training
on two replicas, a migrated program resumes from its last save and ends at max_steps (both targets).
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time

import pytest
import tensorflow as tf

from estimator_migrate.compat import model_fns
from migrate.demo import checkpoint_step
from tests.conftest import (
    MODERN_PYTHON,
    QUIET_TF,
    alternating_targets,
    assert_matches_estimator_checkpoint,
    assert_weights_match_tf1,
    import_program,
    migrate_file,
    run,
    run_migrated_from_estimator_start,
)
from tests.legacy.distributed_programs import CUSTOM_PROGRAMS, PROGRAMS

# On one xdist worker (--dist loadgroup): the module's reference runs (module fixtures) are made once.
pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("train_distribute")]
STEPS = 20


@pytest.fixture(scope="module")
def estimator_runs(legacy_python, tmp_path_factory):
    """Each program run by the real Estimator on two replicas: its source, model_dir and metrics."""
    runs = {}
    for name, source in PROGRAMS.items():
        work = tmp_path_factory.mktemp(name)
        program = work / f"{name}.py"
        program.write_text(source)
        metrics = work / "estimator.json"
        run([legacy_python, program, "--model_dir", work / "estimator", "--max_steps", STEPS, "--metrics_out",
             metrics], timeout=600)
        runs[name] = (program, work / "estimator", metrics)
    return runs


@pytest.mark.parametrize(("name", "target"), alternating_targets(PROGRAMS), ids=lambda value: value)
def test_migrated_program_takes_the_distributed_estimators_steps(name, target, estimator_runs, tmp_path):
    program, estimator_dir, estimator_metrics = estimator_runs[name]
    migrated_metrics = tmp_path / "migrated.json"
    migrated, model_dir = run_migrated_from_estimator_start(
        program, estimator_dir, target, tmp_path, "--max_steps", STEPS, "--metrics_out", migrated_metrics
    )

    assert "distribute_datasets_from_function" in migrated.read_text()
    assert_matches_estimator_checkpoint(model_dir, estimator_dir, STEPS)
    expected, actual = json.loads(estimator_metrics.read_text()), json.loads(migrated_metrics.read_text())
    assert actual.keys() == expected.keys()
    for key, value in expected.items():
        assert actual[key] == pytest.approx(value, rel=1e-4, abs=1e-6), key


@pytest.fixture(scope="module")
def custom_estimator_run(legacy_python, tmp_path_factory):
    """The custom model_fn program run by the real Estimator on two replicas: its source, model_dir, metrics."""
    work = tmp_path_factory.mktemp("custom")
    program = work / "custom_model_fn_mirrored.py"
    program.write_text(CUSTOM_PROGRAMS["custom_model_fn_mirrored"])
    run([legacy_python, program, "--model_dir", work / "estimator", "--max_steps", STEPS, "--metrics_out",
         work / "estimator.json"], timeout=600)
    return program, work / "estimator", work / "estimator.json"


def _custom_model(module):
    model = module.ModelFn(params=module.PARAMS)
    model.make_variables(({"x": tf.TensorSpec([None, 8, 8], tf.float32)}, tf.TensorSpec([None], tf.int32)))
    return model


@pytest.mark.parametrize("target", ["loop"])  # one target: tests/conftest.py, "Targets"
def test_migrated_custom_model_fn_takes_the_distributed_estimators_steps(
    target, custom_estimator_run, tmp_path, monkeypatch
):
    """A custom model_fn's mean loss, which the TF1 optimizer scaled by 1/replicas under train_distribute,
    scaled the same (compat.model_fns.replica_loss): from the Estimator's step 0 (converted with
    model_fns.convert_estimator_checkpoint), 20 steps give its model.ckpt-20 within 1e-5 and evaluate() its
    metrics."""
    program, estimator_dir, estimator_metrics = custom_estimator_run
    migrated = migrate_file(program, tmp_path / "migrated", target)
    assert "model_fns.replica_loss(loss)" in migrated.read_text() and "TODO(migrate)" not in migrated.read_text()
    # Imported here to build its class: the program's two logical CPUs cannot be set up in this process.
    monkeypatch.setattr(tf.config, "set_logical_device_configuration", lambda *args, **kwargs: None)
    module = import_program(migrated)
    model_dir, migrated_metrics = tmp_path / "model", tmp_path / "migrated.json"
    model_fns.convert_estimator_checkpoint(_custom_model(module), estimator_dir / "model.ckpt-0", model_dir)
    run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--max_steps", STEPS, "--metrics_out", migrated_metrics])

    model = _custom_model(module)
    tf.train.Checkpoint(model=model, optimizer=model.optimizer).restore(
        tf.train.latest_checkpoint(str(model_dir))
    ).expect_partial()
    assert int(model.optimizer.iterations) == STEPS
    assert_weights_match_tf1(model, estimator_dir / f"model.ckpt-{STEPS}", estimator_dir / "model.ckpt-0", target)
    expected, actual = json.loads(estimator_metrics.read_text()), json.loads(migrated_metrics.read_text())
    assert actual.keys() == expected.keys()
    for key, value in expected.items():
        assert actual[key] == pytest.approx(value, rel=1e-4, abs=1e-6), key


RESUME_STEPS, SAVE_STEPS = 2000, 100


def _newest_save(model_dir) -> int:
    """The step of the newest checkpoint in model_dir or of a fit backup below it (0: none yet)."""
    states = [model_dir, *[state.parent for state in (model_dir / "backup").rglob("checkpoint")]]
    return max([_step_while_training(state) for state in states], default=0)


def _step_while_training(state) -> int:
    """checkpoint_step of a directory the running program writes: a checkpoint it names may be rotated away
    before it is read (seen in CI), and counts as none until the next poll."""
    try:
        return checkpoint_step(state) or 0
    except tf.errors.OpError:
        return 0


@pytest.mark.parametrize("target", ["keras"])  # one target: tests/conftest.py, "Targets"
def test_distributed_program_resumes_after_sigkill(target, tmp_path):
    program = tmp_path / "program.py"
    program.write_text(PROGRAMS["dnn_classifier_mirrored_v2"])
    migrated = migrate_file(program, tmp_path / "migrated", target)
    model_dir = tmp_path / "model"
    arguments = ["--model_dir", model_dir, "--max_steps", RESUME_STEPS, "--save_steps", SAVE_STEPS,
                 "--metrics_out", tmp_path / "metrics.json"]
    process = subprocess.Popen([MODERN_PYTHON, migrated, *map(str, arguments)], env=QUIET_TF,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while _newest_save(model_dir) < 2 * SAVE_STEPS:
        assert process.poll() is None and time.monotonic() < deadline, "no save of step 200 in time"
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    assert process.wait() == -signal.SIGKILL
    saved = _newest_save(model_dir)
    assert 2 * SAVE_STEPS <= saved < RESUME_STEPS and saved % SAVE_STEPS == 0

    rerun = run([MODERN_PYTHON, migrated, *arguments])
    assert checkpoint_step(model_dir) == RESUME_STEPS
    if target == "keras":  # fit went on from the backup: its progress bar starts past it
        first_shown = int(re.search(rf"(\d+)/{RESUME_STEPS}", rerun.stdout).group(1))
        assert saved < first_shown <= saved + SAVE_STEPS
    assert json.loads((tmp_path / "metrics.json").read_text())["global_step"] == RESUME_STEPS
