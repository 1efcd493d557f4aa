"""Exact resume under a distribution strategy (compat.workers' replay), in one process with real TF.

The two-worker runs with real kills are in test_multiworker.py; these check the pieces: a remade
iterator has the order the next `iter()` would have had, and a later `fit` with more epochs continues
the same run exactly (the finished run's backup was written at its last step, so it names the next epoch).
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf
import tf_keras

from estimator_migrate.compat import workers
from estimator_migrate.compat.exact import ExactBackupAndRestore


def _distributed(strategy):
    data = tf.data.Dataset.range(32).shuffle(32, seed=7, reshuffle_each_iteration=True).batch(8)
    return strategy.experimental_distribute_dataset(data)


def _first_batch(iterator):
    return next(iterator).numpy().tolist()


def test_a_remade_iterator_has_the_order_the_next_iter_would_have():
    strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
    expected = [_first_batch(iter(dataset)) for dataset in [_distributed(strategy)] for _ in range(3)]
    assert len({str(order) for order in expected}) == 3  # reshuffled each time: the check can tell them apart
    iterator = iter(_distributed(strategy))
    remade = [iterator]
    for _ in range(2):
        remade.append(workers.another_iterator(remade[-1]))
    assert [_first_batch(it) for it in remade] == expected


def test_skip_draws_the_batches_already_trained():
    strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
    expected = list(iter(_distributed(strategy)))[2].numpy().tolist()
    iterator = iter(_distributed(strategy))
    workers.skip(iterator, 2)
    assert _first_batch(iterator) == expected


def _fit(strategy, backup_dir, epochs, save_freq=5):
    tf_keras.utils.set_random_seed(3)
    with strategy.scope():
        model = tf_keras.Sequential([tf_keras.Input((4,)), tf_keras.layers.Dense(3), tf_keras.layers.Dense(1)])
        model.compile(optimizer="adam", loss="mse")
    rng = np.random.default_rng(0)
    data = tf.data.Dataset.from_tensor_slices((rng.normal(size=(40, 4)), rng.normal(size=(40, 1))))
    data = data.shuffle(40, seed=1, reshuffle_each_iteration=True).batch(8)
    backup = ExactBackupAndRestore(backup_dir, save_freq=save_freq, delete_checkpoint=False, save_before_preemption=False)
    model.fit(data, epochs=epochs, callbacks=[backup], verbose=0)
    return model


def test_a_later_fit_with_more_epochs_continues_the_same_run_under_a_strategy(tmp_path):
    strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
    whole = _fit(strategy, tmp_path / "whole", epochs=3)
    _fit(strategy, tmp_path / "parts", epochs=2)
    continued = _fit(strategy, tmp_path / "parts", epochs=3)
    assert int(continued.optimizer.iterations.numpy()) == int(whole.optimizer.iterations.numpy()) == 15
    for a, b in zip(continued.get_weights(), whole.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_a_later_fit_with_more_epochs_continues_the_same_run_from_a_tf_data_iterator(tmp_path):
    """The finished run's last iterator is spent (restored, it would end the next epoch at once): its
    backup holds the iterator fit would have made next."""
    strategy = tf.distribute.get_strategy()
    whole = _fit(strategy, tmp_path / "whole", epochs=3)
    _fit(strategy, tmp_path / "parts", epochs=2)
    continued = _fit(strategy, tmp_path / "parts", epochs=3)
    assert int(continued.optimizer.iterations.numpy()) == 15
    for a, b in zip(continued.get_weights(), whole.get_weights()):
        np.testing.assert_array_equal(a, b)
