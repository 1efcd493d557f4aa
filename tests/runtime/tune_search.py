"""A Ray Tune search over a migrated Estimator program, run by tests/test_ray_tune.py on a local Ray cluster.

Trials of a migrated tests/legacy/tune_trial_program.py, one per `--learning_rates` (default 0.05, 0.05 and 0.2),
one seed. The first trial's process is SIGKILLed right after its backup at `--kill_step` is written, before
Tune hears of it (`--kill_step 0`: never); FailureConfig(max_failures=1) restarts it from its last reported
checkpoint. The second trial is the first one's uninterrupted twin. `--pause_step` holds the first trial still
right after its backup at that step is written, before Tune hears of it, so that a test can kill the driver
there; `--restore` finishes a search whose driver died, with `Tuner.restore`. Prints the trials' results as one
line of JSON.
"""

from __future__ import annotations

import argparse
import json
import os

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # a tf_keras program: docs/exact-resume.md's advice

import ray
from ray import tune

from estimator_migrate.compat import backup_listeners, ray_checkpoints
from tests.runtime.backup_faults import KillAfterBackup, PauseAfterBackup


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--program", required=True)
    parser.add_argument("--storage", required=True)
    parser.add_argument("--kill_step", type=int, default=60)
    parser.add_argument("--kill_marker")
    parser.add_argument("--pause_step", type=int, default=0)
    parser.add_argument("--restore", action="store_true", help="finish the search stored under --storage")
    parser.add_argument("--learning_rates", type=float, nargs="+", default=[0.05, 0.05, 0.2])
    args = parser.parse_args()

    program = ray_checkpoints.program_trainable(args.program, arguments=["--max_steps", "120", "--seed", "7"])

    def trainable(config):
        first_trial = tune.get_context().get_trial_id().endswith("_00000")
        first_attempt = first_trial and tune.get_checkpoint() is None
        if args.kill_step and first_attempt:
            with backup_listeners.listening(KillAfterBackup(args.kill_step, args.kill_marker)):
                return program(config)
        if args.pause_step and first_attempt:
            with backup_listeners.listening(PauseAfterBackup(args.pause_step)):
                return program(config)
        return program(config)

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    if args.restore:
        tuner = tune.Tuner.restore(os.path.join(args.storage, "search"), trainable, resume_unfinished=True)
    else:
        tuner = _new_tuner(trainable, args)
    results = [
        {"config": result.config, "metrics": result.metrics, "error": None if result.error is None else str(result.error),
         "checkpoint": None if result.checkpoint is None else result.checkpoint.path, "path": result.path}
        for result in tuner.fit()
    ]
    print(json.dumps(results))


def _new_tuner(trainable, args) -> tune.Tuner:
    return tune.Tuner(
        trainable,
        param_space={"learning_rate": tune.grid_search(args.learning_rates)},
        tune_config=tune.TuneConfig(reuse_actors=False),
        run_config=tune.RunConfig(
            name="search", storage_path=args.storage, verbose=0,
            failure_config=tune.FailureConfig(max_failures=1),
        ),
    )


if __name__ == "__main__":
    main()
