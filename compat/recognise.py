"""Recognising a canned Estimator from its checkpoint: family, head, layers, features, optimizer and slots.

Everything comes from variable names and shapes, plus the meta graph the Estimator saved beside the
checkpoint (`compat.legacy_graph`) for what names cannot tell: feature names and shapes of a DNN,
classifier or regressor, the hidden activation, TF1 optimizers' hyperparameters.

Optimizer state has two spellings. TF1 optimizers (v1 heads) keep slots beside the variable:
`<var>/Adam`, `<var>/t_0/Adagrad`, `<var>/part_0/Ftrl_1`, and non-slot state such as `dnn/head/beta1_power`.
Keras optimizers (v2 heads) keep them under `training/<Optimizer>/<var>/<slot>` with hyperparameters as
variables (`training/Adam/learning_rate`); their step is the Estimator's `global_step`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .legacy_checkpoint import TRAINING_STATE, CheckpointError, LegacyCheckpoint
from .legacy_graph import GraphFacts, read_graph_facts
from .optimizer_state import V1_SLOT, V1_SLOTS, V2_KINDS, V2_VARIABLE, v1_keras_slot, v2_keras_slot

HYPERPARAMETERS = {"learning_rate", "beta1", "beta2", "epsilon", "momentum", "learning_rate_power", "beta",
                   "l1_regularization_strength", "l2_regularization_strength",
                   "l2_shrinkage_regularization_strength", "beta_1", "beta_2", "decay", "rho", "lr"}
V1_OPTIMIZER_SCOPES = {"Adagrad": "Adagrad", "Adam": "Adam", "Ftrl": "Ftrl", "Momentum": "Momentum",
                       "RMSProp": "RMSProp", "SGD": "GradientDescent", "Adadelta": "Adadelta"}
# Vocabularies, hash buckets and boundaries live in the program, which can convert with its own model.
_BY_PROGRAM = (" by the command; call compat.canned_checkpoint.convert_estimator_checkpoint(model, checkpoint, "
               "new_model_dir) with the migrated program's model")
_HIDDEN = re.compile(r"^dnn/hiddenlayer_(\d+)/kernel$")
_BATCH_NORM = re.compile(r"^dnn/hiddenlayer_(\d+)/batchnorm_\1/(gamma|beta|moving_mean|moving_variance)$")
_MODEL_WEIGHT = re.compile(
    r"^(dnn/(hiddenlayer_\d+|logits)/(kernel|bias)|dnn/hiddenlayer_(\d+)/batchnorm_\4/\w+"
    r"|dnn/input_from_feature_columns/input_layer/[^/]+/embedding_weights"
    r"|linear/linear_model/([^/]+/weights|bias_weights))(/part_\d+)?$"
)
_LINEAR_WEIGHTS = re.compile(r"^linear/linear_model/(?P<key>[^/]+)/weights$")
_UNSUPPORTED = (  # (pattern, what it shows, what to do instead)
    (re.compile(r"embedding_weights$"), "embedding feature columns", _BY_PROGRAM),
    (re.compile(r"^(boosted_trees|kmeans|rnn)"), "this estimator family", ""),
)


@dataclass
class OptimizerState:
    """One optimizer of the Estimator: its kind, hyperparameters and where each slot lives."""

    kind: str  # Adadelta | Adagrad | Adam | Ftrl | Momentum | RMSProp | SGD
    part: str  # dnn | linear
    hyper: dict[str, float] = field(default_factory=dict)
    # legacy weight name -> {tf_keras slot name: legacy slot variable name}
    slots: dict[str, dict[str, str]] = field(default_factory=dict)
    non_slot: dict[str, str] = field(default_factory=dict)  # e.g. beta1_power -> its legacy name
    nesterov: bool = False  # Momentum: Nesterov's (from the graph)


@dataclass
class CannedEstimator:
    """A recognised canned Estimator checkpoint."""

    family: str  # dnn | linear | dnn_linear_combined
    task: str  # classifier | regressor
    head: str  # v1 | v2
    logits_units: int
    features: dict[str, dict[str, tuple[int, ...]]]  # part (dnn|linear) -> feature name -> shape
    hidden_units: list[int]
    activation: str
    optimizers: dict[str, OptimizerState]  # part -> its optimizer
    global_step: int
    batch_norm: bool = False  # batch normalisation after each hidden layer

    @property
    def estimator_name(self) -> str:
        family = {"dnn": "DNN", "linear": "Linear", "dnn_linear_combined": "DNNLinearCombined"}[self.family]
        module = "tf.compat.v1.estimator" if self.head == "v1" else "tf.estimator"
        return f"{module}.{family}{self.task.capitalize()}"

    @property
    def n_classes(self) -> int | None:
        if self.task != "classifier":
            return None
        return 2 if self.logits_units == 1 else self.logits_units

    def tf1_momentum(self, part: str) -> bool:
        """Whether `part`'s slots are TF1 Momentum accumulators (which Keras keeps scaled by -lr)."""
        return self.optimizers[part].kind == "Momentum" and self.head == "v1"

    @property
    def label_dimension(self) -> int | None:
        return self.logits_units if self.task == "regressor" else None


def part_of(name: str) -> str:
    """The part of a canned model a legacy variable belongs to: linear, baseline or dnn."""
    return next((part for part in ("linear", "baseline") if name.startswith(f"{part}/")), "dnn")


def _weights(checkpoint: LegacyCheckpoint) -> list[str]:
    return sorted(
        n for n in checkpoint.shapes
        if (n.startswith("dnn/") or n.startswith("linear/")) and not V1_SLOT.match(n)
        and "/head/" not in n and n.rsplit("/", 1)[-1] in ("kernel", "bias", "weights", "bias_weights")
    )


def _v1_optimizers(checkpoint: LegacyCheckpoint, weights: list[str], graph: GraphFacts | None):
    states: dict[str, OptimizerState] = {}
    for name in checkpoint.shapes:
        match = V1_SLOT.match(name)
        if not match:
            continue
        kind, keras_slot = V1_SLOTS[match["slot"]][0], v1_keras_slot(name, match["slot"], checkpoint.shapes)
        state = states.setdefault(part_of(match["var"]), OptimizerState(kind, part_of(match["var"])))
        state.slots.setdefault(match["var"], {})[keras_slot] = name
    for part in {part_of(w) for w in weights}:
        states.setdefault(part, OptimizerState("SGD", part))
    # The Estimator builds the dnn optimizer first; a second optimizer of the same kind gets a "_1" scope.
    ordered = sorted(states.values(), key=lambda s: s.part)
    seen: dict[str, int] = {}
    for state in ordered:
        count = seen[state.kind] = seen.get(state.kind, -1) + 1
        suffix = f"_{count}" if count else ""
        head_scope = f"{state.part}/head/" if len(ordered) == 1 else "head/"
        # Under RunConfig(train_distribute=...) the replica's scope comes between: dnn/head/dnn/Momentum/...
        hyper = re.compile(
            rf"^{re.escape(head_scope)}(?:[^/]+/)?{re.escape(V1_OPTIMIZER_SCOPES[state.kind] + suffix)}/(?P<key>\w+)$"
        )
        if graph is not None:
            for const, value in graph.constants.items():
                if (match := hyper.match(const)) and match["key"] in HYPERPARAMETERS:
                    state.hyper[match["key"]] = value
        if state.kind == "Adam":
            for power in ("beta1_power", "beta2_power"):
                if f"{head_scope}{power}{suffix}" in checkpoint.shapes:
                    state.non_slot[power] = f"{head_scope}{power}{suffix}"
    return states


def _v2_optimizers(checkpoint: LegacyCheckpoint, weights: list[str]):
    by_name: dict[str, OptimizerState] = {}
    hyper: dict[str, dict[str, str]] = {}
    for name in checkpoint.shapes:
        match = V2_VARIABLE.match(name)
        if not match:
            continue
        rest = match["rest"]
        if "/" not in rest:
            hyper.setdefault(match["opt"], {})[rest] = name
            continue
        var, _, slot = rest.rpartition("/")
        kind = V2_KINDS.get(match["kind"], match["kind"])
        state = by_name.setdefault(match["opt"], OptimizerState(kind, part_of(var)))
        state.slots.setdefault(var, {})[v2_keras_slot(match["kind"], slot) or slot] = name
    for opt_name, values in hyper.items():
        state = by_name.get(opt_name)
        if state is None:  # no slots: plain SGD; which part it trains is told by the other optimizer
            kind = V2_VARIABLE.match(f"training/{opt_name}/x")["kind"]
            parts = {part_of(w) for w in weights} - {s.part for s in by_name.values()}
            state = by_name[opt_name] = OptimizerState(kind, sorted(parts)[0] if parts else "dnn")
        for key, name in values.items():
            if key in HYPERPARAMETERS:
                state.hyper[key] = float(checkpoint.read(name))
    states = {}
    for state in by_name.values():
        if state.kind == "SGD" and state.hyper.get("momentum", 0.0):
            state.kind = "Momentum"
        states[state.part] = state
    return states


def recognise(checkpoint: LegacyCheckpoint) -> CannedEstimator:
    """Identify the canned Estimator behind `checkpoint`, or raise a CheckpointError saying why not."""
    names = checkpoint.shapes
    for pattern, what, instead in _UNSUPPORTED:
        hit = next((n for n in names if pattern.search(n)), None)
        if hit:
            raise CheckpointError(f"{checkpoint.prefix}: {what} ({hit}) cannot be converted{instead}")
    _check_every_variable_is_known(checkpoint)
    has_dnn = "dnn/logits/kernel" in names
    has_linear = "linear/linear_model/bias_weights" in names
    if not (has_dnn or has_linear):
        raise CheckpointError(
            f"{checkpoint.prefix}: no canned Estimator variables (dnn/logits/kernel or "
            "linear/linear_model/bias_weights); for a custom model_fn use compat.load_legacy_checkpoint"
        )
    family = "dnn_linear_combined" if has_dnn and has_linear else ("dnn" if has_dnn else "linear")
    head = "v2" if any(n.startswith("training/") for n in names) else "v1"
    graph = read_graph_facts(checkpoint.meta_graph_file, keras_scopes=head == "v2")
    if graph is None:
        raise CheckpointError(
            f"{checkpoint.prefix}: no {checkpoint.meta_graph_file.name} beside the checkpoint; the Estimator "
            "writes it with every checkpoint and it names the features and the head"
        )
    weights = _weights(checkpoint)
    logits_units = names["dnn/logits/kernel"][-1] if has_dnn else names["linear/linear_model/bias_weights"][-1]
    hidden = sorted((int(m[1]), n) for n in names if (m := _HIDDEN.match(n)))
    features = {}
    if has_linear:
        keys = sorted(m["key"] for n in names if (m := _LINEAR_WEIGHTS.match(n)))
        linear_features = graph.features.get("linear", {})
        unknown = [k for k in keys if k not in linear_features]
        if unknown:
            raise CheckpointError(
                f"{checkpoint.prefix}: linear feature(s) {', '.join(unknown)} are not numeric columns; "
                f"only numeric_column features can be converted from the checkpoint alone{_BY_PROGRAM}"
            )
        features["linear"] = {k: linear_features[k] for k in keys}
    if has_dnn:
        dnn_features = graph.features.get("dnn", {})
        width = names["dnn/hiddenlayer_0/kernel"][0] if hidden else names["dnn/logits/kernel"][0]
        if sum(_size(s) for s in dnn_features.values()) != width:
            raise CheckpointError(
                f"{checkpoint.prefix}: the graph's numeric features ({dnn_features}) do not add up to the "
                f"DNN input width {width}; only numeric_column features can be converted from the checkpoint "
                f"alone{_BY_PROGRAM}"
            )
        features["dnn"] = dict(sorted(dnn_features.items()))
    optimizers = (_v1_optimizers(checkpoint, weights, graph) if head == "v1"
                  else _v2_optimizers(checkpoint, weights))
    for state in optimizers.values():
        state.nesterov = state.kind == "Momentum" and state.part in graph.nesterov
    return CannedEstimator(
        family=family,
        task="classifier" if graph.classifier else "regressor",
        head=head,
        logits_units=int(logits_units),
        features=features,
        hidden_units=[int(names[n][1]) for _, n in hidden],
        activation=graph.activation or "relu",
        optimizers=optimizers,
        global_step=checkpoint.global_step or 0,
        batch_norm=any(_BATCH_NORM.match(n) for n in names),
    )


def _check_every_variable_is_known(checkpoint: LegacyCheckpoint) -> None:
    """Refuse state the conversion would silently drop: e.g. another optimizer's slots (Adadelta's
    `<var>/Adadelta`, `training/Adadelta/...`), which would otherwise convert as a plain SGD."""
    for name in sorted(checkpoint.shapes):
        if name == "global_step" or TRAINING_STATE.search(name) or _MODEL_WEIGHT.match(name):
            continue
        if match := V1_SLOT.match(name):
            continue
        if (match := V2_VARIABLE.match(name)) and V2_KINDS.get(match["kind"], match["kind"]) in V1_OPTIMIZER_SCOPES:
            continue
        raise CheckpointError(
            f"{checkpoint.prefix}: {name} is neither a canned Estimator weight nor the state of a supported "
            f"optimizer ({', '.join(V1_OPTIMIZER_SCOPES)}); it cannot be converted"
        )


def _size(shape: tuple[int, ...]) -> int:
    size = 1
    for dim in shape:
        size *= dim
    return size
