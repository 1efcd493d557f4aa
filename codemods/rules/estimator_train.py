"""`estimator.train(input_fn, hooks, max_steps | steps)` -> checkpointed TF2 training, as a whole statement;
`train_and_evaluate(estimator, TrainSpec, EvalSpec)` -> the same, evaluated by a callback (end of this doc).

Both targets keep the Estimator's contract with its `model_dir`: training resumes from the latest
checkpoint there, saves every `save_checkpoints_steps` steps or every `save_checkpoints_secs` seconds
(600 when neither is set, as Estimator), keeps `keep_checkpoint_max` checkpoints,
and leaves a final checkpoint (weights, optimizer slots, step) that `tf.train.latest_checkpoint(model_dir)`
finds. `max_steps` is a total across restarts (run again after it finished: nothing more). Restoring goes
through `compat.resume.restore_latest`, which refuses an unconverted Estimator model_dir.

- keras: the latest checkpoint in model_dir is restored, then `fit` runs the remaining steps with
  `BackupAndRestore(save_freq=save_checkpoints_steps)` (on the clock: `compat.timed_backup.
  TimedBackupAndRestore(save_secs=...)`) before the user's hooks (the Estimator saved its checkpoint
  before they ran) and after the NaN check (Estimator's NanTensorHook stopped a NaN step before its save),
  so a crash mid-call resumes at the last backup. `steps=N` counts from the state the call started from:
  after a crash the re-run completes those N steps. Without hooks and with a step cadence, `fit` runs
  gcd(save_checkpoints_steps, save_summary_steps) steps per call (`steps_per_execution`; speed:
  bench/training_throughput.py), with `compat.step_backup.BackupAndRestore` counting calls. With hooks or
  a cadence on the clock, `compat.chunked_calls.sized_calls` sizes each call to reach the next step a save, a
  summary or a hook needs (the built-in hooks' cadences; a clock's due time from the measured step rate; any
  other hook sees every step), the backups counting steps.
- loop: `tf.train.Checkpoint` + `CheckpointManager(checkpoint_interval=save_checkpoints_steps)` (on the
  clock: a `time.monotonic()` check after each step), restored
  with `resume.restore_latest(checkpoint, manager)`, a `tf.function` train step, and the migrated
  hooks driven through a Keras `CallbackList`. `steps=N` counts from the restored step, as in Estimator.
  With a step cadence, the steps up to the next checkpoint or summary step (or the next step a hook needs:
  compat.chunked_calls) run in one `tf.function` call (same steps, batches, saves and summaries; speed:
  bench/training_throughput.py), the hooks driven once per call.

With `--exact` (docs/exact-resume.md) a resumed run takes the same steps as an uninterrupted one:
- keras: `compat.exact.ExactBackupAndRestore` takes BackupAndRestore's place (same directory and cadence).
- loop: the checkpoint also holds the input iterator and the model's dropout generators; batches come
  from that iterator; SIGTERM/SIGINT end the loop after the step in flight with a save and exit code 75.

`train_and_evaluate` (local mode) trained with `max_steps` from the TrainSpec and evaluated after checkpoint
saves, at most every `throttle_secs`, and at the end. It becomes the train migration above with a
`compat.estimator_evaluation.PeriodicEvaluation` among the hooks (same schedule, metrics to model_dir/eval); the
TrainSpec/EvalSpec assignments are folded in (`ctx.moved`) and the call's result is the callback's `result`.
"""

import math
import textwrap

import libcst as cst

from codemods.facts import EVAL_SPEC_PARAMS, TRAIN_AND_EVALUATE_PARAMS, train_call
from codemods.findings import todo_comment
from codemods.registry import Rule, register
from codemods.rules.train_distribute import distributed_dataset, strategy_name
from codemods.syntax import call_arguments, is_none
from codemods.templates import dataset_expression, literal_int, operand, source, statements

_KERAS_RESTORE = """
# Estimator.train: resume from the latest checkpoint in model_dir, save there at its cadence and at the end.
{est}_checkpoint = {tf}.train.Checkpoint(model={est}, optimizer={est}.optimizer)
{est}_manager = {tf}.train.CheckpointManager({est}_checkpoint, {model_dir}, max_to_keep={keep}{keep_hours})
resume.restore_latest({est}_checkpoint, {est}_manager)
"""

_ONE_OPTIMIZER = """\
    gradients = tape.gradient(loss, {est}.trainable_variables)
    {est}.optimizer.apply_gradients(zip(gradients, {est}.trainable_variables))"""

# DNNLinearCombined: the DNN's optimizer trains the DNN, the linear optimizer the linear part.
_TWO_OPTIMIZERS = """\
    dnn_gradients, linear_gradients = tape.gradient(loss, [{est}.dnn_variables, {est}.linear_variables])
    {est}.optimizer.apply_gradients(zip(dnn_gradients, {est}.dnn_variables))
    {est}.linear_optimizer.apply_gradients(zip(linear_gradients, {est}.linear_variables))"""

_MAX_STEPS_GUARD = """if int({iterations}) < {limit}:  # max_steps is a total across restarts
"""

# --exact without tf_random_seed: unseeded shuffles would draw the epochs after a resume anew.
_INPUT_SEED = """# Exact resume: the input's shuffles draw from a seed kept in model_dir (no tf_random_seed was given).
{tf}.random.set_seed(seeding.model_dir_seed({model_dir}))
"""
EXACT_UNDER_STRATEGY_IN_A_LOOP = (
    "--exact under a distribution strategy is carried over by the keras target only: this loop resumes as the "
    "Estimator did (from the last checkpoint, its input_fn started over), not bit-exactly (TensorFlow cannot "
    "checkpoint a distributed iterator; fit's backups replay its position)"
)
_INPUT_SEED_UNLESS_GIVEN = """# Exact resume: with no tf_random_seed, the input's shuffles draw from a seed kept in model_dir.
if {seed} is None:
    {tf}.random.set_seed(seeding.model_dir_seed({model_dir}))
"""

_KERAS_FIT = """
{input_seed}{steps_per_call}{est}.fit(
    {dataset},
    epochs=1,
    steps_per_epoch={steps_per_epoch},
    callbacks={sized_calls}[{sized_note}
        estimator_hooks.RaiseOnNanLoss(),  # Estimator's NanTensorHook, checked before a save as it was
        {backup}(os.path.join({model_dir}, "backup"), {cadence}),{cadence_note}
        kept_checkpoints.KeptCheckpoints({est}_manager, {kept_cadence}),  # Estimator's checkpoints in model_dir
        tf_keras.callbacks.TensorBoard({model_dir}, update_freq={summary_steps}),{hooks}
    ]{sized_calls_end},
)
"""

# Without hooks and with a step cadence, fit runs the steps between checkpoint and summary steps in one call
# (steps_per_execution): callbacks then see every k-th step, where saves and summaries fall anyway.
# BackupAndRestore counts calls, so its save_freq is in calls; compat.step_backup's resumes after the call.
_STEPS_PER_CALL = """{est}.steps_per_execution = math.gcd({every}, {summary_steps})  # steps per call: saves and summaries fall between calls
"""
_STEPS_PER_CALL_COMPUTED = """{est}.steps_per_execution = {steps}  # gcd(save_checkpoints_steps, save_summary_steps): saves and summaries fall between calls
"""
_CALLS_NOTE = "  # in calls: save_checkpoints_steps / steps_per_execution"
# With hooks or a cadence on the clock, the callbacks say which steps they must see (compat.chunked_calls): each call
# runs the steps up to the nearest one (the clock's: from the measured step rate); any other hook sees every step.
_SIZED_CALLS_NOTE = "  # each call of fit runs the steps up to the next one a save, summary or hook needs"

# The parts both loops share: manager, restore, hooks, summaries, the train step, the first save...
_LOOP_SETUP = """\
{est}_manager = {tf}.train.CheckpointManager(
    {est}_checkpoint, {model_dir}, max_to_keep={keep}{keep_hours}, step_counter={est}_step{interval}
)
resume.restore_latest({est}_checkpoint, {est}_manager)
{last_step_line}{est}_callbacks = tf_keras.callbacks.CallbackList([{hooks}], model={est})
{est}_summaries = {tf}.summary.create_file_writer({model_dir})
{train_step}
{est}_manager.save(checkpoint_number={est}_step)
{est}.stop_training = False  # as fit does: a stop requested in an earlier call ended only that call
{start_clock}"""

# ...and the body of a step, once the batch is in {est}_features, {est}_labels.
_LOOP_STEP = """\
    {est}_batch = {step}
    {est}_callbacks.on_train_batch_begin({est}_batch)
    {est}_loss = {est}_train_step({est}_features, {est}_labels)
    if {step} % {summary_steps} == 0:
        with {est}_summaries.as_default():
            {tf}.summary.scalar("loss", {est}_loss, step={est}_step)
{periodic_save}    {est}_callbacks.on_train_batch_end({est}_batch, {{"loss": {est}_loss}})
    estimator_hooks.check_loss({est}_loss)  # Estimator's NanTensorHook
"""

_LOOP = (
    """
# Estimator.train as a custom loop: resume from model_dir, checkpoint at the RunConfig's cadence.
{est}_step = {est}.optimizer.iterations
{est}_checkpoint = {tf}.train.Checkpoint(model={est}, optimizer={est}.optimizer, step={est}_step)
"""
    + _LOOP_SETUP
    + """\
{est}_callbacks.on_train_begin()
for {est}_features, {est}_labels in {batches}:
"""
    + _LOOP_STEP
    + """\
    if {est}.stop_training:
        break
{est}_manager.save(checkpoint_number={est}_step, check_interval=False)
{est}_callbacks.on_train_end()
"""
)

# Without hooks and with a step cadence nothing needs Python between steps: the loop runs the steps up to the
# next checkpoint or summary step in one tf.function call (the same steps on the same batches, saves and
# summaries at the same steps as _LOOP), which keeps per-step overhead out of training.
_CHUNKED_LOOP = """
# Estimator.train as a custom loop: resume from model_dir, checkpoint at the RunConfig's cadence.
{est}_step = {est}.optimizer.iterations
{est}_checkpoint = {tf}.train.Checkpoint(model={est}, optimizer={est}.optimizer, step={est}_step)
{est}_manager = {tf}.train.CheckpointManager(
    {est}_checkpoint, {model_dir}, max_to_keep={keep}{keep_hours}, step_counter={est}_step, checkpoint_interval={every}
)
resume.restore_latest({est}_checkpoint, {est}_manager)
{last_step_line}{est}_summaries = {tf}.summary.create_file_writer({model_dir})
{replica_step}
@{tf}.function
def {est}_train_steps(iterator, steps):
    # `steps` steps in one call (fewer if the input ends); returns the last step's loss.
    loss = {tf}.constant(float("nan"))
    for _ in {tf}.range(steps):
        batch = iterator.get_next_as_optional()
        if not batch.has_value():
            break
{chunk_step}
    return loss

{est}_manager.save(checkpoint_number={est}_step)
{est}_saved_at = {step}
{est}_iterator = iter({dataset})
{hooks_begin}while {more_steps}:
    {est}_done = {step}
    # Up to the next checkpoint (every {every} steps) or summary step (multiples of {summary_steps}){hooks_which}.
    {est}_chunk = min({remaining}{est}_saved_at + {every} - {est}_done, {summary_steps} - {est}_done % {summary_steps}{hooks_chunk})
{hooks_batch_begin}    {est}_loss = {est}_train_steps({est}_iterator, {tf}.constant({est}_chunk))
    if {step} == {est}_done:
        break  # the input has ended
    if {step} % {summary_steps} == 0:
        with {est}_summaries.as_default():
            {tf}.summary.scalar("loss", {est}_loss, step={est}_step)
    # Estimator's NanTensorHook; checked before the save: a NaN step makes every later loss NaN.
    estimator_hooks.check_loss({est}_loss)
    if {est}_manager.save(checkpoint_number={est}_step) is not None:
        {est}_saved_at = {step}
{hooks_batch_end}    if {step} - {est}_done < {est}_chunk:
        break  # the input has ended
{est}_manager.save(checkpoint_number={est}_step, check_interval=False)
{hooks_end}"""

# With hooks, the chunked loop drives them once per chunk; the chunks also end at the steps they need
# (compat.chunked_calls: the built-in hooks' cadences; any other hook makes every chunk one step).
_CHUNK_HOOKS = {
    "hooks_begin": """{est}_callbacks = tf_keras.callbacks.CallbackList([{hooks}], model={est})
{est}.stop_training = False  # as fit does: a stop requested in an earlier call ended only that call
{est}_callbacks.on_train_begin()
""",
    "hooks_which": " or the next step a hook needs",
    "hooks_chunk": ", chunked_calls.steps_to_next_due({est}_callbacks.callbacks, {est}_done, {est})",
    "hooks_batch_begin": "    {est}_callbacks.on_train_batch_begin({est}_done)\n",
    "hooks_batch_end": """    {est}_callbacks.on_train_batch_end({est}_done, {{"loss": {est}_loss}})
    if {est}.stop_training:
        break
""",
    "hooks_end": "{est}_callbacks.on_train_end()\n",
}

_EXACT_LOOP = (
    """
# Estimator.train as an exact custom loop: the checkpoint holds the weights, the optimizer, the step, the
# input iterator (position, shuffle buffer; later epochs are shuffled from the global seed) and dropout's
# random generators, so a resumed run takes the same steps as an uninterrupted one. SIGTERM/SIGINT: the
# step in flight finishes, the state is saved, the program exits with preemption.PREEMPTED_EXIT_CODE (75).
{est}_step = {est}.optimizer.iterations
{input_seed}{est}_dataset = {dataset}
{est}_iterator = iter({est}_dataset)
{est}_checkpoint = {tf}.train.Checkpoint(
    model={est},
    optimizer={est}.optimizer,
    step={est}_step,
    iterator={est}_iterator,
    random_generators=exact.random_generators({est}),
)
"""
    + _LOOP_SETUP
    + """\
{est}_preemption = preemption.PreemptionWatcher()
{est}_preemption.start()
{est}_callbacks.on_train_begin()
while {more_steps}:
    {est}_next = {est}_iterator.get_next_as_optional()
    if not {est}_next.has_value():
        break
    {est}_features, {est}_labels = {est}_next.get_value()
"""
    + _LOOP_STEP
    + """\
    if {est}.stop_training or {est}_preemption.requested:
        break
{est}_manager.save(checkpoint_number={est}_step, check_interval=False)
{est}_preemption.stop()
{est}_callbacks.on_train_end()
if {est}_preemption.requested:
    raise SystemExit(preemption.PREEMPTED_EXIT_CODE)
"""
)


_STEP_BODY = """\
    with {tf}.GradientTape() as tape:
        loss = {est}.compute_loss(features, labels, {est}(features, training=True))
{apply_gradients}
    return loss
"""
_TRAIN_STEP = "\n@{tf}.function\ndef {est}_train_step(features, labels):\n" + _STEP_BODY

_CHUNK_STEP = """\
        features, labels = batch.get_value()
        with {tf}.GradientTape() as tape:
            loss = {est}.compute_loss(features, labels, {est}(features, training=True))
{chunk_apply_gradients}"""

# RunConfig(train_distribute=...): each replica takes a step on its own batch (compute_loss scales a mean
# loss by 1/replicas, apply_gradients sums the replicas' gradients); the loss is summed over the replicas,
# as the Estimator reported it.
_REPLICA_STEP = "\ndef {est}_replica_step(features, labels):\n" + _STEP_BODY
_DISTRIBUTED_TRAIN_STEP = _REPLICA_STEP + """
@{tf}.function
def {est}_train_step(features, labels):
    per_replica = {strategy}.run({est}_replica_step, args=(features, labels))
    return {strategy}.reduce("SUM", per_replica, axis=None)
"""
_DISTRIBUTED_CHUNK_STEP = """\
        per_replica = {strategy}.run({est}_replica_step, args=batch.get_value())
        loss = {strategy}.reduce("SUM", per_replica, axis=None)"""


# Checkpoint cadence in the loop: every save_checkpoints_steps steps (the manager's checkpoint_interval),
# or every save_checkpoints_secs seconds (Estimator's default: 600) on the wall clock, checked after each
# step as Estimator's CheckpointSaverHook did.
_STEP_CADENCE = {
    "interval": ", checkpoint_interval={every}",
    "start_clock": "",
    "periodic_save": "    {est}_manager.save(checkpoint_number={est}_step)\n",
}
_SECONDS_CADENCE = {
    "interval": "",
    "start_clock": "{est}_saved_at = time.monotonic()\n",
    "periodic_save": (
        "    if time.monotonic() - {est}_saved_at >= {every}:  # save_checkpoints_secs\n"
        "        {est}_manager.save(checkpoint_number={est}_step)\n"
        "        {est}_saved_at = time.monotonic()\n"
    ),
}


# A migrated model_fn makes its layers on first use: make them (and the optimizer's slots) before restoring.
_MAKE_VARIABLES = """
# The migrated model_fn's layers and optimizer slots, made from the input's structure: a checkpoint restores
# into them, and the first checkpoint holds the initial weights, as the Estimator's did.
{est}.make_variables({dataset}.element_spec)
"""
_MAKE_DISTRIBUTED_VARIABLES = """
# The migrated model_fn's layers and optimizer slots, made (mirrored) from the input's structure: a checkpoint
# restores into them, and the first checkpoint holds the initial weights, as the Estimator's did.
with {strategy}.scope():
    {est}.make_variables({input_dataset}.element_spec)
"""

# train_and_evaluate: the EvalSpec's evaluations become a callback of the training (codemods.facts.Training).
_EVALUATION = """
# train_and_evaluate: evaluate on the EvalSpec's input after checkpoint saves (at most every throttle_secs)
# and at the end of training, as Estimator did; metrics also go to model_dir/eval.
{est}_periodic_evaluation = estimator_evaluation.PeriodicEvaluation(
    {eval_input_fn},
    steps={eval_steps},
    throttle_secs={throttle},
    summary_dir=os.path.join({model_dir}, "eval"),
    {eval_cadence},{exporters}
)
"""
_EVAL_SPEC_STEPS, _EVAL_SPEC_THROTTLE = "100", "600"  # EvalSpec's defaults


def _exporters(exporters: cst.BaseExpression | None, values: dict) -> str:
    """PeriodicEvaluation's exporter arguments: EvalSpec's exporters, exporting under model_dir/export, the
    final export at max_steps (as Estimator)."""
    if exporters is None:
        return ""
    if not isinstance(exporters, cst.List | cst.Name):  # EvalSpec took one exporter as well as a list
        exporters = cst.List([cst.Element(exporters)])
    return (
        f"\n    exporters={source(exporters)},"
        f"\n    export_dir_base=os.path.join({values['model_dir']}, \"export\"),"
        f"\n    max_steps={values['limit'] or None},"  # TrainSpec's max_steps: train_and_evaluate's only limit
    )


def _keras_backup(kind: str, every: str, exact: bool) -> tuple[str, str, str | None]:
    """The backup callback, its cadence arguments, and the compat module it needs (None: tf_keras's own)."""
    if exact:
        cadence = f"save_freq={every}" if kind == "steps" else f"save_freq=False, save_secs={every}"
        return "exact.ExactBackupAndRestore", cadence, "exact"
    if kind == "steps":
        return "tf_keras.callbacks.BackupAndRestore", f"save_freq={every}", None
    return "timed_backup.TimedBackupAndRestore", f"save_secs={every}", "timed_backup"


@register
class EstimatorTrainRule(Rule):
    rule_id = "estimator-train"
    node_types = (cst.SimpleStatementLine,)

    def leave(self, original, updated, ctx):
        spec = ctx.facts.migrated_spec(original)
        if spec is not None:  # emitted again by its train_and_evaluate statement, which comes later
            ctx.moved[id(spec)] = updated.body[0].value
            return cst.RemoveFromParent()
        found = ctx.facts.training(original)
        if found is None:
            return updated
        estimator, training = found
        if estimator.runtime:
            return updated  # codemods/rules/estimator_runtime.py
        if not estimator.migratable:
            ctx.todo(original, self.rule_id, estimator.kept_note)
            return updated
        if training.train_spec is None:
            kwargs, evaluation = training.train_arguments(train_call(updated)[1]), None
        else:
            kwargs, evaluation = self._specs(training, updated, ctx)
        given = kwargs.get("hooks")
        if isinstance(given, cst.Name):  # a variable holding the list (codemods.facts: hook_lists)
            hooks = [f"*{given.value}"]
        else:  # a CheckpointSaverHook is left out: its cadence became the training's (codemods.facts)
            given_first = training.train_arguments().get("hooks")  # as written: the hooks facts saw
            savers = {
                i for i, e in enumerate(getattr(given_first, "elements", ()))
                if any(e.value is hook for hook in estimator.saver_hook_calls)
            }
            elements = given.elements if given is not None else ()
            hooks = [source(element.value) for i, element in enumerate(elements) if i not in savers]
        if evaluation is not None:  # first, as Estimator evaluated from its saver hook, before the user's
            hooks.insert(0, f"{estimator.variable}_periodic_evaluation")
        limit = next((key for key in ("max_steps", "steps") if key in kwargs and not is_none(kwargs[key])), None)
        values = {
            "est": estimator.variable,
            "tf": ctx.need_tensorflow(),
            "model_dir": source(estimator.model_dir),
            "keep": _max_to_keep(estimator.run_config_value("keep_checkpoint_max")),
            "summary_steps": operand(estimator.run_config_value("save_summary_steps")),
            "dataset": distributed_dataset(estimator, dataset_expression(kwargs["input_fn"])),
            # a MirroredVariable under a strategy, which int() does not take
            "iterations": f"{estimator.variable}.optimizer.iterations" + (".numpy()" if estimator.train_strategy else ""),
            "limit": operand(kwargs[limit]) if limit else "",
        }
        values["input_seed"] = ""
        seed = estimator.run_config_value("tf_random_seed")
        if ctx.exact and seed is None:
            ctx.need_compat("seeding")
            values["input_seed"] = _INPUT_SEED.format(**values)
        elif ctx.exact and isinstance(seed, (cst.Name, cst.Attribute)):  # a flag, None when not given
            ctx.need_compat("seeding")
            values["input_seed"] = _INPUT_SEED_UNLESS_GIVEN.format(seed=source(seed), **values)
        kind, every = estimator.checkpoint_cadence()
        values["every"] = operand(every)  # these three go into arithmetic too
        hours = estimator.run_config_value("keep_checkpoint_every_n_hours")
        values["keep_hours"] = f", keep_checkpoint_every_n_hours={source(hours)}" if hours is not None else ""
        ctx.need_import("tf_keras")
        ctx.need_compat("resume")
        ctx.need_compat("estimator_hooks")
        if ctx.target == "keras":
            ctx.need_import("os")
            values["hooks"] = "".join(f"\n        {hook}," for hook in hooks)
            values["backup"], values["cadence"], module = _keras_backup(kind, values["every"], ctx.exact)
            ctx.need_compat("kept_checkpoints")
            values["kept_cadence"] = f"save_{kind}={values['every']}"
            if module is None:
                ctx.need_import("tf_keras")
            else:
                ctx.need_compat(module)
            values["steps_per_call"] = values["cadence_note"] = values["sized_note"] = ""
            values["sized_calls"] = values["sized_calls_end"] = ""
            # Every fit of the estimator runs its steps in calls, or none does (tf_keras keeps the one-step function
            # it made first); and fit must know how many steps a call may run: not until an input ends.
            sized = not ctx.exact and not estimator.trains_until_input_ends and (
                kind == "secs" or estimator.callbacks_every_step)
            if sized:
                ctx.need_compat("chunked_calls")
                values["sized_calls"], values["sized_calls_end"] = "chunked_calls.sized_calls(", ")"
                values["sized_note"] = _SIZED_CALLS_NOTE
            if sized and kind == "steps":
                ctx.need_compat("step_backup")
                values["backup"], values["cadence"] = "step_backup.BackupAndRestore", f"save_steps={values['every']}"
            elif kind == "steps" and not ctx.exact and not estimator.trains_until_input_ends:
                ctx.need_compat("step_backup")
                values["backup"] = "step_backup.BackupAndRestore"  # resumes after the call's last step
                every, summary_steps = literal_int(values["every"]), literal_int(values["summary_steps"])
                if every and summary_steps and every > 0 and summary_steps > 0:  # constants: computed here
                    steps = math.gcd(every, summary_steps)
                    values["steps_per_call"] = _STEPS_PER_CALL_COMPUTED.format(steps=steps, **values)
                    values["cadence"] = f"save_freq={every // steps}"
                    values["cadence_note"] = _CALLS_NOTE
                else:
                    ctx.need_import("math")
                    values["steps_per_call"] = _STEPS_PER_CALL.format(**values)
                    values["cadence"] += f" // math.gcd({values['every']}, {values['summary_steps']})"
            if limit is None:  # until the input is exhausted (or a hook stops it), as Estimator
                values["steps_per_epoch"] = "None"
                if not ctx.exact:  # (fit refuses a repeated input with no steps; exact resume needs them)
                    values["dataset"] = f"estimator_hooks.until_stopped({values['dataset']})"
                code = _KERAS_RESTORE.format(**values) + _KERAS_FIT.format(**values)
            elif limit == "max_steps":
                # counted from the call's start: a crash may leave one of its own checkpoints model_dir's latest
                values["steps_per_epoch"] = (
                    f"{values['limit']} - kept_checkpoints.call_start({values['est']}_manager, "
                    f"int({values['iterations']}), max_steps={values['limit']})"
                )
                fit = textwrap.indent(_KERAS_FIT.strip().format(**values), "    ")
                code = _KERAS_RESTORE.format(**values) + _MAX_STEPS_GUARD.format(**values) + fit
            else:
                values["steps_per_epoch"] = values["limit"]
                code = _KERAS_RESTORE.format(**values) + _KERAS_FIT.format(**values)
            target = "fit + " + values["backup"].rsplit(".", 1)[1]
        else:
            exact = ctx.exact and estimator.train_strategy is None
            not_exact_note = ""
            if ctx.exact and not exact:
                ctx.record(original, "exact", False, EXACT_UNDER_STRATEGY_IN_A_LOOP)
                not_exact_note = todo_comment("exact", EXACT_UNDER_STRATEGY_IN_A_LOOP) + "\n"
            values["hooks"] = ", ".join(hooks)
            est = values["est"]
            # the step as a Python int (a MirroredVariable under a strategy, which int() does not take)
            values["step"] = f"int({est}_step" + (".numpy())" if estimator.train_strategy else ")")
            if limit is None:  # until the input is exhausted (or a hook stops it), as Estimator
                values.update(last_step_line="", take="", more_steps="True", remaining="")
            else:
                last = values["limit"] if limit == "max_steps" else f"{values['step']} + {values['limit']}"
                values.update(
                    last_step_line=f"{est}_last_step = {last}\n",
                    take=f".take(max(0, {est}_last_step - {values['step']}))",
                    more_steps=f"{values['step']} < {est}_last_step",
                    remaining=f"{est}_last_step - {est}_done, ",
                )
            two = estimator.two_optimizers
            values["apply_gradients"] = (_TWO_OPTIMIZERS if two else _ONE_OPTIMIZER).format(**values)
            values["batches"] = values["dataset"] + values["take"]
            if estimator.train_strategy is None:
                values["train_step"] = _TRAIN_STEP.format(**values)
            else:  # a distributed dataset has no take(): count the steps in Python
                values["strategy"] = strategy_name(estimator)
                values["train_step"] = _DISTRIBUTED_TRAIN_STEP.format(**values)
                ctx.need_import("itertools")
                values["batches"] = f"itertools.islice({values['dataset']}, max(0, {est}_last_step - {values['step']}))"
            if exact:
                ctx.need_compat("exact")
                ctx.need_compat("preemption")
            if kind == "secs":
                ctx.need_import("time")
            for slot, text in (_STEP_CADENCE if kind == "steps" else _SECONDS_CADENCE).items():
                values[slot] = text.format(**values)
            if not exact and kind == "steps":
                for slot, text in _CHUNK_HOOKS.items():
                    values[slot] = text.format(**values) if hooks else ""
                if hooks:
                    ctx.need_compat("chunked_calls")
                values["chunk_apply_gradients"] = textwrap.indent(values["apply_gradients"], "    ")
                if estimator.train_strategy is None:
                    values["replica_step"], values["chunk_step"] = "", _CHUNK_STEP.format(**values)
                else:
                    values["replica_step"] = _REPLICA_STEP.format(**values)
                    values["chunk_step"] = _DISTRIBUTED_CHUNK_STEP.format(**values)
                code = _CHUNKED_LOOP.format(**values)
            else:
                code = (_EXACT_LOOP if exact else _LOOP).format(**values)
            blank = code[: len(code) - len(code.lstrip("\n"))]
            code = blank + not_exact_note + code.lstrip("\n")
            target = "custom loop + CheckpointManager"
        if estimator.custom and estimator.train_strategy is not None:
            input_dataset = dataset_expression(kwargs["input_fn"])
            code = _MAKE_DISTRIBUTED_VARIABLES.format(**{**values, "strategy": strategy_name(estimator)},
                                                       input_dataset=input_dataset) + code
        elif estimator.custom:
            code = _MAKE_VARIABLES.format(**values) + code
        if evaluation is not None:
            code = self._evaluation(values, kind, evaluation, ctx) + code.rstrip("\n") + self._result(updated, values)
            what = f"train_and_evaluate({estimator.variable}, ...) -> {target} + compat.estimator_evaluation.PeriodicEvaluation"
        else:
            call = f"train({limit}=...)" if limit else "train() until the input ends"
            what = f"{estimator.variable}.{call} -> {target}"
        new = statements(code)
        new[0] = new[0].with_changes(leading_lines=[*updated.leading_lines, *new[0].leading_lines])
        ctx.record(
            original,
            self.rule_id,
            True,
            f"{what}, checkpoints in model_dir "
            + (f"every {values['every']} steps" if kind == "steps" else f"every {values['every']} s (wall clock)")
            + ("; exact resume (data position, RNG, saves on SIGTERM)" if ctx.exact else "")
            + (
                "; after a crash, fit completes the interrupted call's steps (Estimator: N more from the restore)"
                if ctx.target == "keras" and limit == "steps"
                else ""
            ),
        )
        return cst.FlattenSentinel(new)

    @staticmethod
    def _specs(training, updated, ctx):
        """The train arguments and EvalSpec arguments of an (updated) train_and_evaluate statement."""
        arguments, _ = call_arguments(updated.body[0].value, TRAIN_AND_EVALUATE_PARAMS)

        def spec(key, original_spec):
            given = arguments[key]
            return ctx.moved[id(original_spec)] if isinstance(given, cst.Name) else given

        train = training.train_arguments(spec("train_spec", training.train_spec))
        evaluation, _ = call_arguments(spec("eval_spec", training.eval_spec), EVAL_SPEC_PARAMS)
        return train, evaluation

    @staticmethod
    def _evaluation(values, kind, evaluation, ctx) -> str:
        ctx.need_import("os")
        ctx.need_compat("estimator_evaluation")
        return _EVALUATION.format(
            **values,
            eval_input_fn=source(evaluation["input_fn"]),
            eval_steps=source(evaluation["steps"]) if "steps" in evaluation else _EVAL_SPEC_STEPS,
            throttle=source(evaluation["throttle_secs"]) if "throttle_secs" in evaluation else _EVAL_SPEC_THROTTLE,
            eval_cadence=f"every_{kind}={values['every']}",
            exporters=_exporters(evaluation.get("exporters"), values),
        )

    @staticmethod
    def _result(updated, values) -> str:
        """`<targets> = <est>_periodic_evaluation.result` where train_and_evaluate's result was assigned."""
        small = updated.body[0]
        if not isinstance(small, cst.Assign):
            return ""
        targets = "".join(source(target) for target in small.targets)
        return f"\n{targets}{values['est']}_periodic_evaluation.result\n"


def _max_to_keep(keep: cst.BaseExpression) -> str:
    """CheckpointManager's `max_to_keep` for RunConfig's `keep_checkpoint_max`: 0 kept every checkpoint, as None
    does (CheckpointManager refuses 0)."""
    return "None" if isinstance(keep, cst.Integer) and keep.evaluated_value == 0 else source(keep)
