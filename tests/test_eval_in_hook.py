"""A training hook that evaluates its estimator (tests/legacy/eval_in_hook_program.py: every 7 steps, from
after_run). Estimator's evaluate read the latest checkpoint into a graph of its own and the training went on
untouched; the migrated evaluate restores the checkpoint into the model itself, so during a train call it puts the
training's weights, optimizer state and step back afterwards (compat.estimator_training.training_kept). Without
that, each evaluation rewound the training to the last checkpoint: a LinearClassifier evaluated at steps 7, 14,
21, 28 ended with the weights of step 0. The hook's predict() alike: its generator restores the checkpoint it read
first around each batch it predicts, however late it is read.

Both estimators (--canned: a LinearClassifier; a custom model_fn), both targets, from the Estimator's model.ckpt-0:
the final weights are the Estimator's within 1e-5, and each evaluation of a checkpoint gives the Estimator's loss
and predictions for it. A second hook, acting every 4 steps by a SecondOrStepTimer on the global step it fetches, acts
at the Estimator's steps (TensorFlow 1.x fetched the step after the step), its after_create_session() (a timer reset)
run after its begin() as there. The evaluating hook keeps its estimator as `self.model` (its callback takes Keras's
model as `keras_model`) and writes each loss as a summary through TF1's FileWriterCache, which the callback does
eagerly (compat.estimator_hooks.FileWriter): the same steps and values in model_dir's events. A third, compare_gan's
EveryNSteps base handing run_context and run_values on to its subclass's method (compat.estimator_hooks's
SessionRunContext and SessionRunValues once migrated), reports at the same steps with the same values."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.conftest import MODERN_PYTHON, ROOT, estimator_start, migrate_file, run

PROGRAM = ROOT / "tests" / "legacy" / "eval_in_hook_program.py"
AS_TF1 = ROOT / "tests" / "legacy" / "run_as_tf1.py"


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.parametrize(("canned", "target"), [(True, "keras"), (False, "loop")],  # one target each: tests/conftest.py, "Targets"
                         ids=["canned-keras", "model_fn-loop"])
def test_a_hook_evaluating_its_estimator_leaves_the_training_as_it_was(canned, target, legacy_python, tmp_path):
    flags = ["--canned"] if canned else []
    estimator_dir, expected_file, got_file = tmp_path / "estimator", tmp_path / "estimator.json", tmp_path / "got.json"
    run([legacy_python, AS_TF1, PROGRAM, "--model_dir", estimator_dir, "--results", expected_file, *flags])
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    assert "class EvalHook(tf_keras.callbacks.Callback)" in migrated.read_text()
    assert "self.keras_model = model" in migrated.read_text()  # its own self.model stays its estimator
    assert "class EveryNSteps(tf_keras.callbacks.Callback)" in migrated.read_text()
    model_dir = estimator_start(estimator_dir, tmp_path / "model")
    run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--results", got_file, *flags])

    expected, got = json.loads(expected_file.read_text()), json.loads(got_file.read_text())
    # TF 1.x's hooks fetched the step after the step (a ref variable): the timer acts at the same steps
    assert expected["triggers"] == [["begin"], ["session created"], [5, 5], [9, 9], [13, 13], [17, 17], [21, 21],
                                    [25, 25], [29, 29], ["end", 30]]
    assert got["triggers"] == expected["triggers"]
    # compare_gan's EveryNSteps: its subclass's reports at the same steps, run_values as the Estimator gave them
    assert expected["reports"] == [[1, 1], [7, 7], [13, 13], [19, 19], [25, 25], [30, None]], expected["reports"]
    assert got["reports"] == expected["reports"]
    np.testing.assert_allclose(got["weights"], expected["weights"], rtol=0, atol=1e-5)
    assert np.abs(np.asarray(expected["weights"])).max() > 0.01  # (trained)
    expected_runs = {step: (loss, logits) for step, loss, logits in expected["evaluations"]}
    got_runs = {step: (loss, logits) for step, loss, logits in got["evaluations"]}
    assert set(got_runs) == set(expected_runs) == {0, 10, 20}
    for step, (loss, logits) in expected_runs.items():
        assert got_runs[step][0] == pytest.approx(loss, rel=1e-5), step
        assert len(logits) == 40
        # logits sum 64 weights (each within 1e-5) times pixels: 1.4e-5 apart measured; 1e-4 as for served logits
        np.testing.assert_allclose(got_runs[step][1], logits, rtol=0, atol=1e-4, err_msg=str(step))
    # the hook's summaries of those losses (at steps 7, 14, 21, 28: of the checkpoints 0, 10, 20, 20), written by
    # TF1's FileWriterCache there (eagerly: compat.estimator_hooks.FileWriter)
    expected_summaries, got_summaries = _hook_summaries(estimator_dir), _hook_summaries(model_dir)
    assert [step for step, _ in expected_summaries] == [7, 14, 21, 28]
    assert [step for step, _ in got_summaries] == [7, 14, 21, 28]
    np.testing.assert_allclose([v for _, v in got_summaries], [v for _, v in expected_summaries], rtol=1e-5)
    np.testing.assert_allclose([v for _, v in got_summaries], [got_runs[s][0] for s in (0, 10, 20, 20)], rtol=1e-6)


def _hook_summaries(model_dir) -> list[tuple[int, float]]:
    """(step, value) of the `hook_eval_loss` summaries in model_dir's events files, by step."""
    import tensorflow as tf

    found = [(event.step, value.simple_value) for path in model_dir.glob("events.out.tfevents.*")
             for event in tf.compat.v1.train.summary_iterator(str(path))
             for value in event.summary.value if value.tag == "hook_eval_loss"]
    return sorted(found)


def test_predict_from_a_hook_reads_the_latest_checkpoint_and_leaves_the_training_alone(tmp_path):
    """A callback predicting at step 3 gets the predictions of the checkpoint of step 2, also when it reads the
    generator after more training; the training ends where one without the callback ends (a linear model starts at
    zero: both runs are the same computation)."""
    import itertools

    import tensorflow as tf
    import tf_keras

    from estimator_migrate.compat import canned, estimator_training

    def make(model_dir):
        config = estimator_training.TrainingConfig(save_checkpoints_steps=2)
        return estimator_training.configure(canned.linear_classifier([tf.feature_column.numeric_column("x")]),
                                            model_dir=str(model_dir), config=config)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": [[1.0], [2.0], [-1.0]]}, [0, 1, 0])).repeat().batch(3)

    model = make(tmp_path / "hooked")
    read = {}

    class Predicting(tf_keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            if batch == 2:  # step 3: model_dir holds step 2's checkpoint
                read["generator"] = estimator_training.predict(model, input_fn, predict_keys="logits")
                read["first"] = next(read["generator"])["logits"]
            if batch == 4:  # read again two steps later, into the input's next batch (of 3)
                read["later"] = [next(read["generator"])["logits"] for _ in range(3)]

    estimator_training.train(model, input_fn, hooks=[Predicting()], steps=6)
    plain = make(tmp_path / "plain")
    estimator_training.train(plain, input_fn, steps=6)
    for hooked, alone in zip(model.weights, plain.weights, strict=True):
        np.testing.assert_array_equal(hooked.numpy(), alone.numpy())

    at_step_2 = list(itertools.islice(estimator_training.predict(
        model, input_fn, predict_keys="logits", checkpoint_path=str(tmp_path / "hooked" / "model.ckpt-2")), 4))
    np.testing.assert_allclose([read["first"], *read["later"]], [p["logits"] for p in at_step_2], rtol=0, atol=1e-7)
    assert not np.allclose(at_step_2[0]["logits"], next(estimator_training.predict(model, input_fn))["logits"])
    assert not getattr(model, "trains_now", False)
