"""The tf_keras model (and optimizers) for a recognised canned Estimator, and where its weights come from.

`migrate rewrite` emits `compat.canned` builders; this module calls the same builders with what
`compat.recognise` read from the checkpoint, so a converted checkpoint and a migrated program agree on
every layer, variable and slot.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf
import tf_keras

from . import adadelta, canned, rmsprop
from .legacy_checkpoint import CheckpointError, LegacyCheckpoint
from .recognise import CannedEstimator, OptimizerState, part_of

# Optimizer defaults the checkpoint cannot tell: TF1 Adam's epsilon is 1e-8, Keras's 1e-7; a Keras RMSprop's
# epsilon is not saved either (TF1's is a constant in the graph).
ADAM_EPSILON = {"v1": 1e-8, "v2": 1e-7}
KERAS_RMSPROP_EPSILON = 1e-7
DEFAULT_LEARNING_RATE = {"Adagrad": 0.05, "Adam": 0.001, "Ftrl": 0.2, "Momentum": 0.01, "RMSProp": 0.001, "SGD": 0.01,
                         "Adadelta": 0.001}
ADADELTA_EPSILON = {"v1": 1e-8, "v2": 1e-7}  # TF1's default, Keras 2's (not in its checkpoint)


def feature_columns(features: dict[str, tuple[int, ...]]) -> list:
    return [tf.feature_column.numeric_column(key, shape=list(shape)) for key, shape in features.items()]


def build_optimizer(state: OptimizerState, head: str) -> tf_keras.optimizers.Optimizer:
    """The tf_keras optimizer that continues `state` with the same update rule and hyperparameters."""
    hyper = state.hyper
    if state.kind == "RMSProp" and head == "v1":  # TF1's `decay` is Keras's rho
        return rmsprop.tf1_rmsprop(
            hyper.get("learning_rate", DEFAULT_LEARNING_RATE["RMSProp"]),
            decay=hyper.get("decay", 0.9),
            momentum=hyper.get("momentum", 0.0),
            epsilon=hyper.get("epsilon", 1e-10),
            centered=_has_slot(state, "mg"),
        )
    if hyper.get("decay", 0.0):
        raise CheckpointError(
            f"the {state.part} optimizer decays its learning rate (decay={hyper['decay']:g}); "
            "tf_keras optimizers have no `decay`: convert with a LearningRateSchedule by hand"
        )
    lr = hyper.get("learning_rate", hyper.get("lr", DEFAULT_LEARNING_RATE[state.kind]))  # (TF1 Adadelta's: lr)
    if state.kind == "Adadelta":
        return adadelta.Adadelta(lr, rho=hyper.get("rho", 0.95), epsilon=hyper.get("epsilon", ADADELTA_EPSILON[head]))
    if state.kind == "Adagrad":
        return canned.estimator_adagrad(lr, epsilon=0.0 if head == "v1" else canned.KERAS_ADAGRAD_EPSILON)
    if state.kind == "Adam":
        return tf_keras.optimizers.Adam(
            lr,
            beta_1=hyper.get("beta1", hyper.get("beta_1", 0.9)),
            beta_2=hyper.get("beta2", hyper.get("beta_2", 0.999)),
            epsilon=hyper.get("epsilon", ADAM_EPSILON[head]),
        )
    if state.kind == "Ftrl":
        return tf_keras.optimizers.Ftrl(
            lr,
            learning_rate_power=hyper.get("learning_rate_power", -0.5),
            l1_regularization_strength=hyper.get("l1_regularization_strength", 0.0),
            l2_regularization_strength=hyper.get("l2_regularization_strength", 0.0),
            l2_shrinkage_regularization_strength=hyper.get("l2_shrinkage_regularization_strength", 0.0),
            beta=hyper.get("beta", 0.0),
        )
    if state.kind == "Momentum":
        return tf_keras.optimizers.SGD(lr, momentum=hyper.get("momentum", 0.9), nesterov=state.nesterov)
    if state.kind == "SGD":
        return tf_keras.optimizers.SGD(lr)
    if state.kind == "RMSProp":
        return rmsprop.keras_legacy_rmsprop(
            lr,
            rho=hyper.get("rho", 0.9),
            momentum=hyper.get("momentum", 0.0),
            epsilon=KERAS_RMSPROP_EPSILON,
            centered=_has_slot(state, "mg"),
        )
    raise CheckpointError(f"the {state.part} optimizer ({state.kind}) has no tf_keras counterpart here")


def _has_slot(state: OptimizerState, slot: str) -> bool:
    return any(slot in slots for slots in state.slots.values())


def build_model(estimator: CannedEstimator) -> tf_keras.Model:
    """The `compat.canned` model `migrate rewrite` emits for this Estimator, with its optimizer(s)."""
    optimizers = {part: build_optimizer(state, estimator.head) for part, state in estimator.optimizers.items()}
    reduction = canned.V1_HEAD_REDUCTION if estimator.head == "v1" else canned.V2_HEAD_REDUCTION
    head = ({"n_classes": estimator.n_classes} if estimator.task == "classifier"
            else {"label_dimension": estimator.label_dimension})
    builder = getattr(canned, f"{estimator.family}_{estimator.task}")
    if estimator.family == "dnn_linear_combined":
        return builder(
            feature_columns(estimator.features["linear"]), feature_columns(estimator.features["dnn"]),
            estimator.hidden_units, linear_optimizer=optimizers["linear"], dnn_optimizer=optimizers["dnn"],
            dnn_activation_fn=estimator.activation, batch_norm=estimator.batch_norm, loss_reduction=reduction,
            **head,
        )
    columns = feature_columns(estimator.features[estimator.family])
    optimizer = optimizers[estimator.family]
    if estimator.family == "dnn":
        return builder(columns, estimator.hidden_units, optimizer=optimizer, loss_reduction=reduction,
                       activation_fn=estimator.activation, batch_norm=estimator.batch_norm, **head)
    return builder(columns, optimizer=optimizer, loss_reduction=reduction, **head)


def weight_sources(estimator: CannedEstimator, model: tf_keras.Model) -> list[tuple[tf.Variable, list[str]]]:
    """Each model variable with the legacy variables it is made of (concatenated along the first axis).
    A variable of the `linear_model` layer belongs to the linear part, every other one to the DNN; every
    layer keeps the Estimator's variables one to one (`batchnorm_<i>` is `dnn/hiddenlayer_<i>/batchnorm_<i>`)."""
    sources = []
    for layer in model.layers:
        if isinstance(layer, canned.LinearModel):
            for column in layer.feature_columns:
                sources.append((layer.column_weights(column), [f"linear/linear_model/{column.name}/weights"]))
            sources.append((layer.bias, ["linear/linear_model/bias_weights"]))
        elif isinstance(layer, tf_keras.layers.Dense):
            sources.append((layer.kernel, [f"dnn/{layer.name}/kernel"]))
            sources.append((layer.bias, [f"dnn/{layer.name}/bias"]))
        elif isinstance(layer, tf_keras.layers.BatchNormalization):
            scope = f"dnn/hiddenlayer_{layer.name.removeprefix('batchnorm_')}/{layer.name}"
            for variable in (layer.gamma, layer.beta, layer.moving_mean, layer.moving_variance):
                sources.append((variable, [f"{scope}/{variable.name.split('/')[-1].removesuffix(':0')}"]))
    return sources


def read_parts(checkpoint: LegacyCheckpoint, names) -> np.ndarray:
    """The legacy variables `names`, concatenated along the first axis (one name: that tensor)."""
    parts = [checkpoint.read(name) for name in names]
    return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)


def slot_sources(estimator: CannedEstimator, names, slot: str) -> list[str] | None:
    """The legacy slot variables that make the tf_keras `slot` of the weight made of `names`, or None
    when the legacy optimizer keeps no such slot (plain SGD has no momentum: it starts at zero)."""
    state = estimator.optimizers[part_of(names[0])]
    if not all(slot in state.slots.get(name, {}) for name in names):
        return None
    return [state.slots[name][slot] for name in names]


def read_concatenated(checkpoint: LegacyCheckpoint, names: list[str], target: tf.Variable) -> np.ndarray:
    value = read_parts(checkpoint, names)
    if tuple(value.shape) != tuple(target.shape):
        raise CheckpointError(
            f"{checkpoint.prefix}: {' + '.join(names)} has shape {value.shape}, "
            f"the model's {target.name} has {tuple(target.shape)}"
        )
    return value
