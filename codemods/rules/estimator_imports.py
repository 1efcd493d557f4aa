"""An import of the Estimator package the migrated module still uses -> kept, with a TODO.

TensorFlow >= 2.16 installs no tensorflow_estimator: `from tensorflow_estimator.python.estimator.export.export
import build_supervised_input_receiver_fn_from_input_fn`, `from tensorflow import estimator` fail when the
module is imported. An import the rewrite left unused is removed (codemods/imports.py), and its TODO with it;
one that code the rewrite kept still needs says so, rather than leave the program to fail in silence.
"""

import libcst as cst

from codemods.api import dotted_name
from codemods.registry import Rule, register

MESSAGE = ("{what}: TensorFlow >= 2.16 installs no tensorflow_estimator, and code the rewrite kept uses this "
           "import ({names}): migrate that code (see its TODOs), or install tensorflow-estimator with TensorFlow "
           "2.15 to run it as it is")


def _estimator_module(module: str) -> bool:
    return module == "tensorflow_estimator" or module.startswith(("tensorflow_estimator.", "tensorflow.estimator",
                                                                  "tensorflow.python.estimator"))


@register
class EstimatorImportsRule(Rule):
    rule_id = "estimator-import"
    node_types = (cst.Import, cst.ImportFrom)

    def leave(self, original, updated, ctx):
        if isinstance(original, cst.Import):
            names = [dotted_name(alias.name) for alias in original.names]
            kept = [name for name in names if name and _estimator_module(name)]
        elif original.relative or original.module is None or isinstance(original.names, cst.ImportStar):
            return updated
        else:
            module = dotted_name(original.module) or ""
            imported = [dotted_name(alias.name) for alias in original.names]
            kept = imported if _estimator_module(module) else \
                [name for name in imported if module in ("tensorflow", "tensorflow.compat.v1") and name == "estimator"]
        if kept:
            ctx.todo(original, self.rule_id, MESSAGE.format(what="tensorflow_estimator", names=", ".join(kept)))
        return updated
