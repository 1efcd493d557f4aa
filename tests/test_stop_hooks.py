"""Train calls ended by StopAtStepHook or by the end of their input, migrated, against the real Estimator:
tests/legacy/stop_hooks_program.py runs under the Estimator (legacy env) and, rewritten, under both targets
from the Estimator's own step 0 (converted). Each call ends where the Estimator's did (steps 12, 15, 33, and 37
for a call given no limit over an endless input, which fit refuses unless its length is made unknown),
and the final weights are the Estimator's within 1e-5 (so the same batches were trained). A StepCounterHook
in the first call writes global_step/sec at the same steps as the Estimator's (6 and 11).

The program's second estimator trains with make_early_stopping_hook(run_every_steps=4) whose should_stop_fn
says yes when asked the third time. The migrated callback asks after steps 1, 5 and 9 and stops at 9. The
Estimator's hook reads the global step in the same session.run as the train op, unordered, so it sees the
value before or after the step: measured, it stopped at 9 in three runs out of four and at 10 in one, and at 8
once under load (each of its three checks may see the step before or after).

The program's own StepReport hook fetches the global step with each step (SessionRunArgs) and at each call's
end (session.run), StepEcho the same by `get_global_step()` itself, and also by `run_context.session.run` in
after_run (once the step ran: the new value, no race); migrated, each becomes a callback reading the step counter
before the step (after it, for after_run's session.run). The Estimator's
reads race the step's increment the same way: measured, most see the value before the step, some the one
after (0, 2, 2, 3, ...). The migrated callback sees the value before the step, every time, and the same end
values."""

from __future__ import annotations

import pytest

from estimator_migrate.compat.estimator_hooks import read_eval_metrics
from tests.conftest import ROOT, assert_matches_estimator_checkpoint, run, run_migrated_from_estimator_start

# On one xdist worker (--dist loadgroup): the module's reference runs (module fixtures) are made once.
pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("stop_hooks")]
PROGRAM = ROOT / "tests" / "legacy" / "stop_hooks_program.py"
CALL_ENDS = [12, 15, 33, 37]
EARLY_STOP = 9
STEPS_COUNTED = [6, 11]  # StepCounterHook(every_n_steps=5): counting from step 1, the first call ends at 12


def checkpoint_steps(model_dir, prefix: str) -> set[int]:
    return {int(path.name[len(prefix) :].split(".")[0]) for path in model_dir.glob(f"{prefix}*.index")}


@pytest.fixture(scope="module")
def estimator_dir(legacy_python, tmp_path_factory):
    model_dir = tmp_path_factory.mktemp("estimator") / "model"
    run([legacy_python, PROGRAM, "--model_dir", model_dir])
    assert checkpoint_steps(model_dir, "model.ckpt-") >= {0, *CALL_ENDS}
    assert checkpoint_steps(model_dir / "early_stopped", "model.ckpt-") in (
        {0, EARLY_STOP - 1}, {0, EARLY_STOP}, {0, EARLY_STOP + 1}
    )
    assert_steps_counted(model_dir / "step_counter")
    for hook in ("StepReport", "StepEcho"):
        fetched, ends = fetched_steps(model_dir, hook)
        assert ends == [12, 15]
        assert len(fetched) == len(FETCHED) and all(seen in (before, before + 1) for seen, before in zip(fetched, FETCHED))
    assert steps_after(model_dir) == [step + 1 for step in FETCHED]  # a session.run after the step: no race
    return model_dir


# The global step StepReport fetched with each step: the value before it, over the calls to 12 and to 15
FETCHED = [*range(12), *range(12, 15)]


def fetched_steps(model_dir, hook: str = "StepReport") -> tuple[list[int], list[int]]:
    """The steps StepReport (or StepEcho) wrote: fetched with each step, and at each call's end."""
    fetched, end = ("fetched", "end") if hook == "StepReport" else ("echo", "echo_end")
    lines = [line.split() for line in (model_dir / "fetched_steps.txt").read_text().splitlines()]
    return [int(n) for what, n in lines if what == fetched], [int(n) for what, n in lines if what == end]


def steps_after(model_dir) -> list[int]:
    """The steps StepEcho read with `run_context.session.run(get_global_step())` in after_run, once each step ran."""
    lines = [line.split() for line in (model_dir / "fetched_steps.txt").read_text().splitlines()]
    return [int(n) for what, n in lines if what == "echo_after"]


def assert_steps_counted(output_dir) -> None:
    """global_step/sec written at the steps the Estimator's StepCounterHook wrote it, and nothing else."""
    counted = read_eval_metrics(str(output_dir))
    assert sorted(counted) == STEPS_COUNTED
    assert all(list(found) == ["global_step/sec"] and found["global_step/sec"] > 0 for found in counted.values())


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_train_calls_stop_where_the_estimators_did(target, estimator_dir, tmp_path):
    migrated, model_dir = run_migrated_from_estimator_start(PROGRAM, estimator_dir, target, tmp_path)
    assert "StopAtStepHook" not in migrated.read_text().split('"""', 2)[2]
    assert checkpoint_steps(model_dir, "ckpt-") >= set(CALL_ENDS)  # each call's final save
    assert_matches_estimator_checkpoint(model_dir, estimator_dir, CALL_ENDS[-1])
    assert "make_early_stopping_hook(should_stop_fn=stop_on_third_check" in migrated.read_text()
    assert max(checkpoint_steps(model_dir / "early_stopped", "ckpt-")) == EARLY_STOP
    assert_steps_counted(model_dir / "step_counter")
    assert "class StepReport(tf_keras.callbacks.Callback)" in migrated.read_text()
    assert fetched_steps(model_dir) == (FETCHED, [12, 15])
    assert "class StepEcho(tf_keras.callbacks.Callback)" in migrated.read_text()
    assert fetched_steps(model_dir, "StepEcho") == (FETCHED, [12, 15])  # get_global_step() fetched itself
    assert steps_after(model_dir) == [step + 1 for step in FETCHED]
    triggered = [int(line.split()[1]) for line in (model_dir / "fetched_steps.txt").read_text().splitlines()
                 if line.startswith("triggered")]
    assert triggered == [0, 5, 10]  # SecondOrStepTimer(every_steps=5) on the fetched values, as in TF1
