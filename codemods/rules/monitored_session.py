"""`with MonitoredTrainingSession(...) as sess: while not sess.should_stop(): sess.run(train_op)` -> a Keras
model and a TF2 loop checkpointing with `tf.train.CheckpointManager`, both targets (a session is a custom loop).

Which loops, and what of the session is kept: codemods/monitored_sessions.py. The graph the session ran
becomes a class (codemods/rules/session_graph.py); the session's `with` statement becomes the model and the
loop below.
"""

import textwrap

import libcst as cst

from codemods.monitored_sessions import MAX_TO_KEEP, MonitoredLoop
from codemods.registry import Rule, register
from codemods.rules.tf1_names import respelled
from codemods.templates import operand, source, statements

_SETUP = """
# MonitoredTrainingSession as a TF2 loop: restore the latest checkpoint in its checkpoint_dir, save when it
# starts, {every} and when it ends.
{model_code}{dataset_line}model.make_variables({dataset}.element_spec)
step = model.optimizer.iterations
checkpoint = {tf}.train.Checkpoint(model=model, optimizer=model.optimizer, step=step)
manager = {tf}.train.CheckpointManager(checkpoint, {checkpoint_dir}, max_to_keep={keep}, step_counter=step{interval})
resume.restore_latest(checkpoint, manager)
{last_step}
"""

# With the program's own hooks or a cadence on the clock: one step per call, each followed by what the
# session ran after it.
_STEP_LOOP = """\
@{tf}.function
def train_step(features, labels):
{train_step}
manager.save(checkpoint_number=step)
saved_step = int(step)
{start_clock}{begin}for features, labels in {dataset}:  # the input ending ended the session
{before_step}    step_loss = train_step(features, labels)
{save}{after_step}{program_code}{hook_stop}{stop}if saved_step != int(step):  # the session's last save, when it closed
    manager.save(checkpoint_number=step, check_interval=False)
{end}"""

# Otherwise the steps up to the next save or the last step run in one call (same steps, batches and saves;
# speed: bench/training_throughput.py --program monitored-session).
_CHUNKED_LOOP = """\
@{tf}.function
def train_steps(iterator, steps):
    # `steps` steps in one call (fewer if the input ends); returns the last step's loss and the one before.
    loss, previous = {tf}.constant(0.0), {tf}.constant(0.0)
    for _ in {tf}.range(steps):
        batch = iterator.get_next_as_optional()
        if not batch.has_value():
            break
        features, labels = batch.get_value()
{chunk_step}        loss, previous = step_loss, loss
    return loss, previous

manager.save(checkpoint_number=step)
saved_step = int(step)
iterator = iter({dataset})
while True:
    done = int(step)
    chunk = max(1, min(saved_step + {every} - done{to_last_step}))  # up to the next save{or_last_step}
    step_loss, previous_loss = train_steps(iterator, {tf}.constant(chunk))
    if int(step) == done:
        break  # the input ended (OutOfRangeError ended the session)
{nan_before_save}    if manager.save(checkpoint_number=step) is not None:
        saved_step = int(step)
{nan_after_save}{stop}    if int(step) - done < chunk:
        break  # the input ended
if saved_step != int(step):  # the session's last save, when it closed
    manager.save(checkpoint_number=step, check_interval=False)
"""

# One step of the model: a Keras class's (tier 1), or the train_op of the graph kept as written (tier 2)
_KERAS_STEP = """\
with {tf}.GradientTape() as tape:
    {loss} = model.compute_loss(features, labels, model(features, training=True))
gradients = tape.gradient({loss}, model.trainable_variables)
model.optimizer.apply_gradients(zip(gradients, model.trainable_variables))
"""
_WRAPPED_STEP = """\
{loss} = model.train_step((features, labels))["loss"]  # the graph's train_op
"""

_CHUNK_NAN_BEFORE_SAVE = """\
    if int(step) - done > 1:  # NanTensorHook: a NaN loss before the chunk's last step stopped the session there
        estimator_hooks.check_loss(previous_loss)
"""

# The program's own hooks, now Keras callbacks (codemods/rules/session_run_hook.py), and LoggingTensorHook's
# twin, called as the session called the hooks.
_BEGIN = """\
callbacks = tf_keras.callbacks.CallbackList([{hooks}], model=model)
model.stop_training = False
callbacks.on_train_begin()
"""
_BEFORE_STEP = """\
    batch = int(step)
    callbacks.on_train_batch_begin(batch)
"""
_AFTER_STEP = """\
    callbacks.on_train_batch_end(batch, {"loss": step_loss})
"""
_HOOK_STOP = """\
    if model.stop_training:  # a hook's request_stop(), once every hook has run
        break
"""
_END = """\
callbacks.on_train_end()
"""

_SAVE_ON_STEPS = """\
    if manager.save(checkpoint_number=step) is not None:
        saved_step = int(step)
"""

_SAVE_ON_CLOCK = """\
    if time.monotonic() - saved_time >= {secs}:
        manager.save(checkpoint_number=step)
        saved_step, saved_time = int(step), time.monotonic()
"""

_NAN_CHECK = """\
    estimator_hooks.check_loss(step_loss)  # NanTensorHook, after the save (the session ran its saver first)
"""

_STOP = """\
    if int(step) >= last_step:  # StopAtStepHook, checked after each step: a finished run takes one more
        break
"""


@register
class MonitoredSessionRule(Rule):
    rule_id = "monitored-session"
    node_types = (cst.With,)

    def leave(self, original, updated, ctx):
        loop = ctx.facts.monitored_loop(original)
        if loop is None:
            return updated
        tf = ctx.need_tensorflow()
        ctx.need_import("tf_keras")
        logs = any(callback.startswith("estimator_hooks.") for callback in loop.callbacks)
        model_module = "model_fns" if loop.wrapped is None else "wrapped_model_fns"
        for name in (model_module, "resume") + (("estimator_hooks",) if loop.nan_check or logs else ()):
            ctx.need_compat(name)
        if loop.cadence[0] == "secs":
            ctx.need_import("time")
        code = _loop_code(loop, tf, ctx)
        dropped = f"; not carried over: {', '.join(loop.dropped)}" if loop.dropped else ""
        if loop.shape is not None and loop.shape.summaries:
            dropped += f"; the graph's summaries {', '.join(loop.shape.summaries)} are not written (TensorBoard only)"
        model = f"class {loop.shape.class_name}(compat.model_fns.EstimatorModel)" if loop.wrapped is None else (
            f"the graph kept as written in a model_fn, {loop.wrapped.name}, run by compat.wrapped_model_fns "
            "(tier 2: its TF1 variables, names and optimizer; summaries not written)")
        ctx.record(
            original,
            self.rule_id,
            True,
            f"MonitoredTrainingSession -> {model} and a "
            "TF2 loop with tf.train.CheckpointManager (restore, saves at start, cadence and end, StopAtStepHook, "
            "NanTensorHook); TensorBoard's graph and global_step/sec are not written" + dropped,
        )
        new = statements(code)
        new[0] = new[0].with_changes(leading_lines=[*updated.leading_lines, *new[0].leading_lines])
        return cst.FlattenSentinel(new)


def _loop_code(loop: MonitoredLoop, tf: str, ctx) -> str:
    """The model, its checkpointing and the loop replacing the session, as text at column 0."""
    hooks = bool(loop.callbacks)
    kind, every = loop.cadence
    last_step = ""
    if loop.stop and loop.stop[0] == "last_step":
        if source(loop.stop[1]) != "last_step":  # (`StopAtStepHook(last_step=last_step)`: bound already)
            last_step = f"last_step = {source(loop.stop[1])}\n"
    elif loop.stop:
        last_step = f"last_step = int(step) + {operand(loop.stop[1])}  # StopAtStepHook(num_steps=...)\n"
    dataset = source(loop.dataset) if isinstance(loop.dataset, cst.Name) else "dataset"
    dataset_line = "" if isinstance(loop.dataset, cst.Name) else f"dataset = {source(loop.dataset)}\n"
    chunked = kind == "steps" and not hooks and not loop.fetched and not loop.loop_body
    if loop.wrapped is None:
        model_code, step = f"model = {loop.shape.class_name}()\n", _KERAS_STEP
    else:
        model_code, step = loop.wrapped.model_code(lambda statement: respelled(statement, ctx)), _WRAPPED_STEP
    setup = _SETUP.format(
        every=f"every {source(every)} {'steps' if kind == 'steps' else 'seconds'}",
        model_code=model_code,
        dataset=dataset,
        dataset_line=dataset_line,
        tf=tf,
        checkpoint_dir=source(loop.checkpoint_dir),
        keep=MAX_TO_KEEP,
        interval=f", checkpoint_interval={source(every)}" if kind == "steps" else "",
        last_step=last_step,
    )
    if chunked:
        code = setup + _CHUNKED_LOOP.format(
            chunk_step=textwrap.indent(step.format(tf=tf, loss="step_loss"), " " * 8),
            tf=tf,
            dataset=dataset,
            every=operand(every),
            to_last_step=", last_step - done" if loop.stop else "",
            or_last_step=" or the last step" if loop.stop else "",
            nan_before_save=_CHUNK_NAN_BEFORE_SAVE if loop.nan_check else "",
            nan_after_save=_NAN_CHECK if loop.nan_check else "",
            stop=_STOP if loop.stop else "",
        )
    else:
        code = setup + _STEP_LOOP.format(
            train_step=textwrap.indent(step.format(tf=tf, loss="loss") + "return loss\n", "    "),
            tf=tf,
            dataset=dataset,
            start_clock="saved_time = time.monotonic()\n" if kind == "secs" else "",
            save=_SAVE_ON_STEPS if kind == "steps" else _SAVE_ON_CLOCK.format(secs=operand(every)),
            begin=_BEGIN.format(hooks=", ".join(loop.callbacks)) if hooks else "",
            before_step=_BEFORE_STEP if hooks else "",
            after_step="".join(
                _NAN_CHECK if part == "nan" else _AFTER_STEP
                for part in (["nan", "hooks"] if loop.nan_check == "before" else ["hooks", "nan"])
                if (part == "nan" and loop.nan_check) or (part == "hooks" and hooks)
            ),
            program_code=_program_code(loop),
            hook_stop=_HOOK_STOP if hooks else "",
            stop=_STOP if loop.stop else "",
            end=_END if hooks else "",
        )
    return code


def _program_code(loop: MonitoredLoop) -> str:
    """The loop's own statements after `sess.run` (which ran once the session's hooks had), the value it
    fetched besides train_op (the step's loss) bound first."""
    fetched = "".join(f"    {target} = step_loss.numpy()\n" for target in loop.fetched)
    return fetched + "".join(textwrap.indent(source(statement), "    ") for statement in loop.loop_body)
