"""Which TensorFlow a program was written for, read from the APIs it calls.

`tf.estimator.DNNClassifier` names two classes: in TensorFlow 1.x the v1 estimator (its head sums the loss over
the batch, TF1 optimizers, a DNN's named optimizers at 0.05), from 2.0 on the v2 one (averaged loss, Keras
optimizers). A module that calls APIs the plain `tensorflow` namespace had only in 1.x (`tf.Session`,
`tf.train.AdamOptimizer`, `tf.logging`, `tf.contrib`, ...) was written for 1.x: there the estimators it builds
through `tf.estimator` are v1's, and the rewrite must keep their meaning. `tf.compat.v1.*` says nothing (it
runs on 2.x too); so do strings and comments (the module is read with `ast`).
"""

from __future__ import annotations

import ast
import re

from codemods.tf1_api import missing_in_tf2

# Paths below the `tensorflow` root that 1.x had and 2.x removed (2.x keeps them under tf.compat.v1 only).
_TF1_ONLY = re.compile(
    r"^(contrib|Session|InteractiveSession|placeholder|placeholder_with_default|get_variable|variable_scope|"
    r"global_variables_initializer|local_variables_initializer|tables_initializer|logging|app|flags|gfile|"
    r"layers|python_io|GraphKeys|to_float|to_int32|to_int64|random_normal|random_uniform|truncated_normal|"
    r"train\.\w+Optimizer|train\.Saver|train\.get_global_step|train\.get_or_create_global_step|"
    r"train\.MonitoredTrainingSession|train\.SessionRunHook|train\.\w+Hook|estimator\.inputs|"
    r"feature_column\.input_layer|feature_column\.linear_model|feature_column\.shared_embedding_columns|summary\.FileWriter|summary\.merge_all|losses\.sparse_softmax_cross_entropy|"
    r"losses\.softmax_cross_entropy|losses\.get_regularization_loss)(\.|$)"
)


def written_for_tf1(source: str) -> bool:
    """Whether `source` calls an API of the plain `tensorflow` namespace that only TensorFlow 1.x had."""
    nodes = _tensorflow_module_nodes(source)
    return nodes is not None and calls_tf1_only_apis(nodes)


def uses_tf1_names(source: str) -> bool:
    """Whether `source` names something below the plain `tensorflow` root that TensorFlow 2 does not have
    (codemods/tf1_api.py): its names are then TF1's, spelled `tf.compat.v1.<name>` by codemods/rules/tf1_names.
    (`tf.contrib`, never in tf.compat.v1, does not count: once the others are spelled so, a second rewrite
    finds nothing to do.)"""
    nodes = _tensorflow_module_nodes(source)
    return nodes is not None and names_tf1_only_apis(nodes)


def _tensorflow_module_nodes(source: str) -> list[ast.AST] | None:
    """Every node of `source` (`ast.walk`), None when it names no tensorflow or does not parse."""
    if "tensorflow" not in source:
        return None
    try:
        return list(ast.walk(ast.parse(source)))
    except (SyntaxError, ValueError):
        return None


def names_tf1_only_apis(nodes: list[ast.AST]) -> bool:
    """`uses_tf1_names` of a module already parsed with `ast`, given all its nodes (`ast.walk`)."""
    return _names_below_tensorflow(nodes, missing_in_tf2)


def calls_tf1_only_apis(nodes: list[ast.AST]) -> bool:
    """`written_for_tf1` of a module already parsed with `ast`, given all its nodes (`ast.walk`)."""
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "tensorflow.contrib" or node.module.startswith("tensorflow.contrib."):
                return True
            if node.module == "tensorflow" and any(_TF1_ONLY.match(alias.name) for alias in node.names):
                return True
    return _names_below_tensorflow(nodes, _TF1_ONLY.match)


def _names_below_tensorflow(nodes: list[ast.AST], matches) -> bool:
    """Whether an attribute chain rooted at a name `import tensorflow` bound reaches a path (below the root)
    that `matches`, or `from tensorflow import <name>` imports one."""
    if any(isinstance(node, ast.ImportFrom) and node.module == "tensorflow" and node.level == 0
           and any(matches(alias.name) for alias in node.names) for node in nodes):
        return True
    aliases = {alias.asname or "tensorflow" for node in nodes if isinstance(node, ast.Import)
               for alias in node.names if alias.name == "tensorflow"}
    if not aliases:
        return False
    for node in nodes:
        if isinstance(node, ast.Attribute):
            dotted = dotted_name(node)
            if dotted is not None:
                head, _, rest = dotted.partition(".")
                if head in aliases and matches(rest):
                    return True
    return False


def dotted_name(node: ast.AST) -> str | None:
    """`a.b.c` of a name or attribute chain; None when the chain starts elsewhere (a call's result)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])
