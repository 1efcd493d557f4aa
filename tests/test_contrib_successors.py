"""tf.contrib modules whose code TensorFlow 2 kept, migrated (codemods/rules/contrib_modules.py): tf.contrib.data
(and compat/contrib_data.py), tf.contrib.tpu and tf.contrib.cluster_resolver. The fixture
tests/codemods/fixtures/contrib_data_to_experimental, rewritten, builds the batches TensorFlow 1.x's
transformations made (written out here from their documented behaviour: interleaving blocks of 3 from two shards,
mapping and batching by 4 with the remainder dropped, batching and padded batching with the remainder dropped),
and trains its estimator."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from tests.codemods.test_fixtures import FIXTURES
from tests.conftest import import_program

FIXTURE = FIXTURES / "contrib_data_to_experimental"
TPU_FIXTURE = FIXTURES / "contrib_tpu_modules"


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_the_migrated_pipeline_makes_tf1s_batches(target, tmp_path):
    program = import_program(FIXTURE / f"{target}.py")
    batches = [batch.tolist() for batch in program.input_fn({"batch_size": 4}).as_numpy_iterator()]
    # shard 0: 0..5, shard 1: 10..15, interleaved by blocks of 3: 0 1 2 10 11 12 3 4 5 13 14 15; doubled; by 4
    assert batches == [[0, 2, 4, 20], [22, 24, 6, 8], [10, 26, 28, 30]]
    rows, padded = program.row_input_fn({"batch_size": 3})
    assert [batch.tolist() for batch in rows.as_numpy_iterator()] == [[0, 1, 2], [3, 4, 5]]  # 6 dropped
    padded = [batch.tolist() for batch in padded.as_numpy_iterator()]
    assert padded == [[[0, 0], [0, 1]], [[0, 1, 2, 0], [0, 1, 2, 3]]]  # [0 1 2 3 4] dropped
    # and the estimator trains on it, as the migrated main() does (with its own model_dir)
    model = program.estimator_training.configure(
        program.wrapped_model_fns.WrappedModelFn(program.model_fn, params={"batch_size": 4}), model_dir=tmp_path)
    train = program.estimator_loop.train if target == "loop" else program.estimator_training.train
    train(model, program.input_fn, max_steps=3)
    assert int(np.asarray(model.tf1_variables["global_step"])) == 3


@pytest.mark.parametrize("target", ["keras", "loop"])
def test_a_tpu_program_importing_tf_contrib_starts_and_trains_without_a_tpu(target, tmp_path):
    """tests/codemods/fixtures/contrib_tpu_modules (BERT's run_classifier shape), migrated: it imports (its
    tf.contrib.tpu and tf.contrib.cluster_resolver are tf.compat.v1's, the same objects) and trains to max_steps as
    TPUEstimator did with use_tpu=False. (With use_tpu=True its TPUClusterResolver asks GCE's metadata server for
    the TPU, as under TensorFlow 1.x.)"""
    source = (TPU_FIXTURE / f"{target}.py").read_text().split('"""', 2)[2]  # (after the docstring)
    assert "tensorflow.contrib" not in source and "tf.contrib" not in source
    program = import_program(TPU_FIXTURE / f"{target}.py")
    assert program.contrib_tpu.CrossShardOptimizer is tf.compat.v1.tpu.CrossShardOptimizer
    assert program.TPUClusterResolver is tf.distribute.cluster_resolver.TPUClusterResolver
    program.main(str(tmp_path / "model"))
    assert tf.train.latest_checkpoint(str(tmp_path / "model")).endswith("-20")
