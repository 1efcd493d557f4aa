"""Reading an Estimator's name-based `model.ckpt-N` into the tf_keras models of `compat.canned`.

The canned builders name their layers after the Estimator's variable scopes, so the name map of a DNN is
`dnn/<layer>/kernel|bias`. Every weight of the model must be found with the same shape: a partial load
is an error, never silent.
"""

from __future__ import annotations

import tensorflow as tf
import tf_keras


def dnn_weight_names(model: tf_keras.Model) -> dict[str, tf.Variable]:
    """Estimator variable name -> the Keras variable it becomes, for a `compat.canned.dnn_classifier`."""
    names = {}
    for layer in model.layers:
        if isinstance(layer, tf_keras.layers.Dense):
            names[f"dnn/{layer.name}/kernel"] = layer.kernel
            names[f"dnn/{layer.name}/bias"] = layer.bias
    return names


def load_dnn_weights(prefix: str, model: tf_keras.Model) -> int:
    """Assign a DNN Estimator checkpoint's weights to `model`; returns the checkpoint's global_step."""
    reader = tf.train.load_checkpoint(prefix)
    shapes = reader.get_variable_to_shape_map()
    for name, variable in dnn_weight_names(model).items():
        if name not in shapes:
            raise ValueError(f"{prefix}: no variable {name} (is this a DNN Estimator checkpoint?)")
        if tuple(shapes[name]) != tuple(variable.shape):
            raise ValueError(f"{prefix}: {name} has shape {shapes[name]}, the model expects {variable.shape}")
        variable.assign(reader.get_tensor(name))
    return int(reader.get_tensor("global_step"))
