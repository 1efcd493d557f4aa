"""A migrated Estimator program as the workers of Ray Train's TensorflowTrainer (compat.ray_checkpoints), on a
real local Ray cluster.

tests/runtime/train_workers.py runs tests/legacy/train_workers_program.py (its RunConfig trains under
MultiWorkerMirroredStrategy, with a tf_random_seed flag), migrated for the keras target with `--exact`, on two
workers; worker 1's process is SIGKILLed right after its backup at step 60 is written and before it reports. Rank 0
had written and reported its own step-60 backup, but Ray registers a checkpoint only once every worker has reported
it: the group restarts from the last one Ray had registered (step 40, or 20 when the kill came before Ray's
controller had gathered the reports of 40) and ends at step 120, having reported the same steps on both workers
(Ray Train's report is a barrier: a worker reporting fewer times would hang the run). The checkpoints Ray keeps are
rank 0's model_dir only, and its final weights are bit-identical to those of the same two-worker run uninterrupted
(max |dw| = 0): the restarted workers went on with the batches and the weights they would have had.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import MODERN_PYTHON, ROOT, migrate_file, run

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray_train")]


def _train(program, run_dir, *options):
    reported = run_dir / "reported"
    completed = run(
        [MODERN_PYTHON, "-m", "tests.runtime.train_workers", "--program", program, "--storage", run_dir / "storage",
         "--work_dir", run_dir / "work", "--reported", reported, "--tf_random_seed", "3", *options],
        timeout=1200, cwd=ROOT,
    )
    result = json.loads(completed.stdout.strip().splitlines()[-1])
    assert result["error"] is None
    attempts = [line.split() for line in reported.read_text().splitlines()]
    return result, attempts


def _weights(checkpoint_dir) -> dict[str, np.ndarray]:
    reader = tf.train.load_checkpoint(tf.train.latest_checkpoint(checkpoint_dir))
    return {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()
            if name.startswith("model/") and "OPTIMIZER_SLOT" not in name}


def test_a_killed_worker_restarts_the_group_from_the_last_checkpoint_bit_exactly(tmp_path):
    program = migrate_file(ROOT / "tests" / "legacy" / "train_workers_program.py", tmp_path / "migrated", "keras",
                           "--exact")
    result, attempts = _train(program, tmp_path / "killed", "--kill_step", "60")
    assert result["metrics"]["global_step"] == 120 and result["metrics"]["done"]
    assert 0.5 < result["metrics"]["eval"]["accuracy"] <= 1.0
    assert [int(step) for attempt, step in attempts if attempt == "0"] == [20, 40, 60]
    after_restart = [int(step) for attempt, step in attempts if attempt == "1"]
    resumed_from = after_restart[0] - 20
    assert resumed_from in (20, 40)  # a checkpoint both workers had reported; not from scratch
    # then every 20 steps, and the final report (the exact backups end with the training; its final save is in
    # model_dir, as the Estimator's last checkpoint was)
    assert after_restart == [*range(resumed_from + 20, 120, 20), 120]
    final = tf.train.latest_checkpoint(result["checkpoint"])
    assert final is not None and final.endswith("ckpt-120")
    # rank 0's model_dir is what Ray keeps; worker 1's own directory stays with worker 1
    assert sorted(p.name for p in (tmp_path / "killed" / "work").iterdir()) == ["worker_0", "worker_1"]

    uninterrupted, _ = _train(program, tmp_path / "uninterrupted")
    resumed, reference = _weights(result["checkpoint"]), _weights(uninterrupted["checkpoint"])
    assert resumed.keys() == reference.keys() and len(resumed) >= 4
    assert max(float(np.max(np.abs(resumed[name] - reference[name]))) for name in reference) == 0.0
