"""A Ray Train run of a migrated Estimator program on two workers, run by tests/test_ray_train.py on a local Ray
cluster.

`TensorflowTrainer` with `ScalingConfig(num_workers=2)` runs tests/legacy/train_workers_program.py, migrated, on
both workers (`compat.ray_checkpoints.program_train_loop`; Ray sets TF_CONFIG, the program's
MultiWorkerMirroredStrategy reads it). With `--kill_step N` worker 1's process is SIGKILLed right after its backup
at step N is written, before it reports; `FailureConfig(max_failures=1)` restarts the group from the last
checkpoint. `--tf_random_seed` is passed on to the program. Rank 0 appends "<attempt> <step>" to `--reported` for each report it makes. Prints the result as one
line of JSON.
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # a tf_keras program: docs/exact-resume.md's advice

import argparse
import contextlib
import json

import ray
from ray import train
from ray.train.tensorflow import TensorflowTrainer

from estimator_migrate.compat import backup_listeners, ray_checkpoints
from tests.runtime.backup_faults import KillAfterBackup, ReportLog


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--program", required=True)
    parser.add_argument("--storage", required=True)
    parser.add_argument("--work_dir", required=True)
    parser.add_argument("--reported", required=True)
    parser.add_argument("--kill_step", type=int, default=0)
    parser.add_argument("--tf_random_seed", type=int, default=None, help="the program's flag, if given")
    args = parser.parse_args()

    program = ray_checkpoints.program_train_loop(args.program, arguments=["--max_steps", "120"], work_dir=args.work_dir)

    def train_loop(config):
        rank = train.get_context().get_world_rank()
        attempt = 0 if train.get_checkpoint() is None else 1
        listeners = []
        if rank == 0:
            listeners.append(ReportLog(args.reported, attempt))
        if rank == 1 and attempt == 0 and args.kill_step:
            listeners.append(KillAfterBackup(args.kill_step))
        with contextlib.ExitStack() as stack:
            for listener in listeners:
                stack.enter_context(backup_listeners.listening(listener))
            program(config)

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    trainer = TensorflowTrainer(
        train_loop,
        train_loop_config={"learning_rate": 0.05,
                           **({} if args.tf_random_seed is None else {"tf_random_seed": args.tf_random_seed})},
        scaling_config=train.ScalingConfig(num_workers=2),
        run_config=train.RunConfig(name="workers", storage_path=args.storage,
                                   failure_config=train.FailureConfig(max_failures=1)),
    )
    result = trainer.fit()
    print(json.dumps({"metrics": result.metrics, "error": None if result.error is None else str(result.error),
                      "checkpoint": None if result.checkpoint is None else result.checkpoint.path}))


if __name__ == "__main__":
    main()
