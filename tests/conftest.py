"""Shared helpers: the two environments, running programs as real processes, reading checkpoints.

Targets. `migrate rewrite` has two targets (keras: fit + BackupAndRestore; loop: a tf.function step +
CheckpointManager) around the same compat models, losses, inputs and exports. A test whose subject is the driver
(checkpoint and evaluation cadence, what hooks and listeners see, stopping; resuming after kills in the
end-to-end, exact-resume and Ray tests) runs on both targets. A test whose subject is what the targets share (a
model_fn's shape, a head, an input, an export, a project's layout, one program's restart after a SIGKILL) runs on
one, and a module's such tests alternate between them: each subject is proved once and each target meets every
kind of subject, for half the processes (on a 2-core machine every migrated run costs about ten seconds of imports
alone).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.zygote import Zygotes

ROOT = Path(__file__).resolve().parent.parent
MODERN_PYTHON = Path(sys.executable)
LEGACY_PYTHON = ROOT / ".venv-legacy" / "bin" / "python"
MIGRATE = MODERN_PYTHON.parent / "migrate"
EXAMPLE = ROOT / "examples" / "digits_estimator.py"
# Ray starts its workers at nice 15: beside the other xdist worker's programs (nice 0) a Ray test's training
# starved, 5x slower (test_ray_train: 87 s alone, 452 s beside two busy cores; 131 s with niceness 0)
QUIET_TF = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "PYTHONPATH": str(ROOT), "RAY_worker_niceness": "0"}


def _estimators_exit_abort(command: list, completed: subprocess.CompletedProcess) -> bool:
    """Whether a TF 2.15 process aborted in the interpreter's finalization, its program done.

    Python 3.11 ends daemon threads still inside TensorFlow's C++ at exit with a forced unwind, which a
    C++ catch-all in TF 1's session code swallows: glibc aborts with "FATAL: exception not rethrown"
    (seen once in CI, after an Estimator's evaluate and predict). Nothing else in a Python process makes
    that forced unwind, so the program had ended; the tests still read what it wrote.
    """
    return (
        str(command[0]) == str(LEGACY_PYTHON)
        and completed.returncode == -6
        and completed.stderr.rstrip().endswith("FATAL: exception not rethrown")
        and "Traceback (most recent call last)" not in completed.stderr
    )


# A process of a test runs for a minute at most; one that hangs (a deadlock) fails its test, not the whole run
PROCESS_TIMEOUT = 900


ZYGOTES = Zygotes(LEGACY_PYTHON, MODERN_PYTHON, QUIET_TF)


def pytest_sessionfinish(session, exitstatus):
    ZYGOTES.close()


def run(command: list, check_codes=(0,), **kwargs) -> subprocess.CompletedProcess:
    """Run a real process; fail the test with its stderr when it exits with an unexpected code, or runs past
    `timeout` (PROCESS_TIMEOUT seconds unless given). A script importing TensorFlow runs forked from an interpreter
    that imported it (tests/zygote.py)."""
    kwargs.setdefault("timeout", PROCESS_TIMEOUT)
    try:
        if ZYGOTES.takes(command, kwargs, QUIET_TF):
            completed = ZYGOTES.run(command, QUIET_TF, **kwargs)
        else:
            completed = subprocess.run(
                [str(c) for c in command], capture_output=True, text=True, env=QUIET_TF, **kwargs
            )
    except subprocess.TimeoutExpired as error:
        stderr = error.stderr.decode(errors="replace") if isinstance(error.stderr, bytes) else error.stderr or ""
        pytest.fail(f"{command} ran past {kwargs['timeout']} s (killed):\n{stderr[-4000:]}")
    if 0 in check_codes and _estimators_exit_abort(command, completed):
        return completed
    if completed.returncode not in check_codes:
        pytest.fail(f"{command} exited {completed.returncode}:\n{completed.stderr[-4000:]}")
    return completed


# The longest xdist groups (a group runs on one worker, test after test), longest first, from the clean-clone
# run's --durations (docs/benchmarks.md, suite time). Started first, they leave the short tests to fill both
# workers at the end instead of one worker finishing a long group alone.
LONGEST_GROUPS = ("ray_train", "tutorials", "ray_tune", "project_migration", "monitored_session", "saver_loop",
                  "multiworker", "exact_resume", "wrapped_model_fn", "custom_model_fn", "kept_checkpoints",
                  "train_distribute", "end_to_end")


def _schedule_rank(item) -> tuple:
    group = item.get_closest_marker("xdist_group")
    name = group.args[0] if group else None
    if name in LONGEST_GROUPS:
        return (0, LONGEST_GROUPS.index(name))
    if item.get_closest_marker("slow") or item.get_closest_marker("legacy"):
        return (1, 0)
    return (2, 0)


@pytest.hookimpl(tryfirst=True)  # before `-m` selects by the marks
def pytest_collection_modifyitems(config, items):
    """A test using the legacy environment is marked `legacy` (`make test-fast` has none); then longest groups
    first, the other end-to-end tests, the unit tests (a stable sort: each module's own order stays)."""
    for item in items:
        if "legacy_python" in getattr(item, "fixturenames", ()) and not item.get_closest_marker("legacy"):
            item.add_marker(pytest.mark.legacy)
    items.sort(key=_schedule_rank)


def alternating_targets(names) -> list[tuple[str, str]]:
    """(name, target) for each of `names`, sorted, the targets taking turns (module docstring, "Targets")."""
    return [(name, ("keras", "loop")[index % 2]) for index, name in enumerate(sorted(names))]


@pytest.fixture(scope="session")
def legacy_python() -> Path:
    if not LEGACY_PYTHON.exists():
        pytest.fail(".venv-legacy is missing: run `make env-legacy` (make test builds it)")
    return LEGACY_PYTHON


def max_difference(a: dict, b: dict) -> float:
    """Largest absolute difference between two name -> array dicts with the same names."""
    import numpy as np

    assert a.keys() == b.keys()
    return max(float(np.max(np.abs(a[name] - b[name]))) for name in a)


def assert_matches_estimator_checkpoint(model_dir: Path, estimator_dir: Path, step: int, atol: float = 1e-5) -> None:
    """The latest TF2 checkpoint in `model_dir` is at `step` and holds the weights of the Estimator's
    model.ckpt-<step> in `estimator_dir` within `atol`, which differ from its model.ckpt-0 (so the
    comparison shows training, not two copies of the starting point)."""
    import numpy as np
    import tensorflow as tf

    from estimator_migrate.compat.legacy_checkpoint import LegacyCheckpoint
    from estimator_migrate.compat.rebuild import build_model, weight_sources
    from estimator_migrate.compat.recognise import recognise

    reference = LegacyCheckpoint(estimator_dir / f"model.ckpt-{step}")
    estimator = recognise(reference)
    final = build_model(estimator)
    tf.train.Checkpoint(model=final, optimizer=final.optimizer).restore(
        tf.train.latest_checkpoint(str(model_dir))
    ).expect_partial()
    assert int(final.optimizer.iterations) == step
    initial = LegacyCheckpoint(estimator_dir / "model.ckpt-0")
    for variable, names in weight_sources(estimator, final):
        expected = np.concatenate([reference.read(n) for n in names], axis=0)
        assert np.isfinite(expected).all(), f"{names}: the Estimator diverged; the comparison would prove nothing"
        assert not np.allclose(expected, np.concatenate([initial.read(n) for n in names], axis=0)), names
        np.testing.assert_allclose(variable.numpy(), expected, rtol=0, atol=atol, err_msg=str(names))


def assert_same_checkpoint_tensors(got, expected, atol: float) -> set[str]:
    """The checkpoints at prefixes `got` and `expected` (name-based ones: a TF1 Saver's, an Estimator's) hold the
    same tensor names, each within `atol`; returns those names."""
    import numpy as np
    import tensorflow as tf

    readers = [tf.train.load_checkpoint(str(prefix)) for prefix in (got, expected)]
    names = [set(reader.get_variable_to_shape_map()) for reader in readers]
    assert names[0] == names[1]
    for name in names[1]:
        np.testing.assert_allclose(readers[0].get_tensor(name), readers[1].get_tensor(name), rtol=0, atol=atol,
                                   err_msg=name)
    return names[0]


def assert_canned_model_holds_estimator_weights(model, model_dir: Path, estimator_dir: Path, step: int,
                                                weights: int = 5) -> None:
    """The latest TF2 checkpoint in model_dir, restored into `model` (a `compat.canned` model built as the
    migrated program builds it), is at `step` and holds the Estimator's model.ckpt-<step> within 1e-5, every
    weight by its name (at least `weights` of them), which differs from model.ckpt-0 (the comparison shows
    training)."""
    import numpy as np
    import tensorflow as tf

    from estimator_migrate.compat.canned_checkpoint import model_variable_name
    from estimator_migrate.compat.legacy_checkpoint import LegacyCheckpoint
    from estimator_migrate.compat.load import legacy_weights

    tf.train.Checkpoint(model=model, optimizer=model.optimizer).restore(
        tf.train.latest_checkpoint(str(model_dir))
    ).assert_existing_objects_matched()
    assert int(model.optimizer.iterations) == step
    reference = LegacyCheckpoint(estimator_dir / f"model.ckpt-{step}")
    initial = LegacyCheckpoint(estimator_dir / "model.ckpt-0")
    variables = {v.name.removesuffix(":0"): v for v in model.variables}
    names = legacy_weights(reference)
    assert len(names) == len(model.trainable_variables) >= weights
    for name in names:
        expected = reference.read(name)
        assert not np.allclose(expected, initial.read(name)), name
        np.testing.assert_allclose(variables[model_variable_name(name)].numpy(), expected, rtol=0, atol=1e-5,
                                   err_msg=name)


# Loads each model.keras given as it would be served: plain tf_keras, this project not importable at all.
_PLAIN_KERAS_PROGRAM = """
import sys


class NotThisProject:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("estimator_migrate", "compat", "migrate", "codemods", "tests"):
            raise ImportError(f"{name}: this project is not installed where the model is served")


sys.meta_path.insert(0, NotThisProject())
import numpy as np
import tf_keras

for model_file, features_file, logits_file in zip(*[iter(sys.argv[1:])] * 3):
    model = tf_keras.models.load_model(model_file)
    np.save(logits_file, model(dict(np.load(features_file))).numpy())
"""


def plain_keras_run(arguments: list, work: Path) -> subprocess.CompletedProcess:
    """Run the plain-Keras loader on (model.keras, features.npz, logits.npy) triples, in `work`."""
    environment = {key: value for key, value in QUIET_TF.items() if key != "PYTHONPATH"}
    return subprocess.run([str(MODERN_PYTHON), "-c", _PLAIN_KERAS_PROGRAM, *map(str, arguments)],
                          capture_output=True, text=True, env=environment, cwd=work)


def plain_keras_logits(models: list[tuple[Path, dict]], work: Path) -> list:
    """The logits of each (model.keras, features dict), loaded with `tf_keras.models.load_model` in one
    fresh process where this project cannot be imported (a model that needs compat fails there)."""
    import numpy as np

    arguments = []
    for index, (model_file, features) in enumerate(models):
        np.savez(work / f"features-{index}.npz", **features)
        arguments += [model_file, work / f"features-{index}.npz", work / f"logits-{index}.npy"]
    completed = plain_keras_run(arguments, work)
    if completed.returncode:
        pytest.fail(f"tf_keras.models.load_model failed without this project:\n{completed.stderr[-4000:]}")
    return [np.load(work / f"logits-{index}.npy") for index in range(len(models))]


def run_migrated_from_estimator_start(program: Path, estimator_dir: Path, target: str, work: Path, *arguments):
    """Convert the Estimator's model.ckpt-0 into work/model, rewrite `program` for `target` and run it there
    with --model_dir work/model and `arguments`: (the migrated program, work/model)."""
    from estimator_migrate.compat.convert import convert_checkpoint

    model_dir = work / "model"
    convert_checkpoint(estimator_dir / "model.ckpt-0", out=model_dir)
    migrated = migrate_file(program, work / "migrated", target)
    run([MODERN_PYTHON, migrated, "--model_dir", model_dir, *arguments])
    return migrated, model_dir


def tf1_variables_in(prefix: str) -> dict:
    """A migrated TF2 checkpoint's wrapped-model_fn variables (compat.wrapped_model_fns), by their TF1 names."""
    import tensorflow as tf

    from estimator_migrate.compat.estimator_training import tf1_checkpoint_keys

    reader = tf.train.load_checkpoint(prefix)
    return {name: reader.get_tensor(key) for name, key in tf1_checkpoint_keys(prefix).items()}


def estimator_start(estimator_dir: Path, model_dir: Path) -> Path:
    """`model_dir` holding only the Estimator's model.ckpt-0 (what a migrated program continues by itself)."""
    import shutil

    model_dir.mkdir(parents=True)
    for path in estimator_dir.glob("model.ckpt-0.*"):
        shutil.copy(path, model_dir)
    (model_dir / "checkpoint").write_text('model_checkpoint_path: "model.ckpt-0"\n')
    return model_dir


def wrapped_reference(legacy_python: Path, program: Path, model_dir: Path, steps: int, *flags,
                      as_tf1: bool = False) -> Path:
    """`program` (taking --model_dir, --max_steps, --results, and `flags`) trained under the real Estimator to
    `steps` in `model_dir`, its evaluation and predictions in model_dir/results.json: `model_dir`. `as_tf1`: run
    as TensorFlow 1.x ran it (tests/legacy/run_as_tf1.py: graph mode, TF 1.x's names)."""
    runner = [ROOT / "tests" / "legacy" / "run_as_tf1.py"] if as_tf1 else []
    run([legacy_python, *runner, program, "--model_dir", model_dir, "--max_steps", steps,
         "--results", model_dir / "results.json", *flags])
    return model_dir


def respelled(source: Path, spellings: dict, out: Path) -> Path:
    """`source` written to `out` with each of `spellings` (text -> text; each must occur) replaced: a program as
    another TensorFlow spelled the same objects (tf.contrib for TF 1.x, tf.compat.v1 for the legacy run)."""
    text = source.read_text()
    for spelling, same_object in spellings.items():
        assert spelling in text, spelling
        text = text.replace(spelling, same_object)
    out.write_text(text)
    return out


def run_wrapped_from_estimator_start(program: Path, estimator_dir: Path, target: str, work: Path, steps: int, *flags):
    """`program` rewritten for `target`, run to `steps` (with --results and `flags`) on work/model holding only the
    Estimator's model.ckpt-0: (the migrated code after its docstring, work/model, the results file)."""
    migrated = migrate_file(program, work / "migrated", target)
    model_dir = estimator_start(estimator_dir, work / "model")
    results = work / "results.json"
    run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--max_steps", steps, "--results", results, *flags])
    return migrated.read_text().split('"""', 2)[2], model_dir, results


def assert_tf1_variables_match(model_dir: Path, reference: Path, initial: Path, step: int, trained: tuple,
                                what: str = "", atol: float = 1e-5) -> None:
    """A migrated wrapped graph's latest checkpoint in `model_dir` is at `step` and holds every variable of the
    TF1 checkpoint `reference` under its TF1 name, within `atol` or 1e-5 of its magnitude (float32 sums over many
    steps, an Adagrad accumulator near 5, differ in their sixth digit when the Estimator's graph ran its reductions in
    another order: its own runs of one program differ so), an optimizer's slot within 5e-5 of it (a sum over every
    step's squared gradients: 1.8e-5 seen once, on a loaded machine); those named in `trained` differ in `initial`
    (the comparison shows training)."""
    import numpy as np
    import tensorflow as tf

    from estimator_migrate.compat.legacy_checkpoint import LegacyCheckpoint

    reference, initial = LegacyCheckpoint(reference), LegacyCheckpoint(initial)
    migrated = tf1_variables_in(tf.train.latest_checkpoint(str(model_dir)))
    assert set(migrated) == set(reference.shapes), what
    assert int(migrated["global_step"]) == step, what
    for name, value in migrated.items():
        expected = reference.read(name)
        if name in trained:
            assert not np.allclose(expected, initial.read(name)), f"{what}: {name} did not train"
        slot = name.rsplit("/", 1)[-1].split("_")[0] in _OPTIMIZER_SLOTS
        np.testing.assert_allclose(value, expected, rtol=5e-5 if slot else 1e-5, atol=atol, err_msg=f"{what}: {name}")


_OPTIMIZER_SLOTS = ("Adagrad", "Adam", "Momentum", "RMSProp", "Ftrl", "Adadelta", "ProximalAdagrad")


def assert_wrapped_run_matches_estimator(model_dir: Path, estimator_dir: Path, step: int, trained: tuple,
                                         results: Path, metrics: set) -> None:
    """A migrated wrapped model_fn's latest checkpoint in `model_dir` holds every variable of the Estimator's
    model.ckpt-<step> under its TF1 name, within 1e-5 (those named in `trained` differ from model.ckpt-0:
    the comparison shows training); its `results` JSON (metrics, classes, logits) equals the Estimator's
    results.json, whose metrics are `metrics`."""
    import json

    import numpy as np

    assert_tf1_variables_match(model_dir, estimator_dir / f"model.ckpt-{step}", estimator_dir / "model.ckpt-0", step,
                               trained)
    expected, got = (json.loads(path.read_text()) for path in (estimator_dir / "results.json", results))
    assert got["metrics"].keys() == expected["metrics"].keys() == metrics
    for key, value in expected["metrics"].items():
        assert got["metrics"][key] == pytest.approx(value, rel=1e-5), key
    assert got["classes"] == expected["classes"]
    np.testing.assert_allclose(got["logits"], expected["logits"], rtol=0, atol=1e-4)


def served_raw_digits(export_base: Path) -> dict:
    """The outputs of the one SavedModel under `export_base`, its default signature fed digits' first 20 images
    as the raw feature `pixels`: {output: values}."""
    import numpy as np
    import tensorflow as tf
    from sklearn.datasets import load_digits

    (export,) = export_base.iterdir()
    served = tf.saved_model.load(str(export)).signatures["serving_default"]
    pixels = tf.constant((load_digits().data[:20] / 16.0).astype(np.float32))
    return {key: value.numpy() for key, value in served(pixels=pixels).items()}


def import_program(path: Path):
    """A (migrated) program imported as a module, to build its model classes in the test process."""
    spec = importlib.util.spec_from_file_location(f"migrated_{path.parent.name}", path)
    module = importlib.util.module_from_spec(spec)
    before = os.environ.get("TF_USE_LEGACY_KERAS")
    try:
        spec.loader.exec_module(module)
    finally:  # a migrated module sets it first (codemods/keras2_switch.py): not for the tests that follow
        if before is None:
            os.environ.pop("TF_USE_LEGACY_KERAS", None)
        else:
            os.environ["TF_USE_LEGACY_KERAS"] = before
    return module


def assert_weights_match_tf1(model, reference_prefix, initial_prefix, what: str) -> None:
    """Every trainable weight of a migrated model (compat.model_fns.EstimatorModel, its checkpoint restored)
    equals, within 1e-5, the TF1 checkpoint `reference_prefix`'s variable of the same TF1 name, which differs
    from `initial_prefix`'s (so the comparison shows training, not two copies of the starting point)."""
    import numpy as np

    from estimator_migrate.compat.legacy_checkpoint import LegacyCheckpoint

    reference, initial = LegacyCheckpoint(reference_prefix), LegacyCheckpoint(initial_prefix)
    for variable in model.trainable_variables:
        name = variable.name.removeprefix(f"{model.name}/").removesuffix(":0")
        expected = reference.read(name)
        assert not np.allclose(expected, initial.read(name)), f"{what}: {name} did not train"
        np.testing.assert_allclose(variable.numpy(), expected, rtol=0, atol=1e-5, err_msg=f"{what}: {name}")


def sigkill_after_save(command: list, directory, at_least: int, timeout: float = 300, cwd=None) -> int:
    """Start a training process, SIGKILL it once `directory` holds a checkpoint numbered `at_least` or more
    (or it ended, or `timeout` passed); returns the number of the latest checkpoint left. A process that failed
    before that checkpoint fails the test with its exit code and the end of its stderr."""
    import signal
    import tempfile
    import time

    with tempfile.TemporaryFile("w+") as stderr:
        process = subprocess.Popen(
            [str(c) for c in command], env=QUIET_TF, stdout=subprocess.DEVNULL, stderr=stderr, cwd=cwd
        )
        deadline = time.monotonic() + timeout
        while latest_saved_step(directory) < at_least and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        ended = process.poll()
        process.send_signal(signal.SIGKILL)
        process.wait()
        if ended:
            stderr.seek(0)
            pytest.fail(f"{command} exited with {ended} before checkpoint {at_least}:\n{stderr.read()[-3000:]}")
    return latest_saved_step(directory)


def sigterm_after_first_save(command: list, directory, after: float = 0.5, timeout: float = 120):
    """Start a training process, send it SIGTERM `after` seconds past its first save in `directory` (the state
    file written since it started); returns the process's exit code and what it wrote to stderr."""
    import signal
    import time

    state = Path(directory) / "checkpoint"
    started = time.time()
    process = subprocess.Popen([str(c) for c in command], env=QUIET_TF, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + timeout
    while not (state.exists() and state.stat().st_mtime >= started) and process.poll() is None \
            and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(after)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=timeout)
    return process.returncode, stderr


def kill_after_a_save_and_restart(migrated: Path, target: str, model_dir: Path, steps: int) -> None:
    """Run a migrated program (`--model_dir`, `--max_steps`) to `steps`, SIGKILL it after its first save (a
    BackupAndRestore backup for the keras target, a checkpoint for the loop's), start it again: it must end
    at `steps` in model_dir."""
    command = [MODERN_PYTHON, migrated, "--model_dir", model_dir, "--max_steps", steps]
    # BackupAndRestore's saves (numbered by save) or the loop's checkpoints (numbered by step)
    saves, first = (model_dir / "backup" / "chief", 1) if target == "keras" else (model_dir, 10)
    killed_at = sigkill_after_save(command, saves, at_least=first)
    assert killed_at >= first and latest_saved_step(model_dir) < steps, "the kill did not interrupt the training"
    run(command)
    assert latest_saved_step(model_dir) == steps


def saved_steps(directory) -> list[int]:
    """The numbers of the checkpoints `directory`'s state file lists (`<name>-N`), in order."""
    import tensorflow as tf

    state = tf.train.get_checkpoint_state(str(directory))
    return sorted(int(path.rsplit("-", 1)[1]) for path in state.all_model_checkpoint_paths)


def latest_saved_step(directory) -> int:
    """The number of the latest checkpoint in `directory` (`<name>-N`); 0 when there is none yet or a save is
    under way (for tests waiting on a training process before they kill it)."""
    import tensorflow as tf

    try:
        latest = tf.train.latest_checkpoint(str(directory))
    except (OSError, tf.errors.OpError):  # a save in progress
        return 0
    return int(latest.rsplit("-", 1)[1]) if latest else 0


def listed_checkpoint_steps(model_dir) -> list[int]:
    """The steps of the checkpoints model_dir's state file lists (`all_model_checkpoint_paths`: what programs
    that evaluate or watch each checkpoint read), Estimator's `model.ckpt-N` or a migrated `ckpt-N`."""
    import tensorflow as tf

    state = tf.train.get_checkpoint_state(str(model_dir))
    return sorted(int(path.rsplit("-", 1)[1]) for path in state.all_model_checkpoint_paths) if state else []


def migrate_file(source: Path, out_dir: Path, target: str, *options: str) -> Path:
    """`migrate rewrite --out` on one program (`options`: e.g. "--exact"); returns the rewritten program's path.
    The command's own code (migrate.cli.run) runs in this process: starting the command (its imports, 2-4 s
    here) is tests/test_cli.py's subject, and a test migrating a program once or twice would pay it each time."""
    import contextlib
    import io

    from migrate.cli import run as migrate_command

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        code = migrate_command(["rewrite", str(source), "--target", target, "--out", str(out_dir), "--jobs", "1",
                                *map(str, options)])
    assert code == 0, f"migrate rewrite {source} exited with {code}:\n{printed.getvalue()}"
    return out_dir / source.name


CANNED_SCRIPT = ROOT / "tests" / "legacy" / "make_canned_checkpoints.py"


@pytest.fixture(scope="session")
def canned_checkpoints(legacy_python) -> Path:
    """Real canned-Estimator checkpoints (tests/legacy/make_canned_checkpoints.py), made once per version
    of that script and cached under .cache/ (git-ignored); a lock keeps parallel workers from racing."""
    import fcntl
    import hashlib
    import shutil

    digest = hashlib.sha256(CANNED_SCRIPT.read_bytes()).hexdigest()[:12]
    cache = ROOT / ".cache" / f"canned-checkpoints-{digest}"
    cache.parent.mkdir(exist_ok=True)
    with open(cache.parent / "canned-checkpoints.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not cache.is_dir():
            for stale in cache.parent.glob("canned-checkpoints-*"):  # made by older versions of the script
                shutil.rmtree(stale, ignore_errors=True)
            staging = cache.with_name(cache.name + ".partial")
            shutil.rmtree(staging, ignore_errors=True)
            _make_in_parallel(legacy_python, staging)
            staging.rename(cache)
    return cache


def _make_in_parallel(legacy_python: Path, staging: Path) -> None:
    """The cases of make_canned_checkpoints.py split over one legacy process per core: the other workers
    wait for them, so one process alone would leave cores idle for minutes."""
    from tests.legacy.make_canned_checkpoints import CUSTOM_CASE, case_names

    cases = [*case_names(), CUSTOM_CASE]
    shares = [cases[index :: os.cpu_count() or 1] for index in range(min(len(cases), os.cpu_count() or 1))]
    processes = [
        subprocess.Popen([str(legacy_python), str(CANNED_SCRIPT), str(staging), *share],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=QUIET_TF)
        for share in shares
    ]
    failures = [(share, process.communicate(timeout=900)[1]) for share, process in zip(shares, processes)]
    failures = [(share, errors) for (share, errors), process in zip(failures, processes) if process.returncode]
    if failures:
        pytest.fail(f"make_canned_checkpoints.py {failures[0][0]} failed:\n{failures[0][1][-4000:]}")


def run_tagger(target: str, work: Path, *flags) -> dict:
    """tests/legacy/crf_tagger_program.py migrated for `target` and run with `flags`: its results, with the migrated
    code (`source`, which names no tf.contrib) and the share of tags it predicts right within the sequences
    (`accuracy`)."""
    import json

    migrated = migrate_file(ROOT / "tests" / "legacy" / "crf_tagger_program.py", work / "migrated", target)
    source = migrated.read_text().split('"""', 2)[2]  # (the code after the docstring)
    assert "tf.contrib" not in source
    run([MODERN_PYTHON, migrated, "--model_dir", work / "model", "--results", work / "results.json", *flags])
    results = json.loads((work / "results.json").read_text())
    right = total = 0
    for predicted, tags, length in zip(results["predicted"], results["tags"], results["nwords"], strict=True):
        right += sum(p == t for p, t in zip(predicted[:length], tags[:length], strict=True))
        total += length
    return {**results, "source": source, "accuracy": right / total}
