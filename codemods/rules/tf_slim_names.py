"""`tf.contrib.layers.<name>`, `tf.contrib.framework.<name>`, `tf.contrib.slim[.<name>]` -> `tf_slim[.<name>]`,
for the names tf-slim has.

tf.contrib went with TensorFlow 2.0. Its layers (`fully_connected`, `conv2d`, `batch_norm`, `layer_norm`,
`flatten`), initializers (`xavier_initializer`, `variance_scaling_initializer`), regularizers (`l2_regularizer`),
`optimize_loss`, summaries, the arg scopes and variable helpers of contrib.framework, and all of contrib.slim
moved, as the same code, into the tf-slim package (`pip install tf-slim`, `import tf_slim`), which runs on
TensorFlow 2's tf.compat.v1: a TF1 program keeps its meaning by naming it there. Its layers build on Keras 2's
legacy layers: a model_fn kept as written (compat.wrapped_model_fns) and a TF1 graph program
(compat.tf1_programs.run_as_tf1) get them. What tf-slim lacks (contrib.layers' feature columns and
`embed_sequence`, contrib.framework's `nest`) keeps its TODO (codemods/rules/contrib_names.py).

Rewritten: references spelled from TensorFlow (`tf.contrib.layers.xavier_initializer()`, `slim = tf.contrib.slim`)
and the imports `import tensorflow.contrib.slim as slim`, `from tensorflow.contrib import slim`, `from
tensorflow.contrib.{layers,framework,slim} import <names tf-slim has>`.
"""

import libcst as cst

from codemods.api import dotted_name
from codemods.registry import Rule, register
from codemods.syntax import field_ids

# tf-slim 1.1's public names, by the tf.contrib module whose code they are (tests/test_tf_slim_names.py checks them
# against the installed tf_slim): tf_slim.layers (contrib.layers), tf_slim.ops.variables and arg_scope
# (contrib.framework), and the whole of tf_slim (contrib.slim).
LAYERS = frozenset({
    "GDN", "RevBlock", "adaptive_clipping_fn", "apply_regularization", "avg_pool2d", "avg_pool3d", "batch_norm",
    "bias_add", "bucketize", "conv1d", "conv2d", "conv2d_in_plane", "conv2d_transpose", "conv3d", "conv3d_transpose",
    "convolution", "convolution1d", "convolution2d", "convolution2d_in_plane", "convolution2d_transpose",
    "convolution3d", "convolution3d_transpose", "dense_to_sparse", "dropout", "flatten", "fully_connected", "gdn",
    "group_norm", "images_to_sequence", "instance_norm", "l1_l2_regularizer", "l1_regularizer", "l2_regularizer",
    "layer_norm", "legacy_fully_connected", "max_pool2d", "max_pool3d", "maxout", "one_hot_encoding", "optimize_loss",
    "pool", "recompute_grad", "repeat", "rev_block", "scale_gradient", "separable_conv2d", "separable_convolution2d",
    "sequence_to_images", "softmax", "spatial_softmax", "stack", "sum_regularizer", "summarize_activation",
    "summarize_activations", "summarize_collection", "summarize_tensor", "summarize_tensors", "unit_norm",
    "variance_scaling_initializer", "xavier_initializer", "xavier_initializer_conv2d",
})
FRAMEWORK = frozenset({
    "VariableDeviceChooser", "add_arg_scope", "add_model_variable", "arg_scope", "arg_scope_func_key",
    "arg_scoped_arguments", "assert_global_step", "assert_or_get_global_step", "assign_from_checkpoint",
    "assign_from_checkpoint_fn", "assign_from_values", "assign_from_values_fn", "create_global_step",
    "current_arg_scope", "filter_variables", "get_global_step", "get_local_variables", "get_model_variables",
    "get_or_create_global_step", "get_trainable_variables", "get_unique_variable", "get_variable_full_name",
    "get_variables", "get_variables_by_name", "get_variables_by_suffix", "get_variables_to_restore",
    "global_variable", "has_arg_scope", "local_variable", "model_variable", "variable",
})
SLIM = LAYERS | FRAMEWORK | frozenset({
    "arg_scope_lib", "bucketization_op", "data", "data_decoder", "data_provider", "dataset", "dataset_data_provider",
    "evaluation", "initializers", "layers", "learning", "losses", "metrics", "model_analyzer", "normalization",
    "optimizers", "parallel_reader", "prefetch_queue", "queues", "regularizers", "rev_block_lib", "summaries",
    "tfexample_decoder", "train_eval", "training", "utils",
})
MOVED = {"layers": LAYERS, "framework": FRAMEWORK, "slim": SLIM}
MESSAGE = ("tf.contrib.{module} (removed in TensorFlow 2.0) -> tf_slim, the same code (`pip install tf-slim`; its "
           "layers run on tf_keras's legacy layers)")


def moved_import(imported: str | None) -> bool:
    """Whether an import of `imported` (a binding's dotted name) is rewritten to tf_slim by this rule: the name
    then reaches tf_slim, and no contrib TODO is due for its uses."""
    if imported is None or not imported.startswith("tensorflow.contrib."):
        return False
    parts = imported.split(".")[2:]
    return parts == ["slim"] or (len(parts) == 2 and parts[1] in MOVED.get(parts[0], ()))


def spells_contrib(node: cst.Attribute) -> bool:
    """The chain is written from TensorFlow (`tf.contrib.x`), not from a name imported from it."""
    while isinstance(node, cst.Attribute):
        if node.attr.value == "contrib":
            return True
        node = node.value
    return False


@register
class TfSlimNamesRule(Rule):
    rule_id = "tf-slim-names"
    node_types = (cst.Attribute, cst.Import, cst.ImportFrom)

    def leave(self, original, updated, ctx):
        if not ctx.mentions("contrib"):
            return updated
        if isinstance(original, cst.Import):
            return self._import(original, updated, ctx)
        if isinstance(original, cst.ImportFrom):
            return self._import_from(original, updated, ctx)
        if not spells_contrib(original) or not updated.deep_equals(original):
            return updated
        api = ctx.resolver.api(original)
        if api is None or not api.path.startswith("contrib."):
            return updated
        parts = api.path.split(".")[1:]
        if parts == ["slim"] and id(original) not in self._attribute_values(ctx):  # `slim = tf.contrib.slim`
            return self._moved(original, ctx, "slim", cst.Name("tf_slim"))
        if len(parts) == 2 and parts[1] in MOVED.get(parts[0], ()):
            return self._moved(original, ctx, parts[0], cst.parse_expression(f"tf_slim.{parts[1]}"))
        return updated

    def _moved(self, original, ctx, module: str, replacement):
        ctx.need_import("tf_slim")
        ctx.record_once(original, self.rule_id, True, MESSAGE.format(module=module))
        return replacement

    def _import(self, original: cst.Import, updated, ctx):
        """`import tensorflow.contrib.slim as slim` -> `import tf_slim as slim` (the statement's only name)."""
        if len(original.names) != 1 or not updated.deep_equals(original):
            return updated
        (alias,) = original.names
        if dotted_name(alias.name) != "tensorflow.contrib.slim" or alias.asname is None:
            return updated
        ctx.record(original, self.rule_id, True, MESSAGE.format(module="slim"))
        return updated.with_changes(names=[alias.with_changes(name=cst.Name("tf_slim"))])

    def _import_from(self, original: cst.ImportFrom, updated, ctx):
        """`from tensorflow.contrib import slim` -> `import tf_slim as slim`; `from tensorflow.contrib.layers import
        xavier_initializer, fully_connected` -> `from tf_slim import ...` (every name tf-slim's)."""
        if original.relative or original.module is None or isinstance(original.names, cst.ImportStar) \
                or not updated.deep_equals(original):
            return updated
        module = dotted_name(original.module)
        names = [dotted_name(alias.name) for alias in original.names]
        if module == "tensorflow.contrib" and names == ["slim"]:
            (alias,) = original.names
            ctx.record(original, self.rule_id, True, MESSAGE.format(module="slim"))
            asname = alias.asname or cst.AsName(name=cst.Name("slim"))
            return cst.Import(names=[cst.ImportAlias(name=cst.Name("tf_slim"), asname=asname)])
        parts = module.split(".")
        if len(parts) == 3 and parts[:2] == ["tensorflow", "contrib"] and parts[2] in MOVED \
                and all(name in MOVED[parts[2]] for name in names):
            ctx.record(original, self.rule_id, True, MESSAGE.format(module=parts[2]))
            return updated.with_changes(module=cst.Name("tf_slim"))
        return updated

    @staticmethod
    def _attribute_values(ctx) -> set[int]:
        """Ids of the module's nodes that are the value of an attribute (`tf.contrib.slim` in `tf.contrib.slim.x`)."""
        if ctx.tf_slim_attribute_values is None:
            ctx.tf_slim_attribute_values = field_ids(ctx.module, cst.Attribute, "value")
        return ctx.tf_slim_attribute_values
