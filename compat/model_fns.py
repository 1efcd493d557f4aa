"""The runtime of custom `model_fn` Estimators migrated to Keras (codemods/model_fns.py writes the subclasses).
(Plural: migrated code imports this module by name, and a program's own `model_fn` would shadow it.)

A model_fn builds its layers inline, every time it runs (`tf.compat.v1.layers.dense(net, 10)`), and TF1's
graph gave each call site a fresh scope (`dense`, `dense_1`, ...). A migrated model's `call` keeps that
code: `self.layer(tf_keras.layers.Dense, 10)(net)` makes the layer the first time a pass reaches that
point and returns the same layer on every later pass (layers are counted in call order), named as the
Estimator named it, so a legacy checkpoint maps onto it by name (`load_estimator_checkpoint`).

The model_fn's loss goes to `compute_loss`, its optimizer to `compile`; `train_step` logs the step's own
loss (as Estimator's `loss` summary and NanTensorHook saw it), not Keras's running mean.
"""

from __future__ import annotations

import os
import re

import numpy as np
import tensorflow as tf
import tf_keras

from compat.load import LoadResult, load_legacy_checkpoint


def _snake_case(name: str) -> str:
    """A layer class's default layer name, as Keras and TF1 layers spell it (Conv2D -> conv2d)."""
    name = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


class EstimatorModel(tf_keras.Model):
    """Base of the models migrated from a model_fn: `params` as the Estimator gave them, inline layers."""

    def __init__(self, params=None, **kwargs):
        super().__init__(**kwargs)
        self.params = params
        self.model_fn_layers = []  # in the order a forward pass reaches them (tracked: checkpointed)
        self._next_layer = 0

    def __call__(self, *args, **kwargs):
        self._next_layer = 0  # each pass walks the same layers again, from the first
        return super().__call__(*args, **kwargs)

    def layer(self, layer_class, *args, **kwargs):
        """The layer made at this point of the forward pass (made now on the first pass)."""
        if self._next_layer == len(self.model_fn_layers):
            base = kwargs.pop("name", None) or _snake_case(layer_class.__name__)
            # A TF1 graph made a second `dense` scope `dense_1`, a second `logits` `logits_1`.
            taken = {made.name for made in self.model_fn_layers}
            name, count = base, 0
            while name in taken:
                count += 1
                name = f"{base}_{count}"
            self.model_fn_layers.append(layer_class(*args, name=name, **kwargs))
        made = self.model_fn_layers[self._next_layer]
        self._next_layer += 1
        return made

    def train_step(self, data):
        x, y, sample_weight = tf_keras.utils.unpack_x_y_sample_weight(data)
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x, y, y_pred, sample_weight)
        self.optimizer.minimize(loss, self.trainable_variables, tape=tape)
        return {"loss": loss}

    def make_variables(self, element_spec) -> None:
        """Make the layers and the optimizer's slots from the input's structure (`dataset.element_spec`), so a
        checkpoint restores into them before training, and the first checkpoint holds the initial weights."""
        if self.built:
            return
        features = element_spec[0] if isinstance(element_spec, tuple) else element_spec
        self(tf.nest.map_structure(_zeros, features), training=False)
        self.optimizer.build(self.trainable_variables)


def _zeros(spec: tf.TensorSpec) -> tf.Tensor:
    shape = [1 if size is None else size for size in spec.shape.as_list()]
    if spec.dtype == tf.string:
        return tf.constant(np.full(shape, "", dtype=object), dtype=tf.string)
    return tf.zeros(shape, spec.dtype)


def load_estimator_checkpoint(model: EstimatorModel, prefix: str | os.PathLike) -> LoadResult:
    """An Estimator's `model.ckpt-N` (a model_dir or a prefix) into a built migrated model: weights by their
    TF1 names (`dense/kernel` -> `<model name>/dense/kernel`), the optimizer's slots, the step."""
    scope = f"{model.name}/"
    return load_legacy_checkpoint(prefix, model, model.optimizer, lambda name: scope + name)


def convert_estimator_checkpoint(model: EstimatorModel, prefix: str | os.PathLike, model_dir: str | os.PathLike) -> str:
    """Write a migrated program's starting checkpoint: the Estimator's `model.ckpt-N` (a model_dir or a prefix)
    loaded into `model` (built: `make_variables`), saved as `ckpt-N` in `model_dir`, a directory of its own,
    where the migrated program's `restore_latest` continues at step N + 1 (both targets). Returns its path."""
    if tf.train.latest_checkpoint(str(model_dir)):
        raise FileExistsError(f"{model_dir} already holds a checkpoint; convert into an empty directory")
    result = load_estimator_checkpoint(model, prefix)
    checkpoint = tf.train.Checkpoint(model=model, optimizer=model.optimizer)
    manager = tf.train.CheckpointManager(checkpoint, str(model_dir), max_to_keep=None)
    return manager.save(checkpoint_number=result.global_step or 0)

