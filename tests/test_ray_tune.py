"""Migrated Estimator programs as Ray Tune trials (compat.ray_checkpoints), on a real local Ray cluster.

tests/runtime/tune_search.py runs three trials of tests/legacy/tune_trial_program.py, migrated with --exact:
learning rates 0.05, 0.05 and 0.2, one seed. The first trial's process is SIGKILLed right after its backup at
step 60 is written and before Tune hears of it; Tune restarts it (FailureConfig(max_failures=1)) from its last
reported checkpoint (step 40), whose files replace the trial's model_dir. It must end with the weights of its
uninterrupted twin, the second trial: max |dw| = 0.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import MODERN_PYTHON, ROOT, migrate_file, run

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray_tune")]


def _final_weights(checkpoint_dir: str) -> dict:
    reader = tf.train.load_checkpoint(tf.train.latest_checkpoint(checkpoint_dir))
    names = [name for name in reader.get_variable_to_shape_map() if name != "_CHECKPOINTABLE_OBJECT_GRAPH"]
    return {name: np.asarray(reader.get_tensor(name), dtype=np.float64) for name in names}


def _max_difference(a: dict, b: dict) -> float:
    assert sorted(a) == sorted(b)
    return max(float(np.max(np.abs(a[name] - b[name]))) for name in a)


def test_a_killed_trial_resumes_from_its_reported_checkpoint_bit_exactly(tmp_path):
    program = migrate_file(ROOT / "tests" / "legacy" / "tune_trial_program.py", tmp_path / "migrated", "keras", "--exact")
    marker = tmp_path / "killed"
    completed = run(
        [MODERN_PYTHON, "-m", "tests.runtime.tune_search", "--program", program, "--storage", tmp_path / "storage",
         "--kill_step", "60", "--kill_marker", marker],
        timeout=1200, cwd=ROOT,
    )
    trials = {result["metrics"]["trial_id"].rsplit("_", 1)[1]: result
              for result in json.loads(completed.stdout.strip().splitlines()[-1])}
    assert sorted(trials) == ["00000", "00001", "00002"]
    for trial in trials.values():
        assert trial["error"] is None
        assert trial["metrics"]["global_step"] == 120 and trial["metrics"]["done"]
        assert 0.5 < trial["metrics"]["eval"]["accuracy"] <= 1.0

    assert marker.read_text().split()[1] == "60"  # the first attempt died where the test killed it
    killed, twin, other = trials["00000"], trials["00001"], trials["00002"]
    # Restarted from step 40, it reported 60, 80, 100, 120 and its end; the twin reported from 20 on.
    assert killed["metrics"]["iterations_since_restore"] == twin["metrics"]["iterations_since_restore"] - 2
    assert _max_difference(_final_weights(killed["checkpoint"]), _final_weights(twin["checkpoint"])) == 0.0
    assert _max_difference(_final_weights(killed["checkpoint"]), _final_weights(other["checkpoint"])) > 0.01
