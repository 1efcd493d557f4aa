"""A TensorFlow 1.x program trained by tf.contrib.slim's loop (`slim.learning.train`) runs on TensorFlow 2.21 as it
ran on 1.x.

tests/legacy/slim_learning_program.py (train_image_classifier.py's shape), spelled with `slim = tf.contrib.slim` as
1.x code was, is rewritten to tf_slim and kept as written, its entry block switching TensorFlow 1.x's behaviour on
(codemods/rules/tf1_behavior.py: slim's loop runs a Supervisor, which refuses eager execution; without the switch
the migrated program stopped at its first step). The reference is the same program under TensorFlow 2.15 with 1.x's
API and behaviour (tests/legacy/run_as_tf1.py), seeded as the program seeds itself: the migrated program logs the
same losses at the same steps and saves the same variables within 1e-5. SIGKILLed after one of the loop's timed
saves and started again, it restores that step and trains to the last.
"""

from __future__ import annotations

import re

import pytest

from tests.conftest import (
    MODERN_PYTHON,
    ROOT,
    assert_same_checkpoint_tensors,
    migrate_file,
    respelled,
    run,
    sigkill_after_save,
)

pytestmark = [pytest.mark.slow, pytest.mark.legacy]
PROGRAM = ROOT / "tests" / "legacy" / "slim_learning_program.py"
AS_TF1 = ROOT / "tests" / "legacy" / "run_as_tf1.py"
CONTRIB_SPELLING = {  # tf_slim's spelling -> TF 1.x's
    "import tf_slim as slim\n": "",
    "from sklearn.datasets import load_digits\n": "from sklearn.datasets import load_digits\n\nslim = tf.contrib.slim\n",
}
STEPS = 30
LOGGED = re.compile(r"^INFO:tensorflow:global step (\d+): loss = (\S+)", re.MULTILINE)
ATOL = 1e-5  # TensorFlow 2.15 and 2.21 kernels round apart in the last float32 bits


@pytest.fixture(scope="module")
def migrated(tmp_path_factory):
    work = tmp_path_factory.mktemp("slim_learning")
    migrated = migrate_file(respelled(PROGRAM, CONTRIB_SPELLING, work / "train_image_classifier.py"),
                            work / "migrated", "keras")
    source = migrated.read_text().split('"""', 2)[2]  # (after the docstring)
    assert "contrib" not in source and "slim = tf_slim" in source
    assert 'if __name__ == "__main__":\n    tf1_programs.run_as_tf1()' in source
    return migrated


def test_the_migrated_program_trains_as_the_tf1_one(legacy_python, migrated, tmp_path):
    reference, model = tmp_path / "reference", tmp_path / "migrated"
    expected = run([legacy_python, AS_TF1, PROGRAM, "--train_dir", reference, "--max_number_of_steps", STEPS])
    got = run([MODERN_PYTHON, migrated, "--train_dir", model, "--max_number_of_steps", STEPS])
    logged, expected_logged = LOGGED.findall(got.stderr), LOGGED.findall(expected.stderr)
    assert [step for step, _ in logged] == [step for step, _ in expected_logged] == ["10", "20", "30"]
    assert [float(loss) for _, loss in logged] == pytest.approx([float(loss) for _, loss in expected_logged],
                                                                rel=0, abs=1e-4)  # (logged to 4 decimals)
    assert "logits/weights" in assert_same_checkpoint_tensors(model / f"model.ckpt-{STEPS}",
                                                              reference / f"model.ckpt-{STEPS}", ATOL)


def test_killed_after_a_timed_save_it_restores_that_step_and_trains_to_the_last(migrated, tmp_path):
    """The restart restores the killed run's latest timed save (its global step, with every variable: one Saver
    restores them all) and trains to the last step. Its batches start again at the dataset's first, as TensorFlow
    1.x's did (slim's loop never saved the input's position): the final weights are the uninterrupted run's only
    for a program whose batches follow the step (tests/test_supervisor_program.py's)."""
    steps = 2000  # (the loop's first timed save came at step 90 or so: time to kill it well before the end)
    killed = tmp_path / "killed"
    command = [MODERN_PYTHON, migrated, "--max_number_of_steps", steps, "--save_interval_secs", 1,
               "--train_dir", killed]
    killed_at = sigkill_after_save([*command, "--log_every_n_steps", steps], killed, at_least=1)
    assert 0 < killed_at < steps, "the kill did not interrupt the training"
    resumed = LOGGED.findall(run([*command, "--log_every_n_steps", 1]).stderr)
    # a step past the file's number: the Supervisor's thread names the file by the step it read first, then saves
    # variables the steps go on updating
    assert killed_at < int(resumed[0][0]) < killed_at + 100 and int(resumed[-1][0]) == steps
    assert (killed / f"model.ckpt-{steps}.index").exists()
