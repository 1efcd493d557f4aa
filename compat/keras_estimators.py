"""`tf.keras.estimator.model_to_estimator` for TensorFlow >= 2.16: the compiled Keras model is the estimator.

Estimator wrapped a compiled Keras 2 model in a model_fn (tensorflow_estimator's keras_lib): every mode built
a clone of it (`clone_and_build_model`, compiled from the model's optimizer config, the optimizer converted
to its `legacy` class), warm-started from the model's weights; TRAIN ran the clone's loss (`total_loss`:
the compiled losses plus the layers' regularization) with its optimizer, the optimizer's `iterations` the
global step; EVAL gave `loss` (the mean of the batch losses) and the compiled metrics; PREDICT the outputs
by output name. Its checkpoints were object-based (checkpoint_format 'checkpoint', the default), rooted at
the clone, plus `estimator_global_step`.

`model_to_estimator` here takes the same parameters and does the same with tf_keras: the same clone, the
same legacy optimizer, the same weights to start from, configured by `compat.estimator_training.configure`
so that the migrated `train`, `evaluate`, `predict` and `train_and_evaluate` run it. An Estimator's
`model.ckpt-N` of the model continues where it stopped (`load_estimator_checkpoint`, through
compat.resume). What the Estimator checked (a compiled model, one source of it, the checkpoint format) is
checked here with its messages; a Keras 3 model (TF >= 2.16's `tf.keras`) is one error naming the fix.
"""

from __future__ import annotations

import functools
import os

import numpy as np
import tensorflow as tf
import tf_keras

from . import estimator_prediction
from .estimator_evaluation import finish_evaluation
from .estimator_training import configure
from .legacy_checkpoint import CheckpointError
from .resume import ESTIMATOR_STEP_KEY


def model_to_estimator(keras_model=None, keras_model_path=None, custom_objects=None, model_dir=None, config=None,
                       checkpoint_format=None, use_v2_estimator=False, metric_names_map=None, export_outputs=None):
    """`tf.keras.estimator.model_to_estimator(...)`: a configured clone of the compiled `keras_model` (or of
    the model saved at `keras_model_path`) that the migrated Estimator calls train, evaluate and predict.
    `use_v2_estimator` changed nothing of training; `export_outputs` is not migrated (one error)."""
    if not (keras_model or keras_model_path):
        raise ValueError("Either `keras_model` or `keras_model_path` needs to be provided.")
    if keras_model and keras_model_path:
        raise ValueError("Please specity either `keras_model` or `keras_model_path`, but not both.")
    if export_outputs is not None:
        raise ValueError("model_to_estimator(export_outputs=...) is not migrated: export the tf_keras model with "
                         "tf.saved_model.save and signatures of your own")
    if keras_model is None:
        keras_model = tf_keras.models.load_model(os.fspath(keras_model_path), custom_objects=custom_objects)
    _check_tf_keras(keras_model)
    subclassed = not (keras_model._is_graph_network or isinstance(keras_model, tf_keras.Sequential))
    if checkpoint_format is None or checkpoint_format == "checkpoint":
        if subclassed:
            raise ValueError("Object-based checkpoints are currently not supported with subclassed models.")
    elif checkpoint_format != "saver":
        raise ValueError(f'Checkpoint format must be one of "checkpoint" or "saver". Got {checkpoint_format}')
    if not getattr(keras_model, "optimizer", None):
        raise ValueError("The given keras model has not been compiled yet. Please compile the model with "
                         "`model.compile()` before calling `model_to_estimator()`.")
    if not isinstance(keras_model.optimizer, (tf_keras.optimizers.Optimizer, tf_keras.optimizers.legacy.Optimizer)):
        raise TypeError(
            f"model_to_estimator: the model is compiled with {type(keras_model.optimizer).__name__}, not one tf_keras "
            "optimizer; compile it with tf_keras.optimizers.legacy.<Name>, the class Estimator trained with"
        )
    if subclassed and keras_model.built:
        # Estimator built a fresh clone (its weights not carried over, with a warning): so would the migrated
        # one, which is rarely what the program meant; one error rather than silently other weights
        raise ValueError("model_to_estimator: a subclassed model that already has weights (Estimator trained a "
                         "freshly initialized clone of it); pass it before it is called, or migrate to Model.fit")
    if not isinstance(keras_model.optimizer, tf_keras.optimizers.legacy.Optimizer):
        # As Estimator did, on the model given (its graph mode ran only these): the same update, the same
        # checkpoint layout
        keras_model.optimizer = tf_keras.__internal__.optimizers.convert_to_legacy_optimizer(keras_model.optimizer)
    model = tf_keras.__internal__.models.clone_and_build_model(
        keras_model, custom_objects=custom_objects, compile_clone=True, in_place_reset=subclassed,
        optimizer_config=keras_model.optimizer.get_config())
    if not subclassed:
        model.set_weights(keras_model.get_weights())  # Estimator's warm start from the model's own weights
        # The optimizer's variables (slots, hyperparameters) made now: a checkpoint restores into them then and
        # there (a deferred restore would read the file when the first step makes them, maybe after a new save
        # replaced it)
        model.optimizer._create_all_weights(model.trainable_variables)
    names = _metric_names(keras_model, metric_names_map)
    model.estimator_evaluate = functools.partial(_evaluate, model, names)
    model.estimator_predict = functools.partial(_predict, model)
    model.load_estimator_checkpoint = functools.partial(load_estimator_checkpoint, model)
    return configure(model, model_dir=model_dir, config=config)


def _check_tf_keras(model) -> None:
    if not isinstance(model, tf_keras.Model):
        raise TypeError(
            f"model_to_estimator: keras_model is a {type(model).__module__}.{type(model).__name__}, not a tf_keras "
            "model: TensorFlow >= 2.16's tf.keras is Keras 3, which no Estimator ever ran; build the model with "
            "tf_keras (`import tf_keras`, what tf.keras was up to TensorFlow 2.15)"
        )


def _metric_names(keras_model, metric_names_map) -> dict[str, str]:
    """The compiled metrics' names -> the names Estimator reported them under (`metric_names_map`, checked
    against the metrics the model was compiled with, as keras_lib checked it)."""
    if metric_names_map is None:
        return {}
    compiled = keras_model.compiled_metrics
    user_metrics = tf.nest.flatten(compiled._user_metrics or []) if compiled is not None else []
    names = {m if isinstance(m, str) else getattr(m, "name", getattr(m, "__name__", str(m))) for m in user_metrics}
    unknown = names - set(metric_names_map)
    if unknown:
        raise ValueError(f'Invalid `metric_names_map`. The following keras model metric names:"{sorted(unknown)}" '
                         "do not exist in the `metric_names_map` dictionary")
    extra = set(metric_names_map) - names
    if extra:
        raise ValueError("Invalid `metric_names_map`. There are unexpected keys in the `metric_names_map` "
                         f"dictionary. Expected keys: {sorted(names)}, Received: {sorted(extra)}")
    return dict(metric_names_map)


def _split(batch):
    if isinstance(batch, tuple):
        return batch[0], (batch[1] if len(batch) > 1 else None)
    return batch, None


def _evaluate(model, names: dict[str, str], dataset: tf.data.Dataset, steps: int | None = None,
              summary_dir: str | None = None, hooks=()) -> dict[str, float]:
    """Estimator.evaluate of a model_to_estimator model: `loss`, the mean of the batch losses (the compiled
    losses plus regularization, as `total_loss`), and each compiled metric over every batch (or the first
    `steps`), named as Estimator named them; `global_step`."""
    if hooks:
        raise ValueError("evaluate(hooks=...) of a model_to_estimator model is not migrated")

    @tf.function
    def evaluation_step(features, labels):
        outputs = model(features, training=False)
        loss = model.compiled_loss(labels, outputs, regularization_losses=model.losses)
        model.compiled_metrics.update_state(labels, outputs)
        return loss

    model.compiled_metrics.reset_state()
    losses = [float(evaluation_step(*_split(batch))) for batch in (dataset if steps is None else dataset.take(steps))]
    if not losses:
        raise ValueError("evaluate: the input_fn's dataset gave no batch")
    metrics = {names.get(metric.name, metric.name): float(metric.result())
               for metric in model.compiled_metrics.metrics}
    return finish_evaluation({"loss": float(np.mean(losses)), **metrics}, model, summary_dir)


def _predict(model, dataset: tf.data.Dataset, predict_keys=None, yield_single_examples: bool = True):
    """Estimator.predict of a model_to_estimator model: the outputs keyed by the model's output names."""
    step = tf.function(lambda features: dict(zip(model.output_names, tf.nest.flatten(model(features, training=False)))))
    batches = (tf.nest.map_structure(np.asarray, step(estimator_prediction.features_of(batch))) for batch in dataset)
    return estimator_prediction.as_estimator_yields(batches, predict_keys, yield_single_examples)


def load_estimator_checkpoint(model, prefix: str | os.PathLike) -> int:
    """An Estimator's model.ckpt-N of this model_to_estimator model (object-based, rooted at the model): every
    weight and optimizer variable, and the step. Returns N. A checkpoint in another layout is one error."""
    prefix = os.fspath(prefix)
    reader = tf.train.load_checkpoint(prefix)
    if not reader.has_tensor(ESTIMATOR_STEP_KEY):
        raise CheckpointError(
            f"{prefix}: not an object-based model_to_estimator checkpoint (checkpoint_format='saver' wrote TF1 "
            "names, which the migrated model does not read): train it with model_to_estimator's default "
            "checkpoint_format='checkpoint', or start from a new model_dir"
        )
    # The optimizer's step is the Estimator's global step, tracked beside the model as keras_lib tracked it
    root = tf.train.Checkpoint()
    for name, child in model._trackable_children().items():
        root._track_trackable(child, name)
    root._track_trackable(model.optimizer.iterations, "estimator_global_step")
    tf.train.Checkpoint(root=root).read(prefix).assert_existing_objects_matched()
    step = int(model.optimizer.iterations.numpy())
    return step
