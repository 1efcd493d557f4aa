"""The canned Estimators the rewrite migrates, and the `compat.canned` builder each becomes.

Arguments in `keywords` are carried over as written (optimizers converted by `codemods.optimizers`);
`model_dir` and `config` move to the checkpointing code of the train calls, partitioners are dropped; any
other argument keeps the estimator as it was, with a TODO. DNNLinearCombined* train with two optimizers: `fit` runs the builder's
own train step, the loop target steps both (`two_optimizers`).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from codemods.api import Api
from codemods.syntax import is_none


@dataclass(frozen=True)
class CannedSpec:
    builder: str  # the compat.canned function
    keywords: frozenset[str]
    required: tuple[str, ...]
    optimizers: tuple[str, ...]  # keywords holding an optimizer
    two_optimizers: bool = False  # the model has `linear_optimizer` besides `optimizer`
    # The leading parameters the v1 and v2 classes (tensorflow_estimator 2.15) share in this order: positional
    # arguments bind to them; past them v1's partitioner parameters shift the rest, so those must be named.
    positional: tuple[str, ...] = ()
    # head-based (DNNEstimator(head=...)): the builder takes the head (compat.estimator_heads') and reads its loss
    # reduction and version from it, when the program runs
    head_based: bool = False


_DNN = frozenset({
    "feature_columns", "hidden_units", "optimizer", "dropout", "activation_fn", "batch_norm", "weight_column",
})
_LINEAR = frozenset({"feature_columns", "optimizer", "weight_column", "sparse_combiner"})
_DNN_CLASSIFIER_ORDER = ("hidden_units", "feature_columns", "model_dir", "n_classes", "weight_column",
                         "label_vocabulary", "optimizer", "activation_fn", "dropout")
_DNN_REGRESSOR_ORDER = ("hidden_units", "feature_columns", "model_dir", "label_dimension", "weight_column",
                        "optimizer", "activation_fn", "dropout")
_LINEAR_CLASSIFIER_ORDER = ("feature_columns", "model_dir", "n_classes", "weight_column", "label_vocabulary",
                            "optimizer", "config")
_LINEAR_REGRESSOR_ORDER = ("feature_columns", "model_dir", "label_dimension", "weight_column", "optimizer", "config")
_COMBINED_ORDER = ("model_dir", "linear_feature_columns", "linear_optimizer", "dnn_feature_columns", "dnn_optimizer",
                   "dnn_hidden_units", "dnn_activation_fn", "dnn_dropout")

CANNED = {
    "estimator.DNNClassifier": CannedSpec(
        "dnn_classifier", _DNN | {"n_classes", "label_vocabulary"}, ("feature_columns", "hidden_units"), ("optimizer",),
        positional=_DNN_CLASSIFIER_ORDER,
    ),
    "estimator.DNNRegressor": CannedSpec(
        "dnn_regressor", _DNN | {"label_dimension"}, ("feature_columns", "hidden_units"), ("optimizer",),
        positional=_DNN_REGRESSOR_ORDER,
    ),
    "estimator.LinearClassifier": CannedSpec(
        "linear_classifier", _LINEAR | {"n_classes", "label_vocabulary"}, ("feature_columns",), ("optimizer",),
        positional=_LINEAR_CLASSIFIER_ORDER,
    ),
    "estimator.LinearRegressor": CannedSpec(
        "linear_regressor", _LINEAR | {"label_dimension"}, ("feature_columns",), ("optimizer",),
        positional=_LINEAR_REGRESSOR_ORDER,
    ),
}
_COMBINED = frozenset({
    "linear_feature_columns", "linear_optimizer", "dnn_feature_columns", "dnn_optimizer", "dnn_hidden_units",
    "dnn_activation_fn", "dnn_dropout", "batch_norm", "weight_column", "linear_sparse_combiner",
})
_COMBINED_REQUIRED = ("linear_feature_columns", "dnn_feature_columns", "dnn_hidden_units")
CANNED["estimator.DNNLinearCombinedClassifier"] = CannedSpec(
    "dnn_linear_combined_classifier", _COMBINED | {"n_classes", "label_vocabulary"}, _COMBINED_REQUIRED,
    ("linear_optimizer", "dnn_optimizer"), two_optimizers=True, positional=(*_COMBINED_ORDER, "n_classes",
                                                                           "weight_column", "label_vocabulary"),
)
CANNED["estimator.DNNLinearCombinedRegressor"] = CannedSpec(
    "dnn_linear_combined_regressor", _COMBINED | {"label_dimension"}, _COMBINED_REQUIRED,
    ("linear_optimizer", "dnn_optimizer"), two_optimizers=True,
    positional=(*_COMBINED_ORDER, "label_dimension", "weight_column"),
)
# A baseline has no feature columns: its one bias per output is every example's logits (compat.canned.BaselineModel)
_BASELINE = frozenset({"optimizer", "weight_column"})
CANNED["estimator.BaselineClassifier"] = CannedSpec(
    "baseline_classifier", _BASELINE | {"n_classes", "label_vocabulary"}, (), ("optimizer",),
    positional=("model_dir", "n_classes", "weight_column", "label_vocabulary", "optimizer", "config",
                "loss_reduction"),
)
CANNED["estimator.BaselineRegressor"] = CannedSpec(
    "baseline_regressor", _BASELINE | {"label_dimension"}, (), ("optimizer",),
    positional=("model_dir", "label_dimension", "weight_column", "optimizer", "config", "loss_reduction"),
)
# Head-based estimators (tf.estimator's, TensorFlow 1.x's tf.contrib.estimator's): the classifier or regressor of
# their head (compat.canned.dnn_estimator(head, ...) decides which, and refuses a head neither has)
_HEAD_BASED = {
    "DNNEstimator": CannedSpec(
        "dnn_estimator", (_DNN - {"weight_column"}) | {"head"}, ("head", "hidden_units", "feature_columns"),
        ("optimizer",), positional=("head", "hidden_units", "feature_columns", "model_dir", "optimizer",
                                    "activation_fn", "dropout"), head_based=True),
    "LinearEstimator": CannedSpec(
        "linear_estimator", (_LINEAR - {"weight_column"}) | {"head"}, ("head", "feature_columns"), ("optimizer",),
        positional=("head", "feature_columns", "model_dir", "optimizer", "config"), head_based=True),
    "DNNLinearCombinedEstimator": CannedSpec(
        "dnn_linear_combined_estimator", (_COMBINED - {"weight_column"}) | {"head"},
        ("head", *_COMBINED_REQUIRED), ("linear_optimizer", "dnn_optimizer"), two_optimizers=True,
        positional=("head", *_COMBINED_ORDER), head_based=True),
    "BaselineEstimator": CannedSpec(
        "baseline_estimator", frozenset({"head", "optimizer"}), ("head",), ("optimizer",),
        positional=("head", "model_dir", "optimizer", "config"), head_based=True),
}
for _name, _spec in _HEAD_BASED.items():
    CANNED[f"estimator.{_name}"] = CANNED[f"contrib.estimator.{_name}"] = _spec
MOVED_TO_CHECKPOINTING = ("model_dir", "config")
# Partitioners split variables across parameter servers; the model computes the same without them (TF2's
# counterpart is a ParameterServerStrategy's variable_partitioner): dropped. Only v1 estimators take them.
DROPPED = ("partitioner", "input_layer_partitioner")
# Given as a literal None they are their default (no warm start): dropped; any other value goes, with model_dir
# and config, to the run-time tier's `configure` (compat.warm_start), which tier 1's code has no place for.
DROPPED_WHEN_NONE = ("warm_start_from",)


def accepted(key: str, spec: CannedSpec, v1: bool, value: cst.BaseExpression | None = None) -> bool:
    """Whether a canned estimator's `key=` argument (`value`) is migrated: carried over, moved or dropped
    (`loss_reduction` only as its head's own: `loss_reduction_problem`)."""
    return key in spec.keywords or key in MOVED_TO_CHECKPOINTING or (v1 and key in DROPPED) \
        or key == "loss_reduction" or (key in DROPPED_WHEN_NONE and value is not None and is_none(value))


# An explicit `loss_reduction=` (tf.losses, tf.compat.v1.losses or tf.keras.losses `Reduction`) -> compat.canned's
# loss_reduction. The heads' own: v1 heads sum over the batch, v2 heads average (AUTO: v2's own, the mean).
_REDUCTIONS = {"SUM": "sum", "SUM_OVER_BATCH_SIZE": "sum_over_batch_size", "AUTO": "sum_over_batch_size"}
# ... or written as its value: ReductionV2's (v2 estimators) and tf.compat.v1.losses.Reduction's (v1)
_REDUCTION_VALUES = {"sum": "sum", "sum_over_batch_size": "sum_over_batch_size", "auto": "sum_over_batch_size",
                     "weighted_sum": "sum", "weighted_sum_over_batch_size": "sum_over_batch_size"}
# TF1's MEAN (v1 heads only: ReductionV2 has none) divides by the sum of the example weights: without a weight_column,
# by the number of losses, as SUM_OVER_BATCH_SIZE (the same steps and metrics, measured on the real Estimator)
_MEAN = ("MEAN", "weighted_mean")
HEAD_REDUCTION = {True: "sum", False: "sum_over_batch_size"}  # v1 -> the head's own


def explicit_reduction(value, resolver, kwargs: dict) -> str | None:
    """compat.canned's loss_reduction for a canned estimator's `loss_reduction=` value, given its other keyword
    arguments `kwargs` (None: not migrated)."""
    if isinstance(value, cst.SimpleString):
        name = value.evaluated_value
    else:
        api = resolver.api(value)
        if api is None or api.path.rsplit(".", 1)[0] not in ("losses.Reduction", "keras.losses.Reduction"):
            return None
        name = api.path.rsplit(".", 1)[1]
    if name in _MEAN:
        weighted = "weight_column" in kwargs and not is_none(kwargs["weight_column"])
        return None if weighted else "sum_over_batch_size"
    return _REDUCTION_VALUES.get(name) if isinstance(value, cst.SimpleString) else _REDUCTIONS.get(name)


def builder_reduction(kwargs: dict, resolver, v1: bool) -> str:
    """compat.canned's loss_reduction for a canned estimator's keyword arguments (its head's own by default)."""
    if "loss_reduction" in kwargs:
        return explicit_reduction(kwargs["loss_reduction"], resolver, kwargs)
    return HEAD_REDUCTION[v1]


def loss_reduction_problem(kwargs: dict, resolver) -> str | None:
    """Why a canned estimator's explicit `loss_reduction=` (in its keyword arguments `kwargs`) is not carried over
    (None when it is: SUM, SUM_OVER_BATCH_SIZE, MEAN without example weights)."""
    if explicit_reduction(kwargs["loss_reduction"], resolver, kwargs) is not None:
        return None
    return ("loss_reduction= other than SUM or SUM_OVER_BATCH_SIZE (MEAN with a weight_column: the mean by the "
            "weights' sum; SUM_BY_NONZERO_WEIGHTS) is not migrated yet")


def head_api(api: Api, arguments: dict, resolver) -> Api:
    """The canned estimator a call builds, `api` resolved from its name and `arguments` its arguments by name
    (`call_arguments`), with the head the program ran with: a `tf.estimator` class given a TF1 optimizer
    (`tf.compat.v1.train.AdamOptimizer(...)`, also in `lambda: ...`) is TensorFlow 1.x's v1 estimator, whose head
    summed the loss over the batch. TensorFlow 2's v2 classes refuse a TF1 optimizer ("not a
    tf.keras.optimizers.Optimizer instance"), so the program can only have run on 1.x."""
    if api.path.startswith("contrib.estimator."):
        return Api(api.path, True)  # TensorFlow 1.x's head-based estimators
    if api.v1 or not any(_tf1_optimizer(arguments[key], resolver) for key in CANNED[api.path].optimizers
                         if key in arguments):
        return api
    return Api(api.path, True)


def _tf1_optimizer(node: cst.BaseExpression, resolver) -> bool:
    if isinstance(node, cst.Lambda):
        node = node.body
    optimizer = resolver.call_api(node)
    return optimizer is not None and optimizer.path.startswith("train.") and optimizer.path.endswith("Optimizer")
