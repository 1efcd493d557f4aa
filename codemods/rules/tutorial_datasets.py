"""Imports of TensorFlow 1.x's tutorial MNIST reader -> compat.tf1_mnist, the same reader: `from
tensorflow.examples.tutorials.mnist import input_data` -> `from estimator_migrate.compat import tf1_mnist as
input_data`, `import tensorflow.examples.tutorials.mnist.input_data as input_data` likewise, `from
tensorflow.examples.tutorials.mnist.input_data import read_data_sets` -> `from estimator_migrate.compat.tf1_mnist
import read_data_sets` (tf.contrib.learn's spellings of the same module: codemods/contrib_moves.py).

TensorFlow 2's package has no `tensorflow.examples`: such an import stopped the migrated program before it started.
Any other import from there (the tutorial's `mnist` network module, the other tutorials) keeps a TODO.
"""

import libcst as cst

from codemods.api import dotted_name
from codemods.imports import RUNTIME_PACKAGE
from codemods.registry import Rule, register

EXAMPLES = "tensorflow.examples"
READER = "tensorflow.examples.tutorials.mnist.input_data"
READER_NAMES = frozenset({"read_data_sets", "DataSet", "Datasets", "extract_images", "extract_labels",
                          "dense_to_one_hot", "maybe_download", "load_mnist"})
MIGRATED = "tensorflow.examples.tutorials.mnist.input_data (gone from TensorFlow 2's package) -> compat.tf1_mnist, " \
           "TF 1.x's MNIST reader: the same files, splits, scaling and numpy-shuffled batches"
KEPT = "{module}: TensorFlow 2's package has no tensorflow.examples (only the MNIST reader, input_data, has a " \
       "successor: compat.tf1_mnist); copy the code this program uses from TensorFlow 1.x's sources into the project"


def _reader_module(alias_name: str) -> cst.ImportFrom:
    return cst.ImportFrom(module=cst.parse_expression(RUNTIME_PACKAGE),
                          names=[cst.ImportAlias(name=cst.Name("tf1_mnist"), asname=cst.AsName(cst.Name(alias_name)))])


@register
class TutorialDatasetsRule(Rule):
    rule_id = "tutorial-datasets"
    node_types = (cst.Import, cst.ImportFrom)

    def leave(self, original, updated, ctx):
        if not ctx.mentions("examples"):
            return updated
        if isinstance(original, cst.Import):
            return self._import(original, updated, ctx)
        if original.relative or original.module is None or isinstance(original.names, cst.ImportStar):
            return updated
        module = dotted_name(original.module) or ""
        if not (module == EXAMPLES or module.startswith(EXAMPLES + ".")):
            return updated
        names = [dotted_name(alias.name) for alias in original.names]
        if module == READER and set(names) <= READER_NAMES:
            ctx.record(original, self.rule_id, True, MIGRATED)
            return updated.with_changes(module=cst.parse_expression(f"{RUNTIME_PACKAGE}.tf1_mnist"))
        if f"{module}.{names[0]}" == READER and len(names) == 1:
            alias = original.names[0]
            ctx.record(original, self.rule_id, True, MIGRATED)
            return _reader_module(alias.asname.name.value if alias.asname else "input_data")
        ctx.todo(original, self.rule_id, KEPT.format(module=module))
        return updated

    def _import(self, original: cst.Import, updated, ctx):
        """`import tensorflow.examples.tutorials.mnist.input_data as input_data` -> compat.tf1_mnist under that
        name; an import binding `tensorflow` itself, or another module of tensorflow.examples, keeps a TODO."""
        modules = [dotted_name(alias.name) or "" for alias in original.names]
        examples = [module for module in modules if module == EXAMPLES or module.startswith(EXAMPLES + ".")]
        if not examples:
            return updated
        if len(original.names) == 1 and modules[0] == READER and original.names[0].asname is not None:
            ctx.record(original, self.rule_id, True, MIGRATED)
            return _reader_module(original.names[0].asname.name.value)
        ctx.todo(original, self.rule_id, KEPT.format(module=", ".join(examples)))
        return updated
