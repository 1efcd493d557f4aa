"""`with tf.Session() as sess:` loops saving with a `tf.train.Saver` -> the same loop on a Keras model,
checkpointed by a `tf.train.CheckpointManager`, both targets (a session loop is a custom loop).

Which loops: codemods/saver_loops.py. The graph becomes a class (codemods/rules/session_graph.py); the
`with` line becomes the model, its checkpoint manager and a tf.function training step; the session's
statements stay where they were, each session call replaced by what it did.
"""

import textwrap

import libcst as cst

from codemods.registry import Rule, register
from codemods.rules.tf1_names import respelled
from codemods.saver_loops import SaverLoop
from codemods.templates import source, statements

_SETUP = """
# tf.Session + Saver as TF2: the graph's model, checkpointed as the Saver did (same names, same retention).
{model_code}{input_line}model.make_variables({element_spec})
checkpoint_manager = {tf}.train.CheckpointManager(
    {tf}.train.Checkpoint(model=model, optimizer=model.optimizer),
    {directory},
    max_to_keep={max_to_keep},
    checkpoint_name={checkpoint_name},{hours}
)

{train_step}"""

_UPDATE = """\
with {tf}.GradientTape() as tape:
    loss = model.compute_loss(features, labels, model(features, training=True))
gradients = tape.gradient(loss, model.trainable_variables)
model.optimizer.apply_gradients(zip(gradients, model.trainable_variables))
"""

# The step of a graph kept as written (tier 2): its own train_op
_WRAPPED_UPDATE = """\
loss = model.train_step((features, labels))["loss"]  # the graph's train_op
"""

_FED_STEP = """\
@{tf}.function(input_signature=[{specs}])
def train_step(features, labels):
    # One sess.run(train_op, feed_dict=...): the batch's loss, then the update.
{update}    return loss
"""

# The batch is read inside the step (one call per step); the update waits for it, so once the input has
# ended get_next() raises tf.errors.OutOfRangeError, as sess.run did, and nothing (not even the optimizer's
# step counter, which depends on nothing else) has changed.
_ITERATOR_STEP = """\
@{tf}.function
def train_step(batches):
    # One sess.run(train_op): the next batch's loss, then the update; OutOfRangeError once the input has ended.
    features, labels = batches.get_next()
    with {tf}.control_dependencies({tf}.nest.flatten((features, labels))):
{update}    return loss
"""


@register
class SaverLoopRule(Rule):
    rule_id = "saver-loop"
    node_types = (cst.With, cst.Call, cst.Assign, cst.SimpleStatementLine)

    def leave(self, original, updated, ctx):
        replacement = ctx.facts.session_replacements.get(id(original))
        if replacement is not None:
            return cst.RemoveFromParent() if isinstance(replacement, cst.RemovalSentinel) else replacement
        loop = ctx.facts.saver_loop(original) if isinstance(original, cst.With) else None
        if loop is None:
            return updated
        tf = ctx.need_tensorflow()
        for name in ("model_fns" if loop.wrapped is None else "wrapped_model_fns", "resume"):
            ctx.need_compat(name)
        if loop.uses_os:
            ctx.need_import("os")
        dropped = "".join(f"; not carried over: {what}" for what in loop.dropped)
        ctx.record(
            original,
            self.rule_id,
            True,
            f"tf.Session + Saver -> {_model_description(loop)}, a tf.function "
            "train_step and tf.train.CheckpointManager (the saver's checkpoint names and max_to_keep; checkpoints "
            "of earlier runs now count toward max_to_keep; no .meta graph files)" + dropped,
        )
        new = statements(_setup_code(loop, tf, ctx))
        new[0] = new[0].with_changes(leading_lines=[*updated.leading_lines, *new[0].leading_lines])
        body = list(updated.body.body)
        body[0] = body[0].with_changes(leading_lines=[cst.EmptyLine(indent=False), *body[0].leading_lines])
        return cst.FlattenSentinel([*new, *body])


def _model_description(loop: SaverLoop) -> str:
    if loop.wrapped is None:
        return f"class {loop.shape.class_name}(compat.model_fns.EstimatorModel)"
    return (f"the graph kept as written in a model_fn, {loop.wrapped.name}, run by compat.wrapped_model_fns (tier 2: "
            "its TF1 variables, names and optimizer; summaries not written)")


def _model_code(loop: SaverLoop, ctx) -> str:
    if loop.wrapped is None:
        return f"model = {loop.shape.class_name}()\n"
    return loop.wrapped.model_code(lambda statement: respelled(statement, ctx))


def _setup_code(loop: SaverLoop, tf: str, ctx) -> str:
    """The model, its checkpoint manager and the training step, replacing the `with tf.Session()` line."""
    kind, batches = loop.batches
    update = _UPDATE.format(tf=tf) if loop.wrapped is None else _WRAPPED_UPDATE
    if kind == "iterator":
        input_line = f"input_iterator = iter({source(batches)})  # one-shot: restarted with each session\n"
        element_spec = "input_iterator.element_spec"
        train_step = _ITERATOR_STEP.format(tf=tf, update=textwrap.indent(update, " " * 8))
    else:
        specs = ", ".join(f"{tf}.TensorSpec({shape}, {dtype})" for dtype, shape in batches)
        input_line = ""
        element_spec = f"({specs})"
        train_step = _FED_STEP.format(tf=tf, specs=specs, update=textwrap.indent(update, " " * 4))
    return _SETUP.format(
        model_code=_model_code(loop, ctx),
        input_line=input_line,
        element_spec=element_spec,
        tf=tf,
        directory=loop.directory,
        max_to_keep=loop.max_to_keep,
        checkpoint_name=loop.checkpoint_name,
        hours=f"\n    keep_checkpoint_every_n_hours={loop.every_n_hours}," if loop.every_n_hours else "",
        train_step=train_step,
    )
