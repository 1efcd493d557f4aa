"""TPUEstimator programs, migrated as they ran with `use_tpu=False`: on CPU or GPU, as wrapped model_fns.

A TPUEstimator with `use_tpu=False` is an Estimator (tensorflow_estimator's tpu_estimator.py, the CPU path):
the model_fn gets `params["batch_size"]` (the mode's train/eval/predict batch size) and `params["use_tpu"] =
False`, the input_fn gets `params["batch_size"]`, and a `TPUEstimatorSpec` becomes an `EstimatorSpec`
(`as_estimator_spec`): `eval_metrics=(metric_fn, tensors)` gives the eval_metric_ops, `scaffold_fn()` the
scaffold. `WrappedTPUModelFn` does the same around `compat.wrapped_model_fns.WrappedModelFn`.

What a TPU ran is not migrated: `use_tpu=True` fails when the estimator is built, with one error (that program
needs `tf.distribute.TPUStrategy`). `TPUConfig` and the TPU `RunConfig`'s own arguments are kept and have no
effect on CPU, as in TensorFlow. A `host_call` (the host's summaries) is not run: TF1 summaries of a wrapped
model_fn are not written (logged once).
"""

from __future__ import annotations

import collections
import copy
import dataclasses
import inspect
import logging
from typing import Any

from .estimator_training import EVAL, PREDICT, TRAIN, TrainingConfig
from .wrapped_model_fns import EstimatorSpec, WrappedModelFn

log = logging.getLogger(__name__)

_RESERVED_PARAMS = ("batch_size", "context")


class InputPipelineConfig:
    """`tf.estimator.tpu.InputPipelineConfig`: the same values (used by TPUs only)."""

    PER_SHARD_V1 = 1
    PER_HOST_V1 = 2
    PER_HOST_V2 = 3
    BROADCAST = 4
    SLICED = 5


class TPUConfig(collections.namedtuple("TPUConfig", [
        "iterations_per_loop", "num_shards", "num_cores_per_replica", "per_host_input_for_training",
        "tpu_job_name", "initial_infeed_sleep_secs", "input_partition_dims", "eval_training_input_configuration",
        "experimental_host_call_every_n_steps", "experimental_allow_per_host_v2_parallel_get_next",
        "experimental_feed_hook"])):
    """`tf.estimator.tpu.TPUConfig`: the same fields, positions and defaults; with `use_tpu=False` none of
    them changes what trains."""

    def __new__(cls, iterations_per_loop=2, num_shards=None, num_cores_per_replica=None,
                per_host_input_for_training=True, tpu_job_name=None, initial_infeed_sleep_secs=None,
                input_partition_dims=None, eval_training_input_configuration=InputPipelineConfig.PER_HOST_V1,
                experimental_host_call_every_n_steps=1, experimental_allow_per_host_v2_parallel_get_next=False,
                experimental_feed_hook=None):
        return super().__new__(cls, iterations_per_loop, num_shards, num_cores_per_replica,
                               per_host_input_for_training, tpu_job_name, initial_infeed_sleep_secs,
                               input_partition_dims, eval_training_input_configuration,
                               experimental_host_call_every_n_steps,
                               experimental_allow_per_host_v2_parallel_get_next, experimental_feed_hook)


@dataclasses.dataclass(frozen=True)
class TPUTrainingConfig(TrainingConfig):
    """`tf.estimator.tpu.RunConfig`: a TrainingConfig that also takes the TPU's own settings (`tpu_config`,
    `master`, `evaluation_master`, `cluster`), kept and unused on CPU."""

    tpu_config: Any = None
    evaluation_master: Any = None
    master: Any = None
    cluster: Any = None

    def __post_init__(self):
        super().__post_init__()
        if self.tpu_config is None:
            object.__setattr__(self, "tpu_config", TPUConfig())


class TPUEstimatorSpec(collections.namedtuple("TPUEstimatorSpec", [
        "mode", "predictions", "loss", "train_op", "eval_metrics", "export_outputs", "scaffold_fn", "host_call",
        "training_hooks", "evaluation_hooks", "prediction_hooks"])):
    """`tf.estimator.tpu.TPUEstimatorSpec`: the same fields and defaults; `as_estimator_spec` is TensorFlow's
    conversion for CPU."""

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metrics=None, export_outputs=None,
                scaffold_fn=None, host_call=None, training_hooks=None, evaluation_hooks=None, prediction_hooks=None):
        for name, call in (("eval_metrics", eval_metrics), ("host_call", host_call)):
            if call is not None and not (isinstance(call, tuple | list) and len(call) == 2 and callable(call[0])):
                raise ValueError(f"{name} must be a (function, tensors) pair, got {call!r}")
        return super().__new__(cls, mode, predictions, loss, train_op, eval_metrics, export_outputs, scaffold_fn,
                               host_call, tuple(training_hooks or ()), tuple(evaluation_hooks or ()),
                               tuple(prediction_hooks or ()))

    def as_estimator_spec(self) -> EstimatorSpec:
        """The EstimatorSpec TPUEstimator trained with on CPU: eval_metric_ops from `metric_fn(*tensors)` (or
        `**tensors` for a dict), the scaffold from `scaffold_fn()`."""
        eval_metric_ops = None
        if self.eval_metrics is not None:
            metric_fn, tensors = self.eval_metrics
            eval_metric_ops = metric_fn(*tensors) if isinstance(tensors, tuple | list) else metric_fn(**tensors)
        if self.host_call is not None:
            log.warning("TPUEstimatorSpec host_call is not run: TF1 summaries of a wrapped model_fn are not written")
        return EstimatorSpec(
            mode=self.mode, predictions=self.predictions, loss=self.loss, train_op=self.train_op,
            eval_metric_ops=eval_metric_ops, export_outputs=self.export_outputs,
            scaffold=self.scaffold_fn() if self.scaffold_fn else None, training_hooks=self.training_hooks,
            evaluation_hooks=self.evaluation_hooks, prediction_hooks=self.prediction_hooks)


class WrappedTPUModelFn(WrappedModelFn):
    """A TPUEstimator's model_fn, run as TPUEstimator ran it with `use_tpu=False` (see the module docstring).

    Takes TPUEstimator's arguments after `model_fn` and `params` (`model_dir` and `config` go to
    `estimator_training.configure`, as for every migrated estimator). `use_tpu=True` is refused.
    """

    input_fn_needs_params = True  # TPUEstimator passes the batch size as params["batch_size"]

    def __init__(self, model_fn, params=None, use_tpu=True, train_batch_size=None, eval_batch_size=None,
                 predict_batch_size=None, batch_axis=None, eval_on_tpu=True, export_to_tpu=True, export_to_cpu=True,
                 **kwargs):
        if use_tpu:
            raise ValueError(
                "TPUEstimator(use_tpu=True): running on a TPU is not migrated (that needs "
                "tf.distribute.TPUStrategy); run the migrated program with use_tpu=False (CPU or GPU)"
            )
        if params is not None and any(key in params for key in _RESERVED_PARAMS):
            raise ValueError(f"{list(_RESERVED_PARAMS)} are reserved keys but existed in params {params}.")
        if callable(model_fn) and "params" not in inspect.signature(model_fn).parameters:
            raise ValueError(f"model_fn ({model_fn}) does not include params argument, required by TPUEstimator "
                             "to pass batch size as params['batch_size']")
        super().__init__(model_fn, params=params, **kwargs)
        self.batch_sizes = {TRAIN: train_batch_size, EVAL: eval_batch_size, PREDICT: predict_batch_size}

    def params_for_model_fn(self, mode: str) -> dict:
        params = super().params_for_model_fn(mode)
        if self.batch_sizes[mode] is not None:
            params["batch_size"] = self.batch_sizes[mode]
        params["use_tpu"] = False
        return params

    def params_for_input_fn(self, mode: str) -> dict:
        params = copy.deepcopy(self.model_fn_params)
        if self.batch_sizes[mode] is not None:
            params["batch_size"] = self.batch_sizes[mode]
        return params

    def estimator_spec(self, spec) -> EstimatorSpec:
        return super().estimator_spec(spec.as_estimator_spec() if isinstance(spec, TPUEstimatorSpec) else spec)
