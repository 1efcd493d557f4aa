"""tf.estimator.experimental's early-stopping hooks (tf.contrib.estimator's were the same functions) with their own
signatures, for code that builds them away from the train call they go to: a helper given the estimator
(`build_decrease_hook(estimator, ...)`), a method reading `self.estimator` (codemods/runtime_tier.py; a hook built
in the train call's own hooks list becomes compat.estimator_hooks' callback directly).

Each checks, when the program runs, that `estimator` is a migrated one (compat.estimator_training.configure's: the
callback stops that model's training), reads the evaluations where Estimator's hook did (`estimator.eval_dir()`
unless `eval_dir` is given), and returns compat.estimator_hooks' callback, asked on the same schedule.
"""

from __future__ import annotations

from . import estimator_hooks, estimator_training


def _eval_dir(estimator, eval_dir, what: str) -> str:
    estimator_training.config_of(estimator, what)  # a migrated estimator, or one error saying what it is
    return estimator_training.eval_dir(estimator) if eval_dir is None else eval_dir


def stop_if_no_decrease_hook(estimator, metric_name, max_steps_without_decrease, eval_dir=None, min_steps=0,
                             run_every_secs=60, run_every_steps=None):
    """A callback stopping the training once `metric_name` has not decreased for `max_steps_without_decrease`."""
    return estimator_hooks.stop_if_no_decrease_hook(
        _eval_dir(estimator, eval_dir, "stop_if_no_decrease_hook"), metric_name, max_steps_without_decrease,
        min_steps=min_steps, run_every_secs=run_every_secs, run_every_steps=run_every_steps)


def stop_if_no_increase_hook(estimator, metric_name, max_steps_without_increase, eval_dir=None, min_steps=0,
                             run_every_secs=60, run_every_steps=None):
    """A callback stopping the training once `metric_name` has not increased for `max_steps_without_increase`."""
    return estimator_hooks.stop_if_no_increase_hook(
        _eval_dir(estimator, eval_dir, "stop_if_no_increase_hook"), metric_name, max_steps_without_increase,
        min_steps=min_steps, run_every_secs=run_every_secs, run_every_steps=run_every_steps)


def stop_if_higher_hook(estimator, metric_name, threshold, eval_dir=None, min_steps=0, run_every_secs=60,
                        run_every_steps=None):
    """A callback stopping the training once `metric_name` is higher than `threshold`."""
    return estimator_hooks.stop_if_higher_hook(
        _eval_dir(estimator, eval_dir, "stop_if_higher_hook"), metric_name, threshold, min_steps=min_steps,
        run_every_secs=run_every_secs, run_every_steps=run_every_steps)


def stop_if_lower_hook(estimator, metric_name, threshold, eval_dir=None, min_steps=0, run_every_secs=60,
                       run_every_steps=None):
    """A callback stopping the training once `metric_name` is lower than `threshold`."""
    return estimator_hooks.stop_if_lower_hook(
        _eval_dir(estimator, eval_dir, "stop_if_lower_hook"), metric_name, threshold, min_steps=min_steps,
        run_every_secs=run_every_secs, run_every_steps=run_every_steps)


def make_early_stopping_hook(estimator, should_stop_fn, run_every_secs=60, run_every_steps=None):
    """A callback stopping the training once `should_stop_fn()` returns True."""
    estimator_training.config_of(estimator, "make_early_stopping_hook")
    return estimator_hooks.make_early_stopping_hook(should_stop_fn, run_every_secs, run_every_steps)
