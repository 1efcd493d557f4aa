"""What an Estimator's `model.ckpt-N.meta` graph says that its variables do not.

DNN variable names do not name the features, and no variable says whether logits feed a classifier or a
regressor, which activation the hidden layers use, or (for TF1 optimizers) the learning rate. The training
graph the Estimator saved beside each checkpoint does. It is a `MetaGraphDef` protocol buffer: parsed here
as data, never imported or run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from tensorflow.core.protobuf import meta_graph_pb2

from .legacy_checkpoint import CheckpointError

# Feature columns reshape each feature under their layer's scope: `.../input_layer/<key>/Reshape` (DNN) or
# `.../linear_model/<key>/Reshape` (linear).
_FEATURE_RESHAPE = re.compile(r"(?P<scope>dnn|linear)/.*(?:input_layer|linear_model)/(?P<key>[^/]+)/Reshape$")
# TF1's and Keras 2's momentum updates (dense and sparse); their use_nesterov attribute tells Nesterov's.
_MOMENTUM_UPDATE = re.compile(r"(Resource)?(Sparse)?Apply(Keras)?Momentum")
_ACTIVATIONS = {"Relu": "relu", "Relu6": "relu6", "Elu": "elu", "Selu": "selu", "Tanh": "tanh",
                "Sigmoid": "sigmoid", "Softplus": "softplus", "LeakyRelu": "leaky_relu"}


@dataclass
class GraphFacts:
    """Features (name -> shape without the batch dimension), head kind, activation, optimizer constants, and
    the parts whose momentum is Nesterov's (an attribute of the update op: no checkpoint holds it)."""

    features: dict[str, dict[str, tuple[int, ...]]] = field(default_factory=dict)  # scope -> name -> shape
    classifier: bool = False
    activation: str | None = None
    constants: dict[str, float] = field(default_factory=dict)
    nesterov: set[str] = field(default_factory=set)  # "dnn" / "linear"


def _input_shape(nodes: dict, tensor: str) -> tuple[int, ...] | None:
    """The per-example shape of an input-pipeline output (a queue dequeue or a tf.data iterator)."""
    name, _, index = tensor.partition(":")
    node = nodes.get(name)
    index = int(index or 0)
    if node is None:
        return None
    if node.op in ("QueueDequeueManyV2", "QueueDequeueUpToV2"):
        queue = nodes.get(node.input[0])
        shapes = queue.attr["shapes"].list.shape if queue is not None else []
        if index < len(shapes):
            return tuple(d.size for d in shapes[index].dim)
    if node.op == "IteratorGetNext":
        shapes = node.attr["output_shapes"].list.shape
        if index < len(shapes) and all(d.size >= 0 for d in shapes[index].dim[1:]):
            return tuple(d.size for d in shapes[index].dim[1:])
    return None


def read_graph_facts(meta_file: Path, keras_scopes: bool) -> GraphFacts | None:
    """Facts from the meta graph, or None when the Estimator's `.meta` file is not there.

    `keras_scopes`: the checkpoint came from a v2 (Keras-optimizer) Estimator, whose DNN input layer
    uniquifies each feature's scope once (`age` -> `age_1`).
    """
    if not meta_file.is_file():
        return None
    try:
        meta = meta_graph_pb2.MetaGraphDef.FromString(meta_file.read_bytes())
    except Exception as error:  # protobuf's DecodeError has no stable import path
        raise CheckpointError(f"{meta_file}: not a MetaGraphDef ({error})") from None
    nodes = {node.name: node for node in meta.graph_def.node}
    facts = GraphFacts()
    for node in meta.graph_def.node:
        match = _FEATURE_RESHAPE.search(node.name)
        if match and node.op == "Reshape":
            key = match["key"]
            if keras_scopes and match["scope"] == "dnn":
                key = re.sub(r"_\d+$", "", key)
            width = nodes.get(f"{node.name}/shape/1")
            flat = (width.attr["value"].tensor.int_val[0],) if width is not None else None
            shape = _input_shape(nodes, node.input[0]) or flat
            if shape is not None:
                facts.features.setdefault(match["scope"], {})[key] = shape
        elif node.op == "ArgMax" and node.name.endswith("predictions/class_ids"):
            facts.classifier = True
        elif node.name.startswith("dnn/hiddenlayer_0/") and node.op in _ACTIVATIONS and node.name.count("/") == 2:
            facts.activation = _ACTIVATIONS[node.op]
        elif _MOMENTUM_UPDATE.fullmatch(node.op) and node.attr["use_nesterov"].b:
            facts.nesterov.add("linear" if "/update_linear/" in f"/{node.name}" else "dnn")
        elif node.op == "Const" and "/head/" in f"/{node.name}":
            values = node.attr["value"].tensor.float_val
            if len(values) == 1:  # optimizer hyperparameters are scalar constants under the head's scope
                facts.constants[node.name] = float(values[0])
    return facts
