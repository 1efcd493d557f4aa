"""LoggingTensorHooks of a migrated canned estimator's training (compat.estimator_hooks.LoggingTensorHook) against
the real Estimator: tests/legacy/logging_hook_program.py logs its global step every 50 steps and, through a
formatter, at the end of the call. Rewritten for each target, the program logs the same lines at the same steps:
the step the Estimator's graph read with the train op (before or after its increment, as the read raced it), the
seconds since the last line after the first, the formatter's text at the end; the global step read back is the
Estimator's."""

from __future__ import annotations

import logging
import re

import pytest
import tensorflow as tf
import tf_keras

from estimator_migrate.compat.estimator_hooks import LoggingTensorHook, StopAtStep, from_tf1
from tests.conftest import MODERN_PYTHON, ROOT, migrate_file, run

PROGRAM = ROOT / "tests" / "legacy" / "logging_hook_program.py"
LOGGED_STEP = re.compile(r"^INFO:tensorflow:step = (\d+)( \(\d+\.\d+ sec\))?$", re.MULTILINE)
LOGGED_END = re.compile(r"^INFO:tensorflow:(training ended at step \d+)$", re.MULTILINE)
PRINTED_STEP = re.compile(r"^global_step (\d+)$", re.MULTILINE)


def _logged(completed) -> tuple[list[tuple[int, bool]], list[str], list[str]]:
    """(step, whether the seconds were given) of each step line; the end lines; the printed global step."""
    steps = [(int(step), bool(seconds)) for step, seconds in LOGGED_STEP.findall(completed.stderr)]
    return steps, LOGGED_END.findall(completed.stderr), PRINTED_STEP.findall(completed.stdout)


@pytest.fixture(scope="module")
def estimator_logged(legacy_python, tmp_path_factory):
    return _logged(run([legacy_python, PROGRAM, tmp_path_factory.mktemp("estimator") / "model"]))


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.parametrize("target", ["keras", "loop"])
def test_the_migrated_training_logs_what_the_estimator_logged(estimator_logged, target, tmp_path):
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    text = migrated.read_text()
    assert 'estimator_hooks.LoggingTensorHook(tensors={"step": GLOBAL_STEP}, every_n_iter=50)' in text
    assert "TODO(migrate)" not in text
    _check_logged_as_the_estimator(migrated, tmp_path / "model", estimator_logged)


def _check_logged_as_the_estimator(migrated, model_dir, estimator_logged) -> None:
    steps, ends, printed = _logged(run([MODERN_PYTHON, migrated, model_dir]))
    estimator_steps, estimator_ends, estimator_printed = estimator_logged
    assert [step for step, _ in steps] == [0, 50, 100, 150]  # (the step before its update)
    assert len(estimator_steps) == len(steps) and all(
        logged in (step, step + 1) for (logged, _), (step, _) in zip(estimator_steps, steps))
    assert [seconds for _, seconds in steps] == [seconds for _, seconds in estimator_steps] == [False, True, True, True]
    assert ends == estimator_ends == ["training ended at step 200"]
    assert printed == estimator_printed == ["200"]


# The same program with its estimator built by a factory, as trainers with flags build theirs: the run-time tier
# (compat.estimator_training), which keeps TF1's LoggingTensorHook and takes it, when the program runs, as the
# callback of the Keras model the factory's canned estimator became
BUILT_INLINE = "    estimator = tf.estimator.LinearClassifier(feature_columns=columns, config=config)\n"
FACTORY = """def build_estimator(columns, config):
    return tf.estimator.LinearClassifier(feature_columns=columns, config=config)


def main(model_dir):
"""


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.parametrize("target", ["keras", "loop"])
def test_an_estimator_built_by_a_factory_logs_what_the_estimator_logged(estimator_logged, target, tmp_path):
    source = PROGRAM.read_text()
    assert BUILT_INLINE in source
    program = tmp_path / "factory_program.py"
    program.write_text(source.replace(BUILT_INLINE, "    estimator = build_estimator(columns, config)\n")
                       .replace("def main(model_dir):\n", FACTORY))
    text = migrate_file(program, tmp_path / "migrated", target).read_text()
    assert "estimator_training.train(estimator" in text or "estimator_loop.train(estimator" in text  # the tier
    assert "tf.compat.v1.train.LoggingTensorHook({\"step\": GLOBAL_STEP}, every_n_iter=50)" in text
    assert "TODO(migrate)" not in text
    _check_logged_as_the_estimator(tmp_path / "migrated" / program.name, tmp_path / "model", estimator_logged)


def _lines(caplog, hook, steps: int) -> list[str]:
    model = tf_keras.Sequential()
    model.optimizer = tf_keras.optimizers.SGD()
    callbacks = tf_keras.callbacks.CallbackList([hook], model=model)
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        callbacks.on_train_begin()
        for batch in range(steps):  # as fit and the migrated loop call them
            callbacks.on_train_batch_begin(batch)
            model.optimizer.iterations.assign_add(1)
            callbacks.on_train_batch_end(batch, {"loss": 0.5})
        callbacks.on_train_end()
    # (tf_keras warns of callbacks slower than these batches of one counter increment: not the hook's lines)
    return [record.getMessage() for record in caplog.records
            if record.name == "tensorflow" and not record.getMessage().startswith("Callback method")]


def test_a_list_of_names_logs_in_its_order_and_only_at_the_end_without_seconds(caplog):
    hook = LoggingTensorHook(["global_step", "global_step:0"], at_end=True)
    assert _lines(caplog, hook, 7) == ["global_step = 7, global_step:0 = 7"]


def test_a_dict_logs_its_tags_sorted_with_the_seconds_since_the_last_line(caplog):
    lines = _lines(caplog, LoggingTensorHook({"b": "global_step", "a": "global_step"}, every_n_iter=3), 7)
    assert lines[0] == "a = 0, b = 0"
    assert [line.split(" (")[0] for line in lines[1:]] == ["a = 3, b = 3", "a = 6, b = 6"]
    assert all(re.fullmatch(r".* \(\d+\.\d{3} sec\)", line) for line in lines[1:])


@pytest.mark.parametrize("arguments, message", [
    (({"loss": "head/losses/Sum:0"}, 5), "'head/losses/Sum:0' \\(tag 'loss'\\) is a tensor of the Estimator's graph"),
    ((["global_step"],), "either at_end and/or exactly one of every_n_iter and every_n_secs must be provided"),
    ((["global_step"], 0), "invalid every_n_iter=0"),
])
def test_what_the_hook_refused_or_a_canned_model_lacks_is_one_error(arguments, message):
    with pytest.raises(ValueError, match=message):
        LoggingTensorHook(*arguments)


def test_the_rewrite_knows_the_names_the_runtime_takes():
    from codemods import hook_facts
    from estimator_migrate.compat import estimator_hooks

    assert hook_facts.GLOBAL_STEP_NAMES == estimator_hooks.GLOBAL_STEP_NAMES


def test_tf1_s_hook_taken_when_the_program_runs_logs_as_its_callback(caplog):
    """compat.estimator_hooks.from_tf1: TF1's hook, built with its arguments, becomes the callback built with the
    same ones (a list keeps its order; a tensor the Keras model has not is the callback's error)."""
    listed = from_tf1(tf.compat.v1.train.LoggingTensorHook(["global_step:0", "global_step"], every_n_iter=3))
    assert [line.split(" (")[0] for line in _lines(caplog, listed, 4)] == [
        "global_step:0 = 0, global_step = 0", "global_step:0 = 3, global_step = 3"]
    with pytest.raises(ValueError, match="'loss:0' \\(tag 'loss'\\) is a tensor of the Estimator's graph"):
        from_tf1(tf.compat.v1.train.LoggingTensorHook({"loss": "loss:0"}, every_n_secs=5))
    assert isinstance(from_tf1(tf.compat.v1.train.StopAtStepHook(last_step=9)), StopAtStep)
    assert from_tf1(tf.compat.v1.train.NanTensorHook(tf.constant(1.0))) is None  # (no meaning without its graph)
