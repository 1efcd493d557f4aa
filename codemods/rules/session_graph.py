"""The TF1 graph a migrated session loop ran (MonitoredTrainingSession: codemods/monitored_sessions.py;
tf.Session + Saver: codemods/saver_loops.py) becomes a class written before its function.

The statements that built it (global step, input, network, loss, optimizer, train_op, hooks, saver) go; the
class, a compat.model_fns.EstimatorModel, is written before the function (so a program converting old
checkpoints can build the model); a `with tf.Graph().as_default():` around it all is unwrapped: the loop
runs eagerly. The session statement itself is replaced by the rule of its kind.
"""

import libcst as cst

from codemods.model_fns import class_code, keras_optimizer_code
from codemods.optimizers import need_optimizer_module
from codemods.registry import Rule, register
from codemods.rules.tf1_names import respelled
from codemods.templates import statements

_CLASS_DOC = (
    "The network, loss and optimizer {function}()'s {session} ran, as a Keras model (each\n"
    "    layer made once, named as the TF1 graph named it)."
)


@register
class SessionGraphRule(Rule):
    rule_id = "session-graph"
    node_types = (
        cst.SimpleStatementLine, cst.With, cst.For, cst.While, cst.If, cst.Try, cst.FunctionDef, cst.ClassDef,
    )

    def leave(self, original, updated, ctx):
        if id(original) in ctx.facts.monitored_loop_statements:
            return cst.RemoveFromParent()  # the graph the session ran: now in the class and the loop
        if isinstance(original, cst.FunctionDef):
            return self._with_model_classes(original, updated, ctx)
        if any(loop.graph is original for loop in ctx.facts.migrated_sessions()):
            inner = list(updated.body.body)  # `with tf.Graph().as_default():` unwrapped: the loop runs eagerly
            inner[0] = inner[0].with_changes(leading_lines=[*updated.leading_lines, *inner[0].leading_lines])
            return cst.FlattenSentinel(inner)
        return updated

    @staticmethod
    def _with_model_classes(original, updated, ctx):
        """The function, preceded by the class of each session loop it runs."""
        loops = [loop for loop in ctx.facts.migrated_sessions() if loop.shape is not None and loop.shape.function is original]
        if not loops:
            return updated
        classes = []
        for loop in loops:
            optimizer, module = keras_optimizer_code(loop.shape, ctx.resolver)
            need_optimizer_module(ctx, module)
            doc = _CLASS_DOC.format(function=original.name.value, session=loop.what)
            classes += [respelled(statement, ctx) for statement in statements(class_code(loop.shape, optimizer, doc=doc))]
        classes[0] = classes[0].with_changes(leading_lines=updated.leading_lines)
        spacing = [cst.EmptyLine(), cst.EmptyLine()]
        classes[1:] = [c.with_changes(leading_lines=spacing) for c in classes[1:]]
        return cst.FlattenSentinel([*classes, updated.with_changes(leading_lines=spacing)])
