"""TF1's shared_embedding_columns made in a program's main code (CTR models: ids sharing one table) -> made by
compat.tf1_feature_columns in a graph of their own: TensorFlow 2 refuses to make them eagerly, where migrated
main code runs. tests/legacy/shared_embedding_program.py, the real Estimator (as TF 1.x ran it, graph mode) against
the program migrated for each target and run from its model.ckpt-0: the shared table (and the rest) by its
Estimator name within 1e-5 after 20 steps, the same evaluation and predictions. In a canned estimator they are
one error naming the column and what to do."""

from __future__ import annotations

import pytest

from estimator_migrate.compat import canned, tf1_feature_columns
from tests.conftest import (
    ROOT,
    assert_wrapped_run_matches_estimator,
    run_wrapped_from_estimator_start,
    wrapped_reference,
)

PROGRAM = ROOT / "tests" / "legacy" / "shared_embedding_program.py"
STEPS = 20


@pytest.fixture(scope="module")
def estimator_dir(legacy_python, tmp_path_factory):
    return wrapped_reference(legacy_python, PROGRAM, tmp_path_factory.mktemp("shared") / "model", STEPS, as_tf1=True)


@pytest.mark.slow
@pytest.mark.legacy
@pytest.mark.parametrize("target", ["keras", "loop"])
def test_shared_table_trains_as_in_the_estimator(estimator_dir, target, tmp_path):
    source, model_dir, results = run_wrapped_from_estimator_start(PROGRAM, estimator_dir, target, tmp_path, STEPS)
    assert "tf1_feature_columns.shared_embedding_columns([upper, lower], dimension=4)" in source
    assert_wrapped_run_matches_estimator(
        model_dir, estimator_dir, STEPS,
        ("input_layer/lower_upper_shared_embedding/embedding_weights", "hidden/kernel", "logits/kernel"),
        results, {"accuracy", "loss", "global_step"})


def test_shared_columns_in_a_canned_estimator_are_one_error():
    import tensorflow as tf

    ids = [tf.feature_column.categorical_column_with_identity(key, 5) for key in ("first", "second")]
    columns = tf1_feature_columns.shared_embedding_columns(ids, dimension=2)
    assert [column.name for column in columns] == ["first_shared_embedding", "second_shared_embedding"]
    with pytest.raises(ValueError, match="first_shared_embedding: TF1's shared_embedding_columns in a canned estimator"):
        canned.dnn_classifier(columns, [4])
