"""`train_and_evaluate` migrated, against the real thing: tests/legacy/train_and_evaluate_program.py runs under
the Estimator (legacy env) and, rewritten, under both targets from the Estimator's own step 0 (converted).

Two runs: to max_steps=20, and to max_steps=40 ended early by `stop_if_higher_hook` (accuracy above 0.65,
checked every step). Each has the same evaluation schedule as the Estimator (after every checkpoint save,
as the eval summaries in model_dir/eval show), the same metrics at each evaluated step, the same final step
and the same returned metrics, within METRICS_RTOL. Run again once finished, the first returns no metrics
in both (nothing trained, nothing evaluated). The EvalSpec's exporters export as the Estimator's did: the
LatestExporter after every evaluation (the newest 2 kept in model_dir/export/latest), the FinalExporter
only when the evaluated step reached max_steps (not in the early-stopped run), the BestExporter as often as
the Estimator's (accuracy compared), and the exports returned have the same signatures and serve the same
logits.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

from estimator_migrate.compat.convert import convert_checkpoint
from tests.conftest import (
    MODERN_PYTHON,
    QUIET_TF,
    ROOT,
    estimator_start,
    listed_checkpoint_steps,
    migrate_file,
    run,
    run_wrapped_from_estimator_start,
    wrapped_reference,
)

# On one xdist worker (--dist loadgroup): the module's reference runs (module fixtures) are made once.
pytestmark = [pytest.mark.slow, pytest.mark.legacy, pytest.mark.xdist_group("train_and_evaluate")]
PROGRAM = ROOT / "tests" / "legacy" / "train_and_evaluate_program.py"
METRICS_RTOL = 1e-4  # weights agree within 1e-5 (tests/test_canned_equivalence.py); metrics follow
# name -> (program arguments, steps evaluated, final step)
RUNS = {
    "to_max_steps": (["--max_steps", 20], [5, 10, 15, 20], 20),
    "early_stopped": (["--max_steps", 40, "--stop_above_accuracy", 0.65], [5, 10], 10),
}


def evaluations(eval_dir: Path) -> dict[int, dict[str, float]]:
    """The metrics written to model_dir/eval, by step."""
    found: dict[int, dict[str, float]] = {}
    for events in sorted(eval_dir.glob("events.out.tfevents.*")):
        for event in tf.compat.v1.train.summary_iterator(str(events)):
            for value in event.summary.value:
                number = value.simple_value if value.HasField("simple_value") else tf.make_ndarray(value.tensor)
                if not isinstance(number, bytes | np.ndarray) or number.dtype.kind == "f":  # not the ckpt path
                    found.setdefault(event.step, {})[value.tag] = float(number)
    return found


def train_and_evaluate(python, program: Path, model_dir: Path, metrics_out: Path, arguments) -> dict | None:
    run([python, program, "--model_dir", model_dir, "--metrics_out", metrics_out, *arguments])
    return json.loads(metrics_out.read_text())


def assert_metrics_close(actual: dict, expected: dict, where: str) -> None:
    assert sorted(actual) == sorted(expected), where
    for key, value in expected.items():
        assert actual[key] == pytest.approx(value, rel=METRICS_RTOL, abs=1e-6), f"{where}: {key}"


# The Estimator's early-stopping hook reads the step in the same session.run as the train op, unordered: now
# and then it stops one step late (docs/migration.md, make_early_stopping_hook). That race is the reference's,
# not the migration's: its run is repeated (at most this many times) until it stops where the hook asked.
REFERENCE_ATTEMPTS = 3


@pytest.fixture(scope="module")
def estimator_runs(legacy_python, tmp_path_factory):
    runs = {}
    for name, (arguments, _, final_step) in RUNS.items():
        for _ in range(REFERENCE_ATTEMPTS):
            work = tmp_path_factory.mktemp(name)
            metrics = train_and_evaluate(legacy_python, PROGRAM, work / "model", work / "metrics.json", arguments)
            if metrics["metrics"]["global_step"] == final_step:
                break
        again = None
        if name == "to_max_steps":  # after an early stop a re-run trains a step, evaluates and stops again
            again = train_and_evaluate(legacy_python, PROGRAM, work / "model", work / "again.json", arguments)
        runs[name] = (work / "model", metrics, again)
    return runs


@pytest.mark.parametrize("run_name", sorted(RUNS))
@pytest.mark.parametrize("target", ["keras", "loop"])
def test_train_and_evaluate_evaluates_as_the_estimator(target, run_name, estimator_runs, tmp_path):
    arguments, evaluated_steps, final_step = RUNS[run_name]
    estimator_dir, estimator_metrics, estimator_again = estimator_runs[run_name]
    model_dir = tmp_path / "model"
    convert_checkpoint(estimator_dir / "model.ckpt-0", out=model_dir)
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    assert "train_and_evaluate(" not in migrated.read_text()

    result = train_and_evaluate(MODERN_PYTHON, migrated, model_dir, tmp_path / "metrics.json", arguments)
    metrics = result["metrics"]
    assert estimator_metrics["metrics"]["global_step"] == metrics["global_step"] == final_step
    assert_metrics_close(metrics, estimator_metrics["metrics"], "returned metrics")
    _assert_same_exports(result["exports"], estimator_metrics["exports"], model_dir, estimator_dir, final_step)

    expected, actual = evaluations(estimator_dir / "eval"), evaluations(model_dir / "eval")
    assert sorted(expected) == evaluated_steps
    assert sorted(actual) == sorted(expected)
    for step, values in expected.items():
        assert len(values) >= 10  # every head metric, not only the loss
        assert_metrics_close(actual[step], values, f"eval summaries at step {step}")
    # model_dir keeps checkpoints of the Estimator's steps (compat.kept_checkpoints), not only the last one
    assert listed_checkpoint_steps(model_dir) == listed_checkpoint_steps(estimator_dir)

    if run_name == "to_max_steps":  # finished: Estimator trains nothing and evaluates nothing
        assert estimator_again is None
        assert train_and_evaluate(MODERN_PYTHON, migrated, model_dir, tmp_path / "again.json", arguments) is None


def _assert_same_exports(exports, estimator_exports, model_dir: Path, estimator_dir: Path, final_step: int) -> None:
    """[LatestExporter's, FinalExporter's, BestExporter's] returned exports and the export directories, as the
    Estimator's."""
    final_exported = final_step == 20  # the early-stopped run never reached max_steps
    for name, kept in (("latest", 2), ("final", 1 if final_exported else 0), ("best", None)):
        versions = [sorted(p.name for p in (d / "export" / name).glob("[0-9]" * 10)) for d in (model_dir, estimator_dir)]
        assert len(versions[0]) == len(versions[1]) == (kept if kept is not None else len(versions[1])), name
    assert len(exports) == len(estimator_exports) == 3
    assert (exports[1] is None) == (estimator_exports[1] is None) == (not final_exported)
    assert (exports[2] is None) == (estimator_exports[2] is None)
    for served, expected in zip(exports, estimator_exports):
        if expected is not None:
            assert served["signatures"] == expected["signatures"] == ["classification", "predict", "regression",
                                                                      "serving_default"]
            np.testing.assert_allclose(served["logits"], expected["logits"], rtol=METRICS_RTOL, atol=1e-5)


READ_WITH_ESTIMATOR = """
import json, sys
import tensorflow as tf
from tensorflow_estimator.python.estimator.early_stopping import read_eval_metrics
metrics = read_eval_metrics(sys.argv[1])
print(json.dumps({step: {tag: float(value) for tag, value in found.items()} for step, found in metrics.items()}))
"""


def test_compat_read_eval_metrics_reads_what_the_estimators_reads(legacy_python, estimator_runs):
    """The rewrite replaces tf.estimator.experimental.read_eval_metrics with compat.estimator_hooks'."""
    from estimator_migrate.compat.estimator_hooks import read_eval_metrics

    eval_dir = estimator_runs["to_max_steps"][0] / "eval"
    printed = subprocess.run(
        [legacy_python, "-c", READ_WITH_ESTIMATOR, eval_dir], capture_output=True, text=True, check=True, env=QUIET_TF
    ).stdout
    expected = {int(step): found for step, found in json.loads(printed.strip().splitlines()[-1]).items()}
    assert sorted(expected) == RUNS["to_max_steps"][1]
    assert read_eval_metrics(str(eval_dir)) == expected


HELPER_PROGRAM = ROOT / "tests" / "legacy" / "early_stopping_helper_program.py"


@pytest.mark.parametrize(("target", "start"), [("keras", "converted"), ("loop", "estimator_checkpoint")])
def test_an_early_stopping_hook_built_by_a_helper_stops_where_the_estimators_did(target, start, legacy_python,
                                                                                 tmp_path):
    """early_stopping_helper_program.py: `stop_if_higher_hook(estimator=estimator, ...)` in a helper given the
    estimator becomes compat.estimator_early_stopping's (the estimator checked when the program runs); from the Estimator's
    model.ckpt-0 (converted, or as the Estimator left it: with its hook's `signal_early_stopping/STOP` flag, which
    the migrated program skips) the migrated run stops at the Estimator's step (10) with its metrics."""
    for attempt in range(REFERENCE_ATTEMPTS):  # (the Estimator's hook may stop a step late: see above)
        estimator_dir = tmp_path / f"estimator{attempt}"
        expected = train_and_evaluate(legacy_python, HELPER_PROGRAM, estimator_dir, tmp_path / "estimator.json", [])
        if expected["global_step"] == 10:
            break
    model_dir = tmp_path / "model"
    if start == "converted":
        convert_checkpoint(estimator_dir / "model.ckpt-0", out=model_dir)
    else:
        assert "signal_early_stopping/STOP" in dict(tf.train.list_variables(str(estimator_dir / "model.ckpt-0")))
        estimator_start(estimator_dir, model_dir)
    migrated = migrate_file(HELPER_PROGRAM, tmp_path / "migrated", target)
    assert "estimator_early_stopping.stop_if_higher_hook(" in migrated.read_text()
    got = train_and_evaluate(MODERN_PYTHON, migrated, model_dir, tmp_path / "metrics.json", [])
    assert got["global_step"] == expected["global_step"] == 10
    assert_metrics_close(got, expected, "returned metrics")


MODEL_FN_PROGRAM = ROOT / "tests" / "legacy" / "early_stopping_model_fn_program.py"


def test_a_kept_model_fn_continues_from_an_estimator_checkpoint_holding_the_early_stopping_flag(legacy_python,
                                                                                                 tmp_path):
    """early_stopping_model_fn_program.py: a model_fn kept as written, started on the Estimator's model.ckpt-0 as
    the Estimator left it (with `signal_early_stopping/STOP`, no variable of the model_fn), trains to the
    Estimator's step with its metrics."""
    estimator_dir = wrapped_reference(legacy_python, MODEL_FN_PROGRAM, tmp_path / "estimator", 30)
    assert "signal_early_stopping/STOP" in dict(tf.train.list_variables(str(estimator_dir / "model.ckpt-0")))
    _, _, results = run_wrapped_from_estimator_start(MODEL_FN_PROGRAM, estimator_dir, "keras", tmp_path / "run", 30)
    expected, got = (json.loads(path.read_text()) for path in (estimator_dir / "results.json", results))
    assert got["global_step"] == expected["global_step"] == 30
    assert got == pytest.approx(expected, rel=1e-5)


def test_compat_early_stopping_hooks_check_their_estimator(tmp_path):
    """compat.estimator_early_stopping's hooks stop a migrated estimator's training, reading its model_dir/eval unless given
    eval_dir; anything else is one error naming what it is."""
    import tensorflow as tf

    from estimator_migrate.compat import canned, estimator_early_stopping, estimator_training

    model = estimator_training.configure(canned.linear_classifier([tf.feature_column.numeric_column("x")]),
                                         model_dir=str(tmp_path))
    hook = estimator_early_stopping.stop_if_no_decrease_hook(model, "loss", 10, run_every_secs=None, run_every_steps=1)
    assert hook.eval_dir == str(tmp_path / "eval")
    assert estimator_early_stopping.stop_if_lower_hook(model, "loss", 0.5, eval_dir="/elsewhere").eval_dir == "/elsewhere"
    with pytest.raises(TypeError, match="stop_if_higher_hook.*is not a migrated estimator"):
        estimator_early_stopping.stop_if_higher_hook(object(), "accuracy", 0.9)
    # compat.estimator_hooks' own hooks take the directory the rewrite resolved: a None there is one error
    from estimator_migrate.compat import estimator_hooks

    with pytest.raises(ValueError, match="eval_dir is None.*estimator.eval_dir"):
        estimator_hooks.stop_if_no_decrease_hook(None, "loss", 10)
