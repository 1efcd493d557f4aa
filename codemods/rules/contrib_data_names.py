"""`tf.contrib.data.<name>` -> `tf.compat.v1.data.experimental.<name>`, and `batch_and_drop_remainder(n)` /
`padded_batch_and_drop_remainder(...)` -> `contrib_data.<the same>(...)` (compat/contrib_data.py).

TensorFlow 1.x input pipelines (BERT's run_classifier, the TPU models) reached tf.data's transformations through
tf.contrib.data: `dataset.apply(tf.contrib.data.map_and_batch(parse, batch_size, drop_remainder=True))`,
`parallel_interleave`, `shuffle_and_repeat`. By TensorFlow 1.15 those were deprecated aliases of
tf.data.experimental's, with the same parameters in the same order, which TensorFlow 2 keeps (the v1 ones under
tf.compat.v1). The two drop-remainder batchings went into `Dataset.batch(..., drop_remainder=True)`; compat
gives their transformation functions back as they were. What is not listed (`sliding_window_batch`,
`make_csv_dataset`, whose defaults moved, ...) keeps its TODO (codemods/rules/contrib_names.py).
"""

import libcst as cst

from codemods.api import dotted_name
from codemods.registry import Rule, register
from codemods.rules.tf_slim_names import spells_contrib

# tf.contrib.data's names that were tf.data.experimental's, parameters unchanged (TensorFlow 1.15's contrib/data)
EXPERIMENTAL = frozenset({
    "AUTOTUNE", "Counter", "CsvDataset", "Reducer", "SqlDataset", "TFRecordWriter", "bucket_by_sequence_length",
    "choose_from_datasets", "copy_to_device", "dense_to_sparse_batch", "enumerate_dataset", "get_next_as_optional",
    "get_single_element", "group_by_reducer", "group_by_window", "ignore_errors", "make_saveable_from_iterator",
    "map_and_batch", "parallel_interleave", "parse_example_dataset", "prefetch_to_device", "rejection_resample",
    "sample_from_datasets", "scan", "shuffle_and_repeat", "unbatch", "unique",
})
COMPAT = frozenset({"batch_and_drop_remainder", "padded_batch_and_drop_remainder"})
MESSAGE = ("tf.contrib.data (removed in TensorFlow 2.0) -> tf.compat.v1.data.experimental, the same transformations "
           "(batch_and_drop_remainder: compat.contrib_data)")


@register
class ContribDataNamesRule(Rule):
    rule_id = "contrib-data-names"
    node_types = (cst.Attribute, cst.ImportFrom)

    def leave(self, original, updated, ctx):
        if not ctx.mentions("contrib"):
            return updated
        if isinstance(original, cst.ImportFrom):
            return self._import_from(original, updated, ctx)
        if not spells_contrib(original) or not updated.deep_equals(original):
            return updated
        api = ctx.resolver.api(original)
        if api is None or api.path.count(".") != 2 or not api.path.startswith("contrib.data."):
            return updated
        name = api.path.rsplit(".", 1)[1]
        if name in COMPAT:
            ctx.need_compat("contrib_data")
            ctx.record_once(original, self.rule_id, True, MESSAGE)
            return cst.parse_expression(f"contrib_data.{name}")
        if name in EXPERIMENTAL:
            ctx.record_once(original, self.rule_id, True, MESSAGE)
            return cst.parse_expression(f"{ctx.need_tensorflow()}.compat.v1.data.experimental.{name}")
        return updated

    def _import_from(self, original: cst.ImportFrom, updated, ctx):
        """`from tensorflow.contrib.data import map_and_batch` -> `from tensorflow.compat.v1.data.experimental
        import map_and_batch` (every name tf.data.experimental's)."""
        if original.relative or original.module is None or isinstance(original.names, cst.ImportStar) \
                or not updated.deep_equals(original) or dotted_name(original.module) != "tensorflow.contrib.data":
            return updated
        if not all(dotted_name(alias.name) in EXPERIMENTAL for alias in original.names):
            return updated
        ctx.record(original, self.rule_id, True, MESSAGE)
        return updated.with_changes(module=cst.parse_expression("tensorflow.compat.v1.data.experimental"))
