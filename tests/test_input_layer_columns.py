"""A custom model_fn reading its features through `input_layer` with embedding columns, migrated to a Keras model
(codemods/model_fns.py: `tf_keras.layers.DenseFeatures`), against the real Estimator.

tests/legacy/input_layer_columns_program.py (the census tutorial's kinds of columns: bucketized, indicator, an
embedding of a hashed column and one of a cross) trains under TensorFlow 2.15 to step 20; rewritten, it continues by
itself the Estimator's model.ckpt-0 (both targets). The input layer's embedding tables carry over under their TF1
names (`input_layer/occupation_embedding/embedding_weights`: before the feature layer was named so, loading the
checkpoint was one error, "no model variable for ..."), and after 20 steps on the same batches every weight is the
Estimator's within 1e-5, with its evaluation and predictions. Its export, a parsing receiver of tf.Examples, serves
what the Estimator's served (the vocabulary column's lookup table saved with it: before, the export was one error,
"a function which references an 'untracked' resource").
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import (
    MODERN_PYTHON,
    ROOT,
    assert_weights_match_tf1,
    estimator_start,
    import_program,
    migrate_file,
    run,
)

pytestmark = [pytest.mark.slow, pytest.mark.legacy]
PROGRAM = ROOT / "tests" / "legacy" / "input_layer_columns_program.py"
STEPS = 20


@pytest.fixture(scope="module")
def estimator_dir(legacy_python, tmp_path_factory):
    model_dir = tmp_path_factory.mktemp("estimator") / "model"
    run([legacy_python, PROGRAM, "--model_dir", model_dir, "--max_steps", STEPS, "--results", model_dir / "results.json"])
    return model_dir


@pytest.mark.parametrize("target", ["loop"])  # one target: tests/conftest.py, "Targets"
def test_embedding_columns_of_the_input_layer_carry_over_and_train_as_the_estimator(target, estimator_dir, tmp_path):
    migrated = migrate_file(PROGRAM, tmp_path / "migrated", target)
    assert 'self.layer(tf_keras.layers.DenseFeatures, params["feature_columns"], name="input_layer")' \
        in migrated.read_text()
    model_dir = estimator_start(estimator_dir, tmp_path / "model")
    results = tmp_path / "results.json"
    completed = run([MODERN_PYTHON, migrated, "--model_dir", model_dir, "--max_steps", STEPS, "--results", results])
    assert f"Continuing the Estimator's checkpoint {model_dir / 'model.ckpt-0'} at step 1" in completed.stderr

    module = import_program(migrated)
    model = module.ModelFn(params=module.PARAMS)
    model.make_variables(module.train_input_fn().element_spec)
    tf.train.Checkpoint(model=model, optimizer=model.optimizer).restore(
        tf.train.latest_checkpoint(str(model_dir))).expect_partial()
    assert int(model.optimizer.iterations) == STEPS
    names = {variable.name for variable in model.trainable_variables}
    assert {f"{model.name}/input_layer/occupation_embedding/embedding_weights:0",
            f"{model.name}/input_layer/education_X_occupation_embedding/embedding_weights:0"} <= names
    assert_weights_match_tf1(model, estimator_dir / f"model.ckpt-{STEPS}", estimator_dir / "model.ckpt-0", target)

    got, expected = (json.loads(path.read_text()) for path in (results, estimator_dir / "results.json"))
    assert got["evaluation"].keys() == expected["evaluation"].keys() == {"accuracy", "loss", "global_step"}
    for key, value in expected["evaluation"].items():
        assert got["evaluation"][key] == pytest.approx(value, rel=1e-5), key
    np.testing.assert_allclose(got["probabilities"], expected["probabilities"], rtol=0, atol=1e-5)
    assert got["served"].keys() == expected["served"].keys() == {"class_ids", "probabilities"}
    assert got["served"]["class_ids"] == expected["served"]["class_ids"]
    np.testing.assert_allclose(got["served"]["probabilities"], expected["served"]["probabilities"], rtol=0, atol=1e-5)
    np.testing.assert_allclose(got["served"]["probabilities"], got["probabilities"], rtol=0, atol=1e-6)
