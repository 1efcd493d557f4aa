"""compat.contrib_opt: tf.contrib.opt's LazyAdamOptimizer and decoupled weight decay optimizers as TensorFlow 1.x
had them (TensorFlow 2.15 has no tf.contrib: the reference is their documented algorithm, written out in numpy).
Three steps on an embedding read by gathered rows (a sparse gradient, one row twice in a batch) and a dense weight,
in a TF1 graph as a kept model_fn builds it: lazy Adam moves only the rows each batch touched, their moments too,
and is Adam on the dense weight; AdamW decays each variable (a sparse one: the rows touched) by weight_decay times
its value before Adam's update, only those in apply_gradients' decay_var_list when given (minimize's was lost in
TF 1.x: it called apply_gradients, which set the list again to every variable; so it is here)."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from estimator_migrate.compat import contrib_opt

BATCHES = [[0, 2, 2], [1, 2, 4], [4, 4, 0]]  # row ids read per step (each a gathered row of the table)
# loss = sum(table[ids] * SCALE) + sum(weight * WEIGHT_SCALE): gradients that do not read the variables (a decay
# of a variable is not ordered with the reads of it a gradient makes, in TF 1.x as here)
SCALE = np.array([1.0, -2.0, 0.5])
WEIGHT_SCALE = np.array([2.0, -0.5])
LR, BETA1, BETA2, EPS = 0.1, 0.9, 0.999, 1e-8


def _train(optimizer, decay_var_list=None, by="minimize"):
    """The table and weight after the batches, minimized by `optimizer` in a TF1 graph (`by`: minimize, or
    compute_gradients then apply_gradients, given the decay_var_list)."""
    with tf.Graph().as_default():
        table = tf.compat.v1.get_variable("table", initializer=np.arange(15, dtype=np.float32).reshape(5, 3) / 10)
        weight = tf.compat.v1.get_variable("weight", initializer=np.array([1.0, -1.0], np.float32))
        ids = tf.compat.v1.placeholder(tf.int32, [None])
        loss = tf.reduce_sum(tf.gather(table, ids) * SCALE) + tf.reduce_sum(weight * WEIGHT_SCALE)
        kwargs = {} if decay_var_list is None else {"decay_var_list": [{"table": table, "weight": weight}[name]
                                                                       for name in decay_var_list]}
        if by == "minimize":
            train_op = optimizer.minimize(loss, **kwargs)
        else:
            train_op = optimizer.apply_gradients(optimizer.compute_gradients(loss), **kwargs)
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            for batch in BATCHES:
                session.run(train_op, {ids: batch})
            return session.run([table, weight])


def _numpy_start():
    """The table, the weight and their first and second moments, before the first step."""
    table = np.arange(15, dtype=np.float64).reshape(5, 3) / 10
    weight = np.array([1.0, -1.0])
    return table, weight, {"table": np.zeros_like(table), "weight": np.zeros(2)}, \
        {"table": np.zeros_like(table), "weight": np.zeros(2)}


def _table_gradient(batch):
    gradient = np.zeros((5, 3))
    for row in batch:
        gradient[row] += SCALE  # duplicates summed, as the optimizer deduplicates them
    return gradient


def _numpy_lazy_adam():
    """Lazy Adam's table and weight after the batches: the table's rows each batch read move, their moments
    too; the dense weight is Adam's."""
    table, weight, m, v = _numpy_start()
    for step, batch in enumerate(BATCHES, start=1):
        grad_table = _table_gradient(batch)
        step_size = LR * np.sqrt(1 - BETA2 ** step) / (1 - BETA1 ** step)
        for name, value, grad, where in (("table", table, grad_table, sorted(set(batch))),
                                         ("weight", weight, WEIGHT_SCALE, slice(None))):
            m[name][where] = BETA1 * m[name][where] + (1 - BETA1) * grad[where]
            v[name][where] = BETA2 * v[name][where] + (1 - BETA2) * grad[where] ** 2
            value[where] -= step_size * m[name][where] / (np.sqrt(v[name][where]) + EPS)
    return table, weight


def test_lazy_adam_moves_only_the_rows_each_batch_touched():
    table, weight = _train(contrib_opt.LazyAdamOptimizer(LR))
    expected_table, expected_weight = _numpy_lazy_adam()
    np.testing.assert_allclose(table, expected_table, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(weight, expected_weight, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(table[3], np.arange(9, 12, dtype=np.float32) / 10)  # never read: never moved
    # core Adam moves every row (their moments decay): row 1, read once at step 2, moves again at step 3
    adam_table, _ = _train(tf.compat.v1.train.AdamOptimizer(LR))
    assert not np.allclose(adam_table[1], table[1])


@pytest.mark.parametrize(("decay_var_list", "by", "decayed"), [
    (None, "minimize", ("table", "weight")),
    (["weight"], "apply_gradients", ("weight",)),
    (["table"], "apply_gradients", ("table",)),
    (["weight"], "minimize", ("table", "weight")),  # TF 1.x's: minimize's list was lost
])
def test_adamw_decays_before_adams_update(decay_var_list, by, decayed):
    table, weight = _train(contrib_opt.AdamWOptimizer(0.05, learning_rate=LR), decay_var_list, by)
    expected_table, expected_weight = _numpy_sparse_adam_with_decay(0.05, decayed)
    np.testing.assert_allclose(table, expected_table, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(weight, expected_weight, rtol=1e-6, atol=1e-6)


def _numpy_sparse_adam_with_decay(weight_decay, decayed):
    """Adam's sparse update (TF1 AdamOptimizer: moments of every row decay, the rows read get the gradient) after the
    decay of the rows touched (the table) or of the whole variable (the weight)."""
    table, weight, m, v = _numpy_start()
    for step, batch in enumerate(BATCHES, start=1):
        grad_table = _table_gradient(batch)
        rows = sorted(set(batch))
        if "table" in decayed:
            table[rows] -= weight_decay * table[rows]
        grad_weight = WEIGHT_SCALE
        if "weight" in decayed:
            weight -= weight_decay * weight
        step_size = LR * np.sqrt(1 - BETA2 ** step) / (1 - BETA1 ** step)
        for name, value, grad in (("table", table, grad_table), ("weight", weight, grad_weight)):
            m[name] = BETA1 * m[name] + (1 - BETA1) * grad
            v[name] = BETA2 * v[name] + (1 - BETA2) * grad ** 2
            value -= step_size * m[name] / (np.sqrt(v[name]) + EPS)
    return table, weight


def test_decoupled_weight_decay_extends_any_tf1_optimizer():
    sgdw = contrib_opt.extend_with_decoupled_weight_decay(tf.compat.v1.train.GradientDescentOptimizer)
    _, weight = _train(sgdw(0.1, learning_rate=LR), ["weight"], "apply_gradients")
    expected = np.array([1.0, -1.0])
    for _ in BATCHES:
        expected = expected - 0.1 * expected - LR * WEIGHT_SCALE
    np.testing.assert_allclose(weight, expected, rtol=1e-6)
    momentum = contrib_opt.MomentumWOptimizer(0.1, LR, 0.9)
    assert momentum.get_name() == "MomentumW" and momentum.get_slot_names() == []


_PROGRAM = '''\
import argparse
import numpy as np
import tensorflow as tf


def model_fn(features, labels, mode, params):
    table = tf.get_variable("embeddings", [17, 4])
    logits = tf.layers.dense(tf.reduce_mean(tf.nn.embedding_lookup(table, features["ids"]), axis=1), 10)
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = tf.contrib.opt.LazyAdamOptimizer(0.05) if params["lazy"] else \\
        tf.contrib.opt.AdamWOptimizer(1e-3, learning_rate=0.05)
    return tf.estimator.EstimatorSpec(mode, loss=loss,
                                      train_op=optimizer.minimize(loss, global_step=tf.train.get_global_step()))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--lazy", action="store_true")
    args = parser.parse_args()
    ids = np.random.RandomState(0).randint(0, 17, size=(200, 5))
    labels = (ids.sum(axis=1) % 10).astype(np.int32)
    estimator = tf.estimator.Estimator(model_fn, model_dir=args.model_dir, params={"lazy": args.lazy})
    estimator.train(lambda: tf.data.Dataset.from_tensor_slices(({"ids": ids}, labels)).repeat().batch(20), max_steps=10)


if __name__ == "__main__":
    main()
'''


@pytest.mark.parametrize(("flags", "slot"), [(["--lazy"], "Adam"), ([], "AdamW")], ids=["lazy_adam", "adamw"])
def test_a_migrated_model_fn_trains_with_them(flags, slot, tmp_path):
    """The model_fn kept as written (compat.wrapped_model_fns) trains with them; their slots have TF 1.x's names
    (LazyAdam: Adam's)."""
    from tests.conftest import MODERN_PYTHON, migrate_file, run, tf1_variables_in

    program = tmp_path / "program.py"
    program.write_text(_PROGRAM)
    migrated = migrate_file(program, tmp_path / "migrated", "keras")
    assert "contrib_opt.LazyAdamOptimizer(0.05)" in migrated.read_text() and "tf.contrib" not in migrated.read_text()
    run([MODERN_PYTHON, migrated, "--model_dir", tmp_path / "model", *flags])
    variables = tf1_variables_in(tf.train.latest_checkpoint(str(tmp_path / "model")))
    assert int(variables["global_step"]) == 10
    assert {f"embeddings/{slot}", f"embeddings/{slot}_1"} <= set(variables)
