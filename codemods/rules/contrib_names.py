"""`tf.contrib.<module>.<name>` -> kept, with a TODO naming its successor.

tf.contrib went away with TensorFlow 2.0, and was never in `tf.compat.v1`: a program naming it stopped running
long before tf.estimator went too, and the rewrite cannot give it back. What the rewrite migrates or says by
itself (tf.contrib.learn's estimators, the TPU estimator, the early-stopping hooks: codemods/guidance.py) is
that rule's, what moved (to tf-slim, tf.compat.v1) is rewritten (codemods/rules/contrib_modules.py); every other reference says where its code went, so that no migrated program keeps one in silence.
"""

import libcst as cst

from codemods.api import dotted_name
from codemods.contrib_moves import MOVED
from codemods.guidance import GUIDANCE
from codemods.registry import Rule, register
from codemods.rules.contrib_modules import ContribModulesRule, moved_aliases, spells_contrib
from codemods.syntax import field_ids

# Where a tf.contrib module's code went (the contrib sunset: tensorflow/community RFC 20180907)
SUCCESSORS = {
    "layers": "tf_slim where tf-slim has the name (`import tf_slim`: the same code; the rewrite renames the references "
              "it can reach), tf.feature_column for its feature columns, tf_keras.layers otherwise",
    "framework": "tf_slim (arg_scope, variables, assign_from_checkpoint_fn), tf.nest, tf.compat.v1.train's "
                 "global-step functions",
    "slim": "tf_slim (`import tf_slim as slim`: the same code, maintained)",
    "rnn": "tf.compat.v1.nn.rnn_cell's cells named where they are used (`tf.compat.v1.nn.rnn_cell.LSTMCell(...)`: an "
           "import of them runs before the migrated code's compat import and gets Keras 3, which has none), "
           "tf.compat.v1.nn.static_rnn; LSTMBlockFusedCell, LSTMBlockCell and TimeReversedFusedRNN: compat.contrib_rnn's "
           "(renamed where the rewrite reaches them); the other fused cells: no twin, tf_keras.layers.LSTM/GRU",
    "cudnn_rnn": "tf_keras.layers.LSTM/GRU (cuDNN kernels when their defaults are kept)",
    "data": "tf.data.Dataset's methods and tf.compat.v1.data.experimental (sliding_window_batch(size, stride) of one "
            "tensor: dataset.window(size, stride, drop_remainder=True).flat_map(lambda w: w.batch(size)); "
            "make_csv_dataset: tf.data.experimental's, whose prefetch and parallel-read defaults moved)",
    "training": "compat.tf1_hparams.HParams for HParams (TF 1.x's; the rewrite renames the references it can reach); "
                "the rest: tf.data and tf.compat.v1.train",
    "metrics": "tf_slim.metrics, the same code, for its names (the rewrite renames the references it can reach); "
               "tf.compat.v1.metrics (streaming_<name> -> <name>, labels first)",
    "losses": "tf_slim.losses, the same code (logits first; the rewrite renames the references it can reach), or "
              "tf.compat.v1.losses (labels first)",
    "lookup": "tf.lookup",
    "predictor": "tf.saved_model.load(export_dir).signatures[key] (from_saved_model and from_estimator are rewritten "
                 "where the rewrite reaches them)",
    "distribute": "tf.distribute (MirroredStrategy and OneDeviceStrategy of one device are rewritten where the "
                  "rewrite reaches them; TensorFlow 2's MirroredStrategy splits each batch across its replicas, "
                  "contrib's did not)",
    "tpu": "tf.compat.v1.tpu, or tf.distribute.TPUStrategy",
    "cluster_resolver": "tf.distribute.cluster_resolver",
    "staging": "tf.data prefetching (Dataset.prefetch, tf.data.experimental.prefetch_to_device)",
    "opt": "a tf_keras optimizer of the same algorithm (LazyAdamOptimizer, AdamWOptimizer, MomentumWOptimizer and "
           "extend_with_decoupled_weight_decay are renamed to compat.contrib_opt's, TF 1.x's, where the rewrite reaches "
           "them)",
    "image": "compat.contrib_image's rotate, translate and transform (renamed where the rewrite reaches them); "
             "tf_keras.layers.RandomRotation / RandomTranslation for augmentation",
    "util": "tf.make_tensor_proto / tf.make_ndarray (renamed where the rewrite reaches them); constant_value: "
            "tf.get_static_value",
    "crf": "compat.contrib_crf's functions of the same names (crf_log_likelihood, crf_decode, viterbi_decode, ...: "
           "renamed where the rewrite reaches them; the RNN cells are not)",
    "learn": "tf.estimator's counterpart (then run migrate again); learn.preprocessing's VocabularyProcessor is "
             "compat.contrib_learn's, where the rewrite reaches it",
    "estimator": "tf.estimator / tf.compat.v1.estimator's counterpart (then run migrate again; clip_gradients_by_norm, "
                 "replicate_model_fn and TowerOptimizer are renamed to compat.contrib_estimator's where the rewrite "
                 "reaches them)",
}


def _said_elsewhere(path: str) -> bool:
    """Whether codemods/guidance.py speaks for `path` or a name below it (the unsupported-api rule's TODO)."""
    return path in GUIDANCE or any(key.startswith(path + ".") for key in GUIDANCE)


def _may_reach_contrib(node: cst.Attribute, ctx) -> bool:
    """A cheap test before resolving: the chain spells `contrib`, or starts at a name imported from tf.contrib."""
    if spells_contrib(node):
        return True
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name) and node.value not in moved_aliases(ctx) and any(  # (moved: rewritten)
        binding.imported is not None and binding.imported.startswith("tensorflow.contrib")
        for binding in ctx.bindings.by_name.get(node.value, ()))


@register
class ContribNamesRule(Rule):
    rule_id = "contrib-api"
    node_types = (cst.Attribute, cst.Call, cst.Import, cst.ImportFrom)

    def interested(self, node, ctx) -> bool:
        return ctx.mentions("contrib")

    def leave(self, original, updated, ctx):
        if not ctx.mentions("contrib"):
            return updated
        if isinstance(original, cst.Import):
            if updated.deep_equals(original):  # (else rewritten: to tf_slim)
                for alias in original.names:  # `import tensorflow.contrib.learn as tflearn`: the program stops here
                    module = dotted_name(alias.name)
                    if module.startswith("tensorflow.contrib."):
                        self._todo(original, ctx, module.split(".")[2])
            return updated
        if isinstance(original, cst.ImportFrom):
            if not updated.deep_equals(original):
                return updated  # rewritten (to tf_slim)
            module = dotted_name(original.module) if original.module is not None and not original.relative else None
            if module == "tensorflow.contrib" and isinstance(original.names, cst.ImportStar):
                self._todo(original, ctx, None)  # `from tensorflow.contrib import *`
            elif module == "tensorflow.contrib":
                for alias in original.names:  # `from tensorflow.contrib import slim, layers`: each module's
                    self._todo(original, ctx, dotted_name(alias.name))
            elif module and module.startswith("tensorflow.contrib."):
                self._todo(original, ctx, module.split(".")[2])
            return updated
        if isinstance(original, cst.Call):  # a call's own name: kept only if no other rule rewrote the call
            if isinstance(original.func, cst.Attribute) and isinstance(updated, cst.Call) \
                    and _may_reach_contrib(original.func, ctx) and updated.func.deep_equals(original.func):
                self._flag(original.func, ctx)
            return updated
        if _may_reach_contrib(original, ctx) and id(original) not in self._call_functions(ctx) \
                and updated.deep_equals(original):
            self._flag(original, ctx)
        return updated

    def _flag(self, node: cst.Attribute, ctx) -> None:
        """A TODO for `tf.contrib.<module>.<name>` (the first name below the module speaks for a longer chain)."""
        api = ctx.resolver.api(node)
        if api is not None and api.path == "contrib" and id(node) not in ContribModulesRule.attribute_values(ctx):
            self._todo(node, ctx, None)  # `tf.contrib` itself, as a value (`contrib = tf.contrib`)
            return
        if api is None or not api.path.startswith("contrib.") or _said_elsewhere(api.path):
            return
        module = api.path.removeprefix("contrib.")
        if id(node) in ContribModulesRule.attribute_values(ctx) and any(
                key == module or key.startswith(module + ".") for key in MOVED):
            return  # a step of a chain reaching a moved module (tf.contrib.learn.datasets.mnist.x): judged whole
        within = module.rsplit(".", 1)[0]
        if "." in within and within in MOVED:  # a name of a moved module's module (tf.contrib.framework.nest.x)
            self._todo(node, ctx, within.split(".")[0])
            return
        if module in MOVED:  # that module (its names speak for it where it is their value)
            if id(node) not in ContribModulesRule.attribute_values(ctx):
                self._todo(node, ctx, api.path.split(".")[1])
            return
        if api.path.count(".") != 2:
            return
        inner = ctx.resolver.api(node.value)
        if inner is not None and inner.path.count(".") == 1:
            self._todo(node, ctx, api.path.split(".")[1])

    @staticmethod
    def _call_functions(ctx) -> set[int]:
        """Ids of the module's call names (`f` of `f(...)`): judged at their call, once other rules had it."""
        if ctx.contrib_call_functions is None:
            ctx.contrib_call_functions = field_ids(ctx.module, cst.Call, "func")
        return ctx.contrib_call_functions

    def _todo(self, node, ctx, module: str | None) -> None:
        successor = SUCCESSORS.get(module, "its TensorFlow 2 successor (the tf.contrib sunset RFC lists them)")
        name = f"tf.contrib.{module}" if module else "tf.contrib"
        ctx.todo(node, self.rule_id, f"{name} (removed in TensorFlow 2.0; not in tf.compat.v1): port to {successor}")
