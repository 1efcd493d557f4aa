"""SessionRunHooks of a wrapped model_fn (compat.wrapped_hooks) against the real Estimator:
tests/legacy/session_hooks_program.py trains under TensorFlow 2.15 with a LoggingTensorHook in its
training_hooks (its logged lines compared) and a ProfilerHook (migrated: compat.estimator_hooks.Profiler, tracing
the same steps), a hook of its own in train(hooks=...) (fetches by object and by name, the global step read
with run_context.session.run, a stop requested at step 12) and an evaluation hook. Rewritten for each target
and started on that run's model.ckpt-0, the migrated program's hooks see the same values at every step
(equal floats), training stops at the same step with the same checkpoint, and the evaluation hook sees the
same batch losses. A variable a hook made in begin() is saved with the model's, by its TF1 name, as Estimator's
Saver saved it. The model_fn's own summaries are written to model_dir at Estimator's steps, with its values."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
import tensorflow as tf

from estimator_migrate.compat.legacy_checkpoint import LegacyCheckpoint
from tests.conftest import MODERN_PYTHON, ROOT, estimator_start, migrate_file, run, tf1_variables_in

# On one xdist worker (--dist loadgroup): the module's reference runs (module fixtures) are made once.
pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("session_hooks")]
PROGRAM = ROOT / "tests" / "legacy" / "session_hooks_program.py"


# A LoggingTensorHook's line: its tensors, then the time since its last line (not on its first). Estimator's own
# hook logs "loss = ..., step = ..." every log_step_count_steps: not the program's.
LOGGED_LOSS = re.compile(r"^INFO:tensorflow:loss = (\S+?)(?: \(\d+\.\d+ sec\))?$", re.MULTILINE)
LOGGED_STEP = re.compile(r"^INFO:tensorflow:global_step = (\d+)(?: \(\d+\.\d+ sec\))?$", re.MULTILINE)


def _summaries(model_dir) -> dict:
    """The summaries written to model_dir itself (not its subdirectories): tag -> step -> value (a scalar's, or a
    histogram's serialized proto)."""
    found = {}
    for path in model_dir.glob("events.out.tfevents*"):
        for event in tf.compat.v1.train.summary_iterator(str(path)):
            for value in event.summary.value:
                kind = value.WhichOneof("value")
                found.setdefault(value.tag, {})[event.step] = (
                    value.simple_value if kind == "simple_value" else getattr(value, kind).SerializeToString())
    return found


def _racing_cadence(steps: list, every: int, last: int) -> bool:
    """Whether `steps` are a TF1 SummarySaverHook's writes over steps 1..`last`: the first step, then each
    `every` steps after the last written, or one fewer where the step read with the train op raced its increment."""
    gaps = [later - earlier for earlier, later in zip(steps, steps[1:])]
    return steps[:1] == [1] and all(gap in (every - 1, every) for gap in gaps) and last - steps[-1] < every


@pytest.fixture(scope="module")
def estimator_run(legacy_python, tmp_path_factory):
    """The Estimator's model_dir, and the losses its LoggingTensorHooks logged (as printed)."""
    model_dir = tmp_path_factory.mktemp("hooked") / "model"
    completed = run([legacy_python, PROGRAM, "--model_dir", model_dir, "--record", model_dir / "record.json"])
    assert _steps_as_logged_by_tf1(LOGGED_STEP.findall(completed.stderr))
    return model_dir, LOGGED_LOSS.findall(completed.stderr)


def _steps_as_logged_by_tf1(logged: list) -> bool:
    """Whether `logged` are what a LoggingTensorHook of the global step variable (every 5 steps of 12) logs: at
    steps 1, 6 and 11, each read with the train op (before or after its increment, as the read raced it)."""
    return len(logged) == 3 and all(int(value) in (step - 1, step) for value, step in zip(logged, (1, 6, 11)))


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_hooks_see_what_they_saw_under_the_estimator(estimator_run, target, tmp_path):
    estimator_dir, estimator_logged = estimator_run
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    text = migrated.read_text()
    assert "wrapped_model_fns.WrappedModelFn(model_fn" in text
    assert text.count("tf.compat.v1.train.LoggingTensorHook(") == 3 and "TODO(migrate): unsupported-api" not in text
    assert "tf.compat.v1.train.SummarySaverHook(" in text
    assert "estimator_hooks.Profiler(save_steps=5, " in text
    assert "class OomReportingHook(tf_keras.callbacks.Callback):" in text  # (RunOptions that only report an OOM)
    model_dir = estimator_start(estimator_dir, tmp_path / "model")
    record = tmp_path / "record.json"
    completed = run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--record", record])

    expected, got = (json.loads(path.read_text()) for path in (estimator_dir / "record.json", record))
    assert [r["step"] for r in expected["train"]] == list(range(1, 13))  # the hook's stop at 12 (no limit given)
    assert expected["flags"] == [False] * 8 + [True] * 4  # raised by its own assign op after step 8
    assert got == expected
    # train's LoggingTensorHook (every_n_iter=4: steps 1, 5, 9) logs before the model_fn's (every 5: steps 1, 6, 11),
    # the same numbers as printed
    assert [float(loss) for loss in estimator_logged] == pytest.approx(
        [expected["train"][step - 1]["loss"] for step in (1, 1, 5, 6, 9, 11)], rel=1e-6)
    assert LOGGED_LOSS.findall(completed.stderr) == estimator_logged
    # the global step variable, logged as the Estimator's graph logged it (a wrapped model_fn's variables are made
    # outside its graph: the hook logs the graph's read of it)
    assert _steps_as_logged_by_tf1(LOGGED_STEP.findall(completed.stderr)), completed.stderr
    # The ProfilerHook traced the same steps: TF1's Chrome traces, TF2's profiles of the step with the model's ops.
    # (TF1's hook names a trace by the step it fetched with the train op, unordered with its increment: 5 and 10,
    # now and then one less, as in a clean-clone run where the Estimator wrote timeline-4 and timeline-9.)
    traced = sorted(int(path.stem.split("-")[1]) for path in (estimator_dir / "profile").glob("timeline-*.json"))
    assert len(traced) == 2 and traced[0] in (4, 5) and traced[1] in (9, 10), traced
    traces = {path.parts[-5]: path.read_bytes() for path in (model_dir / "profile").glob("*/plugins/profile/*/*.xplane.pb")}
    assert sorted(traces) == ["step_10", "step_5"] and all(b"MatMul" in trace for trace in traces.values())
    # The model_fn's summaries and Estimator's loss, every 5 steps from the first (1, 6, 11; of 12), in model_dir:
    # the same values (Estimator's step read could race its increment: compared where both wrote)
    expected_summaries, got_summaries = _summaries(estimator_dir), _summaries(model_dir)
    assert sorted(got_summaries) == sorted(expected_summaries) == ["hidden_1", "loss", "mean_logit"]  # ("hidden": a scope)
    assert sorted(got_summaries["loss"]) == [1, 6, 11] and 1 in expected_summaries["loss"]
    for tag, by_step in got_summaries.items():
        assert by_step.keys() == got_summaries["loss"].keys()
        for step in by_step.keys() & expected_summaries[tag].keys():
            assert by_step[step] == expected_summaries[tag][step], (tag, step)
    assert got_summaries["loss"][1] == pytest.approx(expected["train"][0]["loss"], rel=1e-6)
    # TF1's SummarySaverHook, run as it is: the model_fn's summaries (merge_all: not the loss Estimator added after
    # it) every 3 steps from the first, in its own directory. Its timer counts from the step it fetched with the train
    # op, a read racing the step's increment under Estimator as in the migrated graph: a race writes one step early
    # (a CI run wrote 1, 4, 6, 9, 12 where the Estimator wrote 1, 4, 7, 10). Each written value is that step's, and
    # equal to the Estimator's where both wrote.
    expected_hooked, got_hooked = _summaries(estimator_dir / "hook_summaries"), _summaries(model_dir / "hook_summaries")
    assert sorted(got_hooked) == sorted(expected_hooked) == ["hidden_1", "mean_logit"]
    for tag, by_step in [*got_hooked.items(), *expected_hooked.items()]:
        assert _racing_cadence(sorted(by_step), every=3, last=12), (tag, sorted(by_step))
    for step, value in got_hooked["mean_logit"].items():
        assert value == pytest.approx(expected["train"][step - 1]["mean_logit"], rel=1e-6), step
    for tag, by_step in got_hooked.items():
        for step in by_step.keys() & expected_hooked[tag].keys():
            assert by_step[step] == expected_hooked[tag][step], (tag, step)
    reference = LegacyCheckpoint(estimator_dir / "model.ckpt-12")
    migrated_variables = tf1_variables_in(tf.train.latest_checkpoint(str(model_dir)))
    assert "signal_early_stopping/STOP" in reference.shapes
    assert set(migrated_variables) == set(reference.shapes)
    for name, value in migrated_variables.items():
        np.testing.assert_allclose(value, reference.read(name), rtol=0, atol=1e-5, err_msg=name)
