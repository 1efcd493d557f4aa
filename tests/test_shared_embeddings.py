"""TF1's shared_embedding_columns made in a program's main code (CTR models: ids sharing one table) -> made by
compat.tf1_feature_columns in a graph of their own: TensorFlow 2 refuses to make them eagerly, where migrated
main code runs. tests/legacy/shared_embedding_program.py, the real Estimator (as TF 1.x ran it, graph mode) against
the program migrated for each target and run from its model.ckpt-0: the shared table (and the rest) by its
Estimator name within 1e-5 after 20 steps, the same evaluation and predictions. A canned estimator's input layer
reads them as the Estimator's did (compat.tf1_feature_columns.SharedEmbeddingColumn: one table per group, under the
Estimator's name): tests/legacy/shared_embedding_canned_program.py, a wide & deep classifier, the same way."""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf

from estimator_migrate.compat import canned, canned_checkpoint, tf1_feature_columns
from estimator_migrate.compat.legacy_checkpoint import LegacyCheckpoint
from tests.conftest import (
    ROOT,
    assert_wrapped_run_matches_estimator,
    run_wrapped_from_estimator_start,
    wrapped_reference,
)

PROGRAM = ROOT / "tests" / "legacy" / "shared_embedding_program.py"
CANNED_PROGRAM = ROOT / "tests" / "legacy" / "shared_embedding_canned_program.py"
STEPS = 20


@pytest.fixture(scope="module")
def estimator_dir(legacy_python, tmp_path_factory):
    return wrapped_reference(legacy_python, PROGRAM, tmp_path_factory.mktemp("shared") / "model", STEPS, as_tf1=True)


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.parametrize("target", ["keras"])  # one target: tests/conftest.py, "Targets"
def test_shared_table_trains_as_in_the_estimator(estimator_dir, target, tmp_path):
    source, model_dir, results = run_wrapped_from_estimator_start(PROGRAM, estimator_dir, target, tmp_path, STEPS)
    assert "tf1_feature_columns.shared_embedding_columns([upper, lower], dimension=4)" in source
    assert_wrapped_run_matches_estimator(
        model_dir, estimator_dir, STEPS,
        ("input_layer/lower_upper_shared_embedding/embedding_weights", "hidden/kernel", "logits/kernel"),
        results, {"accuracy", "loss", "global_step"})


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.parametrize("target", ["loop"])  # one target: tests/conftest.py, "Targets"
def test_shared_table_of_a_canned_wide_and_deep_trains_as_in_the_estimator(legacy_python, target, tmp_path):
    estimator_dir = wrapped_reference(legacy_python, CANNED_PROGRAM, tmp_path / "estimator", STEPS, as_tf1=True)
    source, model_dir, results = run_wrapped_from_estimator_start(CANNED_PROGRAM, estimator_dir, target,
                                                                  tmp_path / "run", STEPS)
    assert "canned.dnn_linear_combined_classifier(" in source and "tf1_feature_columns.shared_embedding_columns(" in source
    model = canned.dnn_linear_combined_classifier(  # the program's model, its migrated checkpoint read into it
        linear_feature_columns=_ids(), dnn_feature_columns=[tf.feature_column.numeric_column("pixels", shape=[64])]
        + tf1_feature_columns.shared_embedding_columns(_ids(), dimension=4, combiner="sqrtn"),
        dnn_hidden_units=[16], loss_reduction="sum")
    tf.train.Checkpoint(model=model, optimizer=model.optimizer).read(
        tf.train.latest_checkpoint(str(model_dir))).expect_partial()
    reference, initial = (LegacyCheckpoint(estimator_dir / f"model.ckpt-{step}") for step in (STEPS, 0))
    weights = canned_checkpoint.estimator_weights(model)
    table = "dnn/input_from_feature_columns/input_layer/lower_upper_shared_embedding/embedding_weights"
    assert table in weights and int(weights["global_step"]) == STEPS
    assert not np.allclose(reference.read(table), initial.read(table))  # the shared table trained
    for name, value in weights.items():
        np.testing.assert_allclose(value, reference.read(name), rtol=1e-5, atol=1e-5, err_msg=name)
    expected, got = (json.loads(path.read_text()) for path in (estimator_dir / "results.json", results))
    assert got["metrics"] == pytest.approx(expected["metrics"], rel=1e-5)
    assert got["classes"] == expected["classes"]
    np.testing.assert_allclose(got["logits"], expected["logits"], rtol=0, atol=1e-5)


def _ids():
    return [tf.feature_column.categorical_column_with_identity(key, num_buckets=17) for key in ("upper", "lower")]


def test_a_canned_dnn_reads_a_group_of_shared_columns_from_one_table_named_as_the_estimators():
    ids = [tf.feature_column.categorical_column_with_identity(key, 5) for key in ("first", "second")]
    columns = tf1_feature_columns.shared_embedding_columns(ids, dimension=2)
    assert [column.name for column in columns] == ["first_shared_embedding", "second_shared_embedding"]
    model = canned.dnn_classifier(columns, [4])
    (table,) = [v for v in model.trainable_variables if "embedding" in v.name]
    assert table.name == "input_layer/first_second_shared_embedding/embedding_weights:0" and table.shape == (5, 2)
    table.assign(np.arange(10, dtype=np.float32).reshape(5, 2))
    input_layer = model.get_layer("input_layer")
    looked_up = input_layer({"first": tf.constant([[1], [4]], tf.int64), "second": tf.constant([[3], [0]], tf.int64)})
    np.testing.assert_array_equal(looked_up, [[2, 3, 6, 7], [8, 9, 0, 1]])  # (columns in name order)
    assert canned_checkpoint.estimator_variable_name("input_layer/first_second_shared_embedding/embedding_weights") \
        == "dnn/input_from_feature_columns/input_layer/first_second_shared_embedding/embedding_weights"
