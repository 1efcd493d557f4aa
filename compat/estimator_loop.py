"""Estimator.train and train_and_evaluate as a custom loop (`--target loop`), for a migrated canned model whose
settings travel with it (`compat.estimator_training.configure`).

The same contract as the fit version: resume from model_dir, save at the start (as the Estimator re-saved
the restored step), at the RunConfig's cadence (every N steps since the last save, or on the wall clock checked
after each step) and at the end, with the train call's saving_listeners around each save (as Estimator's
CheckpointSaverHook called them: compat.kept_checkpoints.SavingListeners); the loss to TensorBoard every
`save_summary_steps`;
the hooks (Keras callbacks) driven through a `CallbackList`; `max_steps` a total across restarts, `steps`
counted from the restored step, as in Estimator. The step is `optimizer.iterations`, so either target resumes
from the other's checkpoint. A Keras model with a step cadence trains the steps up to the next one a save, a
summary or a hook needs in one tf.function call (compat.chunked_calls); a model_fn kept as written, a cadence on
the clock or a hook of the program's own go step by step.
"""

from __future__ import annotations

import logging
import time

import tensorflow as tf
import tf_keras

from . import chunked_calls, estimator_hooks, resume, root_logging
from .estimator_training import (
    NO_CHECKPOINT_SAVER,
    TRAIN,
    EvalSpec,
    TrainSpec,
    callbacks_of,
    check_limits,
    check_not_trained_unsaved,
    config_of,
    input_dataset,
    made_from_input,
    manager_for,
    periodic_evaluation,
    saving_listeners_of,
    session_only_hooks,
    trained_without_checkpoints,
    trains,
    warm_start_afresh,
)

log = logging.getLogger(__name__)


def _train_step(model):
    """One optimizer step (DNNLinearCombined: the DNN's optimizer for the DNN, the linear one for the rest)."""
    if hasattr(model, "tf1_variables"):  # a wrapped model_fn: its own train_op is the step
        compiled = tf.function(lambda batch: model.train_step(batch)["loss"])  # features only, or (features, labels)
        # with SessionRunHooks running (compat.wrapped_hooks) each step runs eagerly: they choose its fetches
        return lambda batch: compiled(batch) if model.session_hooks is None else model.train_step(batch)["loss"]
    return tf.function(_keras_step(model))


def _keras_step(model):
    """A Keras (canned, Keras-class) model's step on one batch, as Python (traced by its caller)."""
    linear_optimizer = getattr(model, "linear_optimizer", None)

    def step(batch):
        features, labels = batch
        with tf.GradientTape() as tape:
            loss = model.compute_loss(features, labels, model(features, training=True))
        if linear_optimizer is None:
            gradients = tape.gradient(loss, model.trainable_variables)
            model.optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        else:
            dnn, linear = tape.gradient(loss, [model.dnn_variables, model.linear_variables])
            model.optimizer.apply_gradients(zip(dnn, model.dnn_variables))
            linear_optimizer.apply_gradients(zip(linear, model.linear_variables))
        return loss

    return step


def _train_steps(model):
    """`steps(iterator, count)`: up to `count` steps in one tf.function call, fewer when the input ends; the last
    step's loss (NaN when none ran)."""
    step = _keras_step(model)

    @tf.function
    def steps(iterator, count):
        loss = tf.constant(float("nan"))
        for _ in tf.range(count):
            batch = iterator.get_next_as_optional()
            if not batch.has_value():
                break
            loss = step(batch.get_value())
        return loss

    return steps


def train(model, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None):
    """`estimator.train(input_fn, hooks, steps, max_steps)` as a checkpointed custom loop; returns the model."""
    steps, max_steps = check_limits(steps, max_steps)
    config = config_of(model)
    made = made_from_input(model, input_fn, TRAIN)
    input_hooks, hooks = session_only_hooks(model, hooks)
    callbacks = tf_keras.callbacks.CallbackList(callbacks_of(hooks, "train", model), model=model)
    step = model.optimizer.iterations
    if not config.saves_checkpoints and saving_listeners:
        raise ValueError(NO_CHECKPOINT_SAVER)
    kind, every = config.cadence if config.saves_checkpoints else ("off", None)
    checkpoint = tf.train.Checkpoint(model=model, optimizer=model.optimizer, step=step)
    manager = manager_for(checkpoint, config, model, step_counter=step)

    def save():
        if kind == "off":  # RunConfig switched checkpointing off: Estimator saved nothing
            return
        with root_logging.untouched():
            manager.save(checkpoint_number=step, check_interval=False)
    if resume.restore_latest(checkpoint, manager) is None:
        check_not_trained_unsaved(model, "train")
        warm_start_afresh(model)
    last_step = max_steps if max_steps is not None else int(step) + steps if steps is not None else None
    if last_step is not None and int(step) >= last_step:
        log.info("Skipping training since max_steps has already saved.")
        return model
    dataset = made if made is not None else input_dataset(input_fn, TRAIN, model, session_hooks=input_hooks)
    if last_step is not None:
        dataset = dataset.take(last_step - int(step))
    summaries = tf.summary.create_file_writer(config.model_dir)
    # a wrapped model_fn writing Estimator's summaries itself writes the loss among them, at Estimator's steps
    writes_loss_summary = getattr(model, "writes_summaries", False)
    train_step = _train_step(model)
    # Estimator's CheckpointSaverHook: a save at the first step, then every `every` steps (or seconds) since the
    # last one, and at the end unless that step was just saved; its listeners around each save
    listeners = saving_listeners_of(model, saving_listeners)
    listeners.begin()
    saved_step = int(step)
    listeners.around(save, saved_step)
    model.stop_training = False  # as fit does: a stop requested in an earlier call ended only that call
    saved_at = time.monotonic()
    chunked = kind in ("steps", "off") and not hasattr(model, "tf1_variables") \
        and chunked_calls.chunkable(callbacks.callbacks)
    with trains(model):
        callbacks.on_train_begin()
        if chunked:
            saved_step = _train_in_chunks(model, iter(dataset), callbacks, summaries, listeners, save, every,
                                          saved_step, last_step)
        for batch in [] if chunked else dataset:
            number = int(step)
            callbacks.on_train_batch_begin(number)
            loss = train_step(batch)
            if config.save_summary_steps and int(step) % config.save_summary_steps == 0 and not writes_loss_summary:
                with summaries.as_default():
                    tf.summary.scalar("loss", loss, step=step)
            due = (int(step) >= saved_step + every if kind == "steps"
                   else kind == "secs" and time.monotonic() - saved_at >= every)
            if due:
                saved_step, saved_at = int(step), time.monotonic()
                if listeners.around(save, saved_step):
                    model.stop_training = True
            callbacks.on_train_batch_end(number, {"loss": loss})
            estimator_hooks.check_loss(loss)  # Estimator's NanTensorHook
            if model.stop_training:
                break
    if int(step) != saved_step:
        listeners.around(save, int(step))
    else:
        save()  # (the same files again: the training's end state)
    listeners.end(int(step))
    callbacks.on_train_end()
    if kind == "off":
        log.warning("RunConfig switches checkpointing off: this training saved no checkpoint, as Estimator's did")
        trained_without_checkpoints(model)
    return model


def _train_in_chunks(model, iterator, callbacks, summaries, listeners, save, every: int | None, saved_step: int,
                     last_step: int | None) -> int:
    """The steps up to the next one a save, a summary or a hook needs (compat.chunked_calls) in one tf.function
    call: the same steps, batches, saves, summaries and hook calls as step by step, Python once per chunk; the
    hooks called once per chunk, after its save. Returns the step last saved."""
    step, summary_steps = model.optimizer.iterations, config_of(model).save_summary_steps
    train_steps = _train_steps(model)
    while last_step is None or int(step) < last_step:
        done = int(step)
        bounds = [chunked_calls.steps_to_next_due(callbacks.callbacks, done, model)]
        bounds += [last_step - done] if last_step is not None else []
        bounds += [saved_step + every - done] if every is not None else []
        bounds += [summary_steps - done % summary_steps] if summary_steps else []
        chunk = max(1, min(bounds))
        callbacks.on_train_batch_begin(done)
        loss = train_steps(iterator, tf.constant(chunk))
        if int(step) == done:
            break  # the input has ended
        if summary_steps and int(step) % summary_steps == 0:
            with summaries.as_default():
                tf.summary.scalar("loss", loss, step=step)
        # Estimator's NanTensorHook; checked before the save: a NaN step makes every later loss NaN
        estimator_hooks.check_loss(loss)
        if every is not None and int(step) >= saved_step + every:
            saved_step = int(step)
            if listeners.around(save, saved_step):
                model.stop_training = True
        callbacks.on_train_batch_end(done, {"loss": loss})
        if model.stop_training or int(step) - done < chunk:
            break  # (a hook's or a listener's stop, or the input ended within the chunk)
    return saved_step


def train_and_evaluate(model, train_spec: TrainSpec, eval_spec: EvalSpec):
    """`tf.estimator.train_and_evaluate` (local mode) as a custom loop; returns what it returned."""
    evaluation = periodic_evaluation(model, train_spec, eval_spec)
    hooks = [evaluation, *train_spec.hooks]
    train(model, train_spec.input_fn, hooks=hooks, max_steps=train_spec.max_steps,
          saving_listeners=train_spec.saving_listeners)
    return evaluation.result
