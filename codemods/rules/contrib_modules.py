"""`tf.contrib.tpu.<name>` -> `tf.compat.v1.tpu.<name>`, `tf.contrib.cluster_resolver.<name>` ->
`tf.compat.v1.distribute.cluster_resolver.<name>`, `tf.contrib.data.<name>` ->
`tf.compat.v1.data.experimental.<name>`, and their imports (`from tensorflow.contrib import tpu as contrib_tpu` ->
`from tensorflow.compat.v1 import tpu as contrib_tpu`), where TensorFlow kept the same objects.

TPU programs (BERT, ALBERT, EfficientNet, PEGASUS) import these at module level and reach them only when use_tpu is
set: an import left as it was stops the whole program before it starts, on any machine. By TensorFlow 1.15
tf.contrib.tpu's optimizer, scopes and graph functions and tf.contrib.cluster_resolver's resolvers were
tensorflow.python.tpu's and tensorflow.python.distribute's, which TensorFlow 2 keeps under tf.compat.v1. The TPU
estimator's own API (`TPUEstimator`, `TPUEstimatorSpec`, `RunConfig`, `TPUConfig`, `InputPipelineConfig`) is the
run-time tier's (codemods/runtime_tier.py, rules/wrapped_model_fn.py).

TensorFlow 1.x input pipelines (BERT's run_classifier, the TPU models) reached tf.data's transformations through
tf.contrib.data (`dataset.apply(tf.contrib.data.map_and_batch(parse, batch_size, drop_remainder=True))`,
`parallel_interleave`, `shuffle_and_repeat`): by TensorFlow 1.15 deprecated aliases of tf.data.experimental's, with
the same parameters in the same order. The two drop-remainder batchings went into `Dataset.batch(...,
drop_remainder=True)`: compat.contrib_data gives their transformation functions back as they were.

An import of a module is rewritten only when every use of its name reaches one of those; otherwise it keeps its TODO
(rules/contrib_names.py), as does any other name (`sliding_window_batch`, `make_csv_dataset`, whose defaults moved).
"""

import libcst as cst

from codemods.api import dotted_name
from codemods.registry import Rule, register
from codemods.rules.tf_slim_names import spells_contrib
from codemods.syntax import fast_visit

# contrib module -> (where TensorFlow 2 keeps it, the names it kept there: TensorFlow 2.21's, also in 1.15's contrib)
MOVED = {
    "tpu": ("tensorflow.compat.v1.tpu", frozenset({
        "CrossShardOptimizer", "batch_parallel", "bfloat16_scope", "core", "cross_replica_sum", "initialize_system",
        "outside_compilation", "replicate", "rewrite", "shard", "shutdown_system",
    })),
    "cluster_resolver": ("tensorflow.compat.v1.distribute.cluster_resolver", frozenset({
        "ClusterResolver", "KubernetesClusterResolver", "SimpleClusterResolver", "SlurmClusterResolver",
        "TFConfigClusterResolver", "TPUClusterResolver", "UnionResolver",
    })),
    "data": ("tensorflow.compat.v1.data.experimental", frozenset({
        "AUTOTUNE", "Counter", "CsvDataset", "Reducer", "SqlDataset", "TFRecordWriter", "bucket_by_sequence_length",
        "choose_from_datasets", "copy_to_device", "dense_to_sparse_batch", "enumerate_dataset", "get_next_as_optional",
        "get_single_element", "group_by_reducer", "group_by_window", "ignore_errors", "make_saveable_from_iterator",
        "map_and_batch", "parallel_interleave", "parse_example_dataset", "prefetch_to_device", "rejection_resample",
        "sample_from_datasets", "scan", "shuffle_and_repeat", "unbatch", "unique",
    })),
}
# tf.contrib.data's functions TensorFlow 2 has no twin of, given back by compat.contrib_data
CONTRIB_DATA = frozenset({"batch_and_drop_remainder", "padded_batch_and_drop_remainder"})
# Names of a moved module that another rule rewrites (or flags) at their use
HANDLED = {"tpu": frozenset({"TPUEstimator", "TPUEstimatorSpec", "RunConfig", "TPUConfig", "InputPipelineConfig"}),
           "data": CONTRIB_DATA}
MESSAGE = "tf.contrib.{module} (removed in TensorFlow 2.0) -> {target}, the same objects"


class _Uses(cst.CSTVisitor):
    """Each name's attribute uses (`name.attr`) and whether it is also used otherwise (outside imports)."""

    def __init__(self):
        self.attributes: dict[str, set[str]] = {}
        self.bare: set[str] = set()
        self._attribute_values: set[int] = set()

    def visit_Import(self, node) -> bool:
        return False

    def visit_ImportFrom(self, node) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if isinstance(node.value, cst.Name):
            self._attribute_values.add(id(node.value))
            self.attributes.setdefault(node.value.value, set()).add(node.attr.value)

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self._attribute_values:
            self.bare.add(node.value)


def moved_aliases(ctx) -> dict[str, str]:
    """The module's names bound by `from tensorflow.contrib import <module> [as name]` that this rule rewrites
    (every use `name.attr` reaches a name TensorFlow 2 kept, or another rule's): name -> contrib module."""
    if ctx.contrib_moved_aliases is None:
        uses = _Uses()
        fast_visit(ctx.module, uses)
        ctx.contrib_moved_aliases = {}
        for binding_name, bindings in ctx.bindings.by_name.items():
            imported = {binding.imported for binding in bindings}
            if len(imported) != 1:
                continue
            (path,) = imported
            module = path.removeprefix("tensorflow.contrib.") if path else None
            if module not in MOVED or binding_name in uses.bare:
                continue
            allowed = MOVED[module][1] | HANDLED.get(module, frozenset())
            if uses.attributes.get(binding_name, set()) <= allowed:
                ctx.contrib_moved_aliases[binding_name] = module
    return ctx.contrib_moved_aliases


@register
class ContribModulesRule(Rule):
    rule_id = "contrib-modules"
    node_types = (cst.Attribute, cst.ImportFrom)

    def leave(self, original, updated, ctx):
        if not ctx.mentions("contrib"):
            return updated
        if isinstance(original, cst.ImportFrom):
            return self._import_from(original, updated, ctx)
        if not spells_contrib(original) or not updated.deep_equals(original):
            return updated
        api = ctx.resolver.api(original)
        if api is None or api.path.count(".") != 2:
            return updated
        _, module, name = api.path.split(".")
        if module == "data" and name in CONTRIB_DATA:
            ctx.need_compat("contrib_data")
            ctx.record_once(original, self.rule_id, True, "tf.contrib.data (removed in TensorFlow 2.0): "
                            f"{name} -> compat.contrib_data.{name}, the function TF 1.x defined")
            return cst.parse_expression(f"contrib_data.{name}")
        if module not in MOVED or name not in MOVED[module][1]:
            return updated
        target = MOVED[module][0].replace("tensorflow", ctx.need_tensorflow(), 1)
        ctx.record_once(original, self.rule_id, True, MESSAGE.format(module=module, target=MOVED[module][0]))
        return cst.parse_expression(f"{target}.{name}")

    def _import_from(self, original: cst.ImportFrom, updated, ctx):
        """`from tensorflow.contrib import tpu as contrib_tpu` (every use moved) -> `from tensorflow.compat.v1 import
        tpu as contrib_tpu`; `from tensorflow.contrib.cluster_resolver import TPUClusterResolver` -> `from
        tensorflow.compat.v1.distribute.cluster_resolver import TPUClusterResolver`."""
        if original.relative or original.module is None or isinstance(original.names, cst.ImportStar) \
                or not updated.deep_equals(original):
            return updated
        module = dotted_name(original.module)
        names = [dotted_name(alias.name) for alias in original.names]
        if module == "tensorflow.contrib" and len(names) == 1 and names[0] in MOVED:
            alias = original.names[0]
            bound = alias.asname.name.value if alias.asname else names[0]
            if moved_aliases(ctx).get(bound) != names[0]:
                return updated
            target = MOVED[names[0]][0]
            parent, last = target.rsplit(".", 1)
            ctx.record(original, self.rule_id, True, MESSAGE.format(module=names[0], target=target))
            return updated.with_changes(module=cst.parse_expression(parent),
                                        names=[alias.with_changes(name=cst.Name(last))])
        contrib = module.removeprefix("tensorflow.contrib.")
        if contrib in MOVED and all(name in MOVED[contrib][1] for name in names):
            ctx.record(original, self.rule_id, True, MESSAGE.format(module=contrib, target=MOVED[contrib][0]))
            return updated.with_changes(module=cst.parse_expression(MOVED[contrib][0]))
        return updated
