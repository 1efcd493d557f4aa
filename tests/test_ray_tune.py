"""Migrated Estimator programs as Ray Tune trials (compat.ray_checkpoints), on a real local Ray cluster.

tests/runtime/tune_search.py runs three trials of tests/legacy/tune_trial_program.py, migrated with --exact:
learning rates 0.05, 0.05 and 0.2, one seed. The first trial's process is SIGKILLed right after its backup at
step 60 is written and before Tune hears of it; Tune restarts it (FailureConfig(max_failures=1)) from its last
reported checkpoint (step 40), whose files replace the trial's model_dir. It must end with the weights of its
uninterrupted twin, the second trial: max |dw| = 0. The loop target (run-time tier, whose CheckpointManager saves
in model_dir are what it reports; no exact resume there yet) restarts from step 40 and ends at step 120.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import MODERN_PYTHON, ROOT, migrate_file, run

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray_tune")]


def _final_weights(checkpoint_dir: str) -> dict:
    reader = tf.train.load_checkpoint(tf.train.latest_checkpoint(checkpoint_dir))
    names = [name for name in reader.get_variable_to_shape_map() if name != "_CHECKPOINTABLE_OBJECT_GRAPH"]
    return {name: np.asarray(reader.get_tensor(name), dtype=np.float64) for name in names}


def _steps_after_restart(trial: dict) -> list[int]:
    """The global steps a trial reported since Tune last (re)started it, from its result.json."""
    with open(os.path.join(trial["path"], "result.json")) as results:
        reported = [json.loads(line) for line in results if line.strip()]
    restart = max(index for index, result in enumerate(reported) if result["iterations_since_restore"] == 1)
    return [result["global_step"] for result in reported[restart:]]


def _max_difference(a: dict, b: dict) -> float:
    assert sorted(a) == sorted(b)
    return max(float(np.max(np.abs(a[name] - b[name]))) for name in a)


def _search(tmp_path, target: str, *options: str) -> dict:
    """Run tests/runtime/tune_search.py on the program migrated for `target`; its trials by number."""
    program = migrate_file(ROOT / "tests" / "legacy" / "tune_trial_program.py", tmp_path / "migrated", target, "--exact")
    completed = run(
        [MODERN_PYTHON, "-m", "tests.runtime.tune_search", "--program", program, "--storage", tmp_path / "storage",
         "--kill_step", "60", "--kill_marker", tmp_path / "killed", *options],
        timeout=1200, cwd=ROOT,
    )
    return {result["metrics"]["trial_id"].rsplit("_", 1)[1]: result
            for result in json.loads(completed.stdout.strip().splitlines()[-1])}


def test_a_killed_trial_resumes_from_its_reported_checkpoint_bit_exactly(tmp_path):
    trials = _search(tmp_path, "keras")
    marker = tmp_path / "killed"
    assert sorted(trials) == ["00000", "00001", "00002"]
    for trial in trials.values():
        assert trial["error"] is None
        assert trial["metrics"]["global_step"] == 120 and trial["metrics"]["done"]
        assert 0.5 < trial["metrics"]["eval"]["accuracy"] <= 1.0

    assert marker.read_text().split()[1] == "60"  # the first attempt died where the test killed it
    killed, twin, other = trials["00000"], trials["00001"], trials["00002"]
    # Restarted from step 40 (the kill came before step 60 was reported): backups at 60, 80 and 100, the final save
    # (fit's last step makes no backup: it would be deleted at once) and the program's end
    assert _steps_after_restart(killed) == [60, 80, 100, 120, 120]
    assert _max_difference(_final_weights(killed["checkpoint"]), _final_weights(twin["checkpoint"])) == 0.0
    assert _max_difference(_final_weights(killed["checkpoint"]), _final_weights(other["checkpoint"])) > 0.01


def test_a_killed_trial_of_the_loop_target_resumes_from_its_reported_checkpoint(tmp_path):
    # The run-time tier's loop target saves with its CheckpointManager in model_dir (no exact resume there yet:
    # its --exact is a TODO, so only the step is compared)
    (trial,) = _search(tmp_path, "loop", "--learning_rates", "0.05").values()
    assert trial["error"] is None
    assert trial["metrics"]["global_step"] == 120 and trial["metrics"]["done"]
    assert (tmp_path / "killed").read_text().split()[1] == "60"
    # the restored step saved again at its start (as Estimator did), saves at 60 to 120, the program's end
    assert _steps_after_restart(trial) == [40, 60, 80, 100, 120, 120]
