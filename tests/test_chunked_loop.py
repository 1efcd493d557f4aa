"""The loop target without hooks runs the steps between checkpoints and summaries in one tf.function call
(codemods/rules/estimator_train.py, _CHUNKED_LOOP). Its step equivalence with the Estimator is proven by
tests/test_canned_equivalence.py (those programs have no hooks); here, the crash path: a real process,
SIGKILLed mid-training, resumes from its last checkpoint and ends at max_steps, as the Estimator does, with
checkpoints and loss summaries at the cadence's steps."""

from __future__ import annotations

import math
import re
import signal
import subprocess
import time

import pytest
import tensorflow as tf

from migrate.demo import checkpoint_step
from tests.conftest import MODERN_PYTHON, QUIET_TF, migrate_file, run

pytestmark = pytest.mark.slow
MAX_STEPS, EVERY, SUMMARY_STEPS = 4000, 150, 100

PROGRAM = f'''\
import argparse

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

tf1 = tf.compat.v1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    args = parser.parse_args()
    digits = load_digits()
    columns = [tf1.feature_column.numeric_column("x", shape=[64])]
    config = tf1.estimator.RunConfig(save_checkpoints_steps={EVERY}, save_summary_steps={SUMMARY_STEPS}, keep_checkpoint_max=100)
    classifier = tf1.estimator.DNNClassifier(
        feature_columns=columns, hidden_units=[32], n_classes=10, model_dir=args.model_dir, config=config
    )
    train_input_fn = tf1.estimator.inputs.numpy_input_fn(
        x={{"x": (digits.data / 16.0).astype(np.float32)}},
        y=digits.target.astype(np.int32),
        batch_size=32,
        num_epochs=None,
        shuffle=True,
    )
    classifier.train(input_fn=train_input_fn, max_steps={MAX_STEPS})


if __name__ == "__main__":
    main()
'''


def checkpoint_steps(model_dir) -> list[int]:
    state = tf.train.get_checkpoint_state(str(model_dir))
    return sorted(int(path.rsplit("-", 1)[1]) for path in state.all_model_checkpoint_paths)


def summary_steps(model_dir) -> list[int]:
    steps = set()
    for events in model_dir.glob("events.out.tfevents.*"):
        for event in tf.compat.v1.train.summary_iterator(str(events)):
            steps.update(event.step for value in event.summary.value if value.tag == "loss")
    return sorted(steps)


def test_chunked_loop_resumes_after_sigkill(tmp_path):
    source = tmp_path / "program.py"
    source.write_text(PROGRAM)
    migrated = migrate_file(source, tmp_path / "migrated", "loop")
    assert "_train_steps(" in migrated.read_text()  # the chunked shape, not the per-step loop
    model_dir = tmp_path / "model"
    process = subprocess.Popen([MODERN_PYTHON, migrated, "--model_dir", model_dir], env=QUIET_TF,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while (checkpoint_step(model_dir) or 0) < 2 * EVERY:
        assert process.poll() is None and time.monotonic() < deadline, "no checkpoint of step 300 in time"
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    assert process.wait() == -signal.SIGKILL
    saved = checkpoint_step(model_dir)
    assert EVERY * 2 <= saved < MAX_STEPS and saved % EVERY == 0

    run([MODERN_PYTHON, migrated, "--model_dir", model_dir])
    assert checkpoint_step(model_dir) == MAX_STEPS
    # Checkpoints: every EVERY steps from the start and, after the restart, from the step it resumed at
    # (Estimator's saver counts from the restored step too), and the final one.
    expected = sorted({*range(0, saved + 1, EVERY), *range(saved, MAX_STEPS, EVERY), MAX_STEPS})
    assert checkpoint_steps(model_dir) == expected
    assert set(range(SUMMARY_STEPS, MAX_STEPS + 1, SUMMARY_STEPS)) <= set(summary_steps(model_dir))


def test_keras_steps_per_execution_resumes_after_sigkill(tmp_path):
    """The keras target without hooks runs `steps_per_execution` = gcd(150, 100) = 50 steps per call, and
    BackupAndRestore's save_freq counts calls (150 // 50): SIGKILLed after a backup of step >= 300, the
    backup is at a multiple of 150, and the re-run resumes from it (its progress bar starts past it) and
    ends at max_steps."""
    source = tmp_path / "program.py"
    source.write_text(PROGRAM)
    migrated = migrate_file(source, tmp_path / "migrated", "keras")
    assert f"steps_per_execution = {math.gcd(EVERY, SUMMARY_STEPS)}  # gcd(" in migrated.read_text()
    model_dir = tmp_path / "model"
    process = subprocess.Popen([MODERN_PYTHON, migrated, "--model_dir", model_dir], env=QUIET_TF,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while (backed_up := backup_step(model_dir)) < 2 * EVERY:
        assert process.poll() is None and time.monotonic() < deadline, "no backup of step 300 in time"
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    assert process.wait() == -signal.SIGKILL
    saved = max(backed_up, backup_step(model_dir))
    assert saved % EVERY == 0 and saved < MAX_STEPS

    rerun = run([MODERN_PYTHON, migrated, "--model_dir", model_dir])
    first_shown = int(re.search(rf"(\d+)/{MAX_STEPS}", rerun.stdout).group(1))
    assert saved < first_shown <= saved + EVERY  # fit went on from the backup, not from step 0
    assert checkpoint_step(model_dir) == MAX_STEPS


def backup_step(model_dir) -> int:
    """The step of the newest BackupAndRestore backup below model_dir/backup (0 when there is none)."""
    states = list((model_dir / "backup").rglob("checkpoint"))
    return max([checkpoint_step(state.parent) or 0 for state in states], default=0)
