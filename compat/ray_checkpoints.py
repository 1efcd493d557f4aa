"""Migrated programs on Ray: Tune trials and Train workers whose backups are handed to Ray as checkpoints, and
taken back on restart.

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

The same program as the `train_loop_per_worker` of Ray Train's `TensorflowTrainer` (a migrated Estimator program
whose RunConfig had `train_distribute=MultiWorkerMirroredStrategy()`; Ray sets each worker's TF_CONFIG):

    from ray.train import FailureConfig, RunConfig, ScalingConfig
    from ray.train.tensorflow import TensorflowTrainer

    trainer = TensorflowTrainer(ray_checkpoints.program_train_loop("train.py", arguments=["--max_steps", "200"]),
                                scaling_config=ScalingConfig(num_workers=2),
                                run_config=RunConfig(failure_config=FailureConfig(max_failures=1)))
    trainer.fit()

Every worker runs the program with a model_dir of its own, and reports at each backup (all workers back up at the
same steps, so all report the same number of times, which Ray Train needs); only rank 0, the strategy's chief,
hands its model_dir over as the checkpoint. A restarted worker group starts from Ray's latest checkpoint: every
worker's model_dir is replaced by it (a worker with no checkpoint to start from starts with an empty one, holding
the group's model_dir seed, which `--exact` programs without tf_random_seed shuffle their input from).

Imported only by programs that use Ray: nothing else in compat imports Ray.
"""

from __future__ import annotations

import contextlib
import os
import random
import runpy
import shutil
import sys
import tempfile

import tensorflow as tf
from ray import train, tune
from ray.train import collective

from . import backup_listeners, seeding

MODEL_DIR = "model_dir"  # under the trial's directory


def program_trainable(program, *, model_dir_flag: str = "--model_dir", arguments=()):
    """A Tune function trainable running the migrated script `program` with `arguments`, the trial's config as
    flags (a key `lr` is `--lr`, a key starting with "-" is used as it is) and `model_dir_flag` set to a
    directory of the trial's own, reporting its backups to Tune and resuming from Tune's checkpoint."""
    program = _existing(program)

    def trainable(config):
        model_dir = os.path.join(tune.get_context().get_trial_dir(), MODEL_DIR)
        restore_model_dir(model_dir, tune.get_checkpoint())
        argv = [program, *map(str, arguments), model_dir_flag, model_dir, *config_flags(config)]
        _run_reporting(program, argv, CheckpointReporter(model_dir, tune.report, tune.Checkpoint))

    trainable.__name__ = os.path.splitext(os.path.basename(program))[0]
    return trainable


def program_train_loop(program, *, model_dir_flag: str = "--model_dir", arguments=(), work_dir: str | None = None):
    """A Ray Train `train_loop_per_worker` running the migrated script `program` on every worker with `arguments`,
    the loop's config as flags and `model_dir_flag` set to the worker's own directory under `work_dir` (default: a
    directory named after the run in the system's temporary directory), reporting its backups to Ray Train (rank
    0's model_dir as the checkpoint) and starting from Ray's latest checkpoint."""
    program = _existing(program)

    def train_loop(config=None):
        context = train.get_context()
        rank = context.get_world_rank()
        root = work_dir or os.path.join(tempfile.gettempdir(), "estimator_migrate_ray", context.get_experiment_name())
        model_dir = os.path.join(root, f"worker_{rank}")
        # a worker's state is Ray's checkpoint, or none at the run's first start (not an earlier run of that name)
        shutil.rmtree(model_dir, ignore_errors=True)
        checkpoint = train.get_checkpoint()
        if checkpoint is None:
            # One model_dir seed for the whole group (an `--exact` program without tf_random_seed shuffles from it,
            # each worker its own way: compat.seeding.worker_seed): a restarted worker, whose model_dir becomes rank
            # 0's, then shuffles as it did before.
            drawn = random.SystemRandom().randrange(1, 2**31) if rank == 0 else None
            seeding.keep_model_dir_seed(model_dir, collective.broadcast_from_rank_zero(drawn))
        restore_model_dir(model_dir, checkpoint)
        argv = [program, *map(str, arguments), model_dir_flag, model_dir, *config_flags(config or {})]
        handed_over = train.Checkpoint if rank == 0 else None  # the chief's files only
        _run_reporting(program, argv, CheckpointReporter(model_dir, train.report, handed_over))

    train_loop.__name__ = os.path.splitext(os.path.basename(program))[0]
    return train_loop


def config_flags(config: dict) -> list[str]:
    """A trial's config as command-line flags, in sorted order."""
    flags = []
    for key, value in sorted(config.items()):
        flags += [key if key.startswith("-") else f"--{key}", str(value)]
    return flags


def restore_model_dir(model_dir: str, checkpoint) -> None:
    """Replace `model_dir` by `checkpoint`, Ray's last reported one (a restarted trial or worker group), if any."""
    if checkpoint is None:
        return
    shutil.rmtree(model_dir, ignore_errors=True)
    checkpoint.to_directory(model_dir)


class CheckpointReporter:
    """Reports each backup of the program through `report` (`tune.report` or `ray.train.report`), with the
    model_dir as a checkpoint of type `checkpoint_type` (None: the metrics alone, as a Train worker other than
    rank 0 reports)."""

    def __init__(self, model_dir: str, report, checkpoint_type):
        self.model_dir = model_dir
        self.report = report
        self.checkpoint_type = checkpoint_type
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
        handed_over = self.checkpoint_type and self.checkpoint_type.from_directory(self.model_dir)
        self.report(metrics, checkpoint=handed_over)


def _existing(program) -> str:
    program = os.path.abspath(os.fspath(program))
    if not os.path.isfile(program):
        raise FileNotFoundError(f"ray_checkpoints: no program at {program}")
    return program


def _run_reporting(program: str, argv: list[str], reporter: CheckpointReporter) -> None:
    """Run the program with `argv`, `reporter` hearing of its backups and evaluations, then its final report."""
    model_dir = reporter.model_dir
    with backup_listeners.listening(reporter), _announcing_saves_to(model_dir), _arguments(argv):
        _run(program)
    reporter.report_final()


@contextlib.contextmanager
def _announcing_saves_to(model_dir: str):
    """Announce each `tf.train.CheckpointManager` save into `model_dir` as a backup: the loop target saves there
    at the RunConfig's cadence (the keras target's backups announce themselves, and its kept checkpoints in
    model_dir are no backups: compat.kept_checkpoints)."""
    original = tf.train.CheckpointManager.save

    def save(manager, *args, **kwargs):
        path = original(manager, *args, **kwargs)
        if path is not None and not backup_listeners.saving_kept() \
                and os.path.abspath(manager.directory) == os.path.abspath(model_dir):
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
