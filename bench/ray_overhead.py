"""Benchmark: what reporting checkpoints to Ray Tune costs a migrated program, ours against the seed's way.

    PYTHONPATH=. .venv/bin/python bench/ray_overhead.py [--max_steps 2020] [--repeats 3]

Anchor: the seed's way (Ray Tune's checkpoint guide, ../shared/seeds/004_*): at each save, a fresh
`tf.train.Checkpoint` of the model and optimizer written to a temporary directory and handed to
`tune.report(metrics, checkpoint=Checkpoint.from_directory(tempdir))`. The program is
tests/legacy/tune_trial_program.py (a DNNClassifier on digits, a checkpoint every 20 steps), migrated for the
keras target; three configurations, in rounds, each in a process of its own:
- alone: the migrated program run by Python, no Ray;
- ours: a Tune trial through `compat.ray_checkpoints.program_trainable` (each backup reported, the model_dir as
  the checkpoint);
- seed: a Tune trial running the same program with a tf_keras callback added to its `fit` that does what the seed
  shows at the same cadence (the program's own backups are made as well: it is the same migrated program).
Steps/s are counted from the program's first backup to its last (start-up, tracing and the final save left out);
each trial gets both CPUs of the local cluster (Ray sets a worker's thread count from its CPUs). Prints the
median of `--repeats` for each, and the ratios ours/alone and ours/seed.
"""

from __future__ import annotations

import argparse
import json
import os
import runpy
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = ROOT / "tests" / "legacy" / "tune_trial_program.py"
CONFIGS = ["alone", "ours", "seed"]
CADENCE = 20  # the program's RunConfig(save_checkpoints_steps=20)


class BackupClock:
    """Times the program's backups: steps/s between the first one and the last (a compat.backup_listeners
    listener), written as JSON to `out` at the program's evaluation after training (a Tune trial's process may
    be ended as soon as it reports that it is done)."""

    def __init__(self, out: str):
        self.out = out
        self.times: list[tuple[int, float]] = []

    def after_backup(self, backup_dir, step, logs):
        self.times.append((step, time.perf_counter()))

    def after_evaluation(self, metrics):
        self.write()

    def write(self) -> None:
        (first_step, first_time), (last_step, last_time) = self.times[0], self.times[-1]
        with open(self.out, "w") as out:
            json.dump({"steps_per_second": (last_step - first_step) / (last_time - first_time),
                       "backups": len(self.times)}, out)


def seed_way_reporter():
    """The seed's checkpoint reporting as a tf_keras callback, at the program's cadence."""
    import tensorflow as tf
    import tf_keras
    from ray import tune

    class SeedWayReporter(tf_keras.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.reported = 0

        def on_train_batch_end(self, batch, logs=None):
            step = int(self.model.optimizer.iterations.numpy())
            if step // CADENCE > self.reported // CADENCE:
                self.reported = step
                metrics = {"global_step": step, "loss": float(logs["loss"])}
                with tempfile.TemporaryDirectory() as tempdir:
                    checkpoint = tf.train.Checkpoint(model=self.model, optimizer=self.model.optimizer)
                    checkpoint.write(os.path.join(tempdir, "checkpoint"))
                    tune.report(metrics, checkpoint=tune.Checkpoint.from_directory(tempdir))

    return SeedWayReporter()


def run_program(program: str, model_dir: str, max_steps: int) -> None:
    """Run the migrated program in this process, as `python program` would."""
    saved = sys.argv
    sys.argv = [program, "--model_dir", model_dir, "--max_steps", str(max_steps), "--seed", "7"]
    try:
        runpy.run_path(program, run_name="__main__")
    finally:
        sys.argv = saved


def alone(args) -> None:
    from estimator_migrate.compat import backup_listeners

    clock = BackupClock(args.out)
    with tempfile.TemporaryDirectory() as model_dir, backup_listeners.listening(clock):
        run_program(args.program, os.path.join(model_dir, "model"), args.max_steps)


def under_tune(args) -> None:
    import ray
    import tf_keras
    from ray import tune

    from estimator_migrate.compat import backup_listeners, ray_checkpoints

    ours = ray_checkpoints.program_trainable(args.program, arguments=["--max_steps", args.max_steps, "--seed", "7"])

    def trainable(config):
        clock = BackupClock(args.out)
        with backup_listeners.listening(clock):
            if args.config == "ours":
                ours(config)
            else:
                fit = tf_keras.Model.fit

                def fit_reporting(model, *positional, callbacks=None, **keywords):
                    return fit(model, *positional, callbacks=[*(callbacks or []), seed_way_reporter()], **keywords)

                tf_keras.Model.fit = fit_reporting
                model_dir = os.path.join(tune.get_context().get_trial_dir(), "model_dir")
                run_program(args.program, model_dir, args.max_steps)

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    with tempfile.TemporaryDirectory() as storage:
        tuner = tune.Tuner(
            tune.with_resources(trainable, {"cpu": 2}),
            param_space={"learning_rate": 0.05},
            run_config=tune.RunConfig(name="bench", storage_path=storage, verbose=0),
        )
        (result,) = tuner.fit()
        if result.error is not None:
            raise result.error


def measure(config: str, program: str, max_steps: int) -> dict:
    """One run of `config` in a process of its own: {"steps_per_second", "backups"}."""
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "clock.json")
        subprocess.run(
            [sys.executable, __file__, "--child", config, "--program", program, "--max_steps", str(max_steps),
             "--out", out],
            check=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "2"},
            stdout=subprocess.DEVNULL,
        )
        with open(out) as clock:
            return json.load(clock)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max_steps", type=int, default=2020)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--child", choices=CONFIGS)
    parser.add_argument("--program")
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.child:
        args.config = args.child
        (alone if args.child == "alone" else under_tune)(args)
        return

    with tempfile.TemporaryDirectory() as work:
        migrated = os.path.join(work, "migrated")
        subprocess.run([Path(sys.executable).parent / "migrate", "rewrite", PROGRAM, "--out", migrated, "--quiet"],
                       check=True, stdout=subprocess.DEVNULL)
        program = os.path.join(migrated, PROGRAM.name)
        runs: dict[str, list[float]] = {config: [] for config in CONFIGS}
        backups = {}
        for _ in range(args.repeats):
            for config in CONFIGS:
                measured = measure(config, program, args.max_steps)
                runs[config].append(measured["steps_per_second"])
                backups[config] = measured["backups"]

    median = {config: statistics.median(values) for config, values in runs.items()}
    print(f"tune_trial_program migrated (keras), {args.max_steps} steps, a checkpoint every {CADENCE} steps, "
          f"median of {args.repeats}")
    for config in CONFIGS:
        rounded = ", ".join(f"{value:.0f}" for value in runs[config])
        print(f"  {config:6s} {median[config]:7.1f} steps/s  ({backups[config]} backups timed; runs: {rounded})")
    print(f"ours / alone: {median['ours'] / median['alone']:.2f}x the steps/s; "
          f"ours / seed's way: {median['ours'] / median['seed']:.2f}x")


if __name__ == "__main__":
    main()
