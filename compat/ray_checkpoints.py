"""Migrated programs as Ray Tune trials: their backups handed to Tune as checkpoints, and taken back on restart.

    from ray import tune
    from estimator_migrate.compat import ray_checkpoints

    trainable = ray_checkpoints.program_trainable("train.py", arguments=["--max_steps", "200"])
    tuner = tune.Tuner(trainable, param_space={"learning_rate": tune.grid_search([0.01, 0.1])},
                       run_config=tune.RunConfig(failure_config=tune.FailureConfig(max_failures=1)))
    tuner.fit()

Each trial runs the migrated program (`migrate rewrite`, either target; `--exact` for bit-exact resumes) in its
own process with the trial's config as flags (`--learning_rate 0.01`) and a model_dir of its own. At each
backup the program makes at its RunConfig's cadence (the keras target's backups through compat.backup_listeners,
the loop target's CheckpointManager saves into model_dir), the trial reports
`{"global_step", "loss", "eval": <the last evaluation's metrics>}` with the model_dir as its checkpoint
(Ray copies it to the run's storage), and once more when the program ends. A trial Tune restarts (a failure
under FailureConfig, `Tuner.restore`) starts from its last reported checkpoint: the model_dir is replaced by
it before the program runs, and the program resumes from its backup as it resumes from any crash.

Imported only by programs that use Ray: nothing else in compat imports Ray.
"""

from __future__ import annotations

import contextlib
import os
import runpy
import shutil
import sys

import tensorflow as tf
from ray import tune

from . import backup_listeners

MODEL_DIR = "model_dir"  # under the trial's directory


def program_trainable(program, *, model_dir_flag: str = "--model_dir", arguments=()):
    """A Tune function trainable running the migrated script `program` with `arguments`, the trial's config as
    flags (a key `lr` is `--lr`, a key starting with "-" is used as it is) and `model_dir_flag` set to a
    directory of the trial's own, reporting its backups to Tune and resuming from Tune's checkpoint."""
    program = os.path.abspath(os.fspath(program))
    if not os.path.isfile(program):
        raise FileNotFoundError(f"ray_checkpoints: no program at {program}")

    def trainable(config):
        model_dir = os.path.join(tune.get_context().get_trial_dir(), MODEL_DIR)
        restore_model_dir(model_dir)
        argv = [program, *map(str, arguments), model_dir_flag, model_dir, *config_flags(config)]
        reporter = TuneReporter(model_dir)
        with backup_listeners.listening(reporter), _announcing_saves_to(model_dir), _arguments(argv):
            _run(program)
        reporter.report_final()

    trainable.__name__ = os.path.splitext(os.path.basename(program))[0]
    return trainable


def config_flags(config: dict) -> list[str]:
    """A trial's config as command-line flags, in sorted order."""
    flags = []
    for key, value in sorted(config.items()):
        flags += [key if key.startswith("-") else f"--{key}", str(value)]
    return flags


def restore_model_dir(model_dir: str) -> None:
    """Replace `model_dir` by the trial's last reported checkpoint, when Tune gives one (a restarted trial)."""
    checkpoint = tune.get_checkpoint()
    if checkpoint is None:
        return
    shutil.rmtree(model_dir, ignore_errors=True)
    checkpoint.to_directory(model_dir)


class TuneReporter:
    """Reports each backup of the program to Tune, with the model_dir as the checkpoint."""

    def __init__(self, model_dir: str):
        self.model_dir = model_dir
        self.evaluation: dict[str, float] = {}
        self.step: int | None = None

    def after_backup(self, backup_dir: str, step: int, logs: dict) -> None:
        metrics = {"global_step": step}
        if "loss" in logs:
            metrics["loss"] = float(logs["loss"])
        self.step = step
        self._report(metrics)

    def after_evaluation(self, metrics: dict) -> None:
        self.evaluation = {name: float(value) for name, value in metrics.items()}

    def report_final(self) -> None:
        """The program ended: its final state (the last checkpoint in model_dir) is the trial's last report."""
        latest = tf.train.latest_checkpoint(self.model_dir)
        step = int(latest.rsplit("-", 1)[1]) if latest else self.step
        self._report({"global_step": step, "done": True})

    def _report(self, metrics: dict) -> None:
        if self.evaluation:
            metrics["eval"] = dict(self.evaluation)
        tune.report(metrics, checkpoint=tune.Checkpoint.from_directory(self.model_dir))


@contextlib.contextmanager
def _announcing_saves_to(model_dir: str):
    """Announce each `tf.train.CheckpointManager` save into `model_dir` as a backup: the loop target saves there
    at the RunConfig's cadence (the keras target's backups announce themselves)."""
    original = tf.train.CheckpointManager.save

    def save(manager, *args, **kwargs):
        path = original(manager, *args, **kwargs)
        if path is not None and os.path.abspath(manager.directory) == os.path.abspath(model_dir):
            backup_listeners.backed_up(manager.directory, int(path.rsplit("-", 1)[1]))
        return path

    tf.train.CheckpointManager.save = save
    try:
        yield
    finally:
        tf.train.CheckpointManager.save = original


@contextlib.contextmanager
def _arguments(argv: list[str]):
    saved = sys.argv
    sys.argv = argv
    try:
        yield
    finally:
        sys.argv = saved


def _run(program: str) -> None:
    """Run the script as `python program` would; an exit with a non-zero status is a failure of the trial."""
    try:
        runpy.run_path(program, run_name="__main__")
    except SystemExit as exit_:
        if exit_.code not in (None, 0):
            raise RuntimeError(f"{program} exited with status {exit_.code}") from None
