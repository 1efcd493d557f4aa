"""`Estimator.export_saved_model` for migrated models: a SavedModel with the Estimator's signatures.

A canned Estimator exported, under `<export_dir_base>/<unix seconds>` (written as `temp-<seconds>` first, then
renamed), the signatures its head declared, fed by the serving input receiver:
- `predict`: every prediction of `compat.estimator_prediction` (logits, probabilities, classes, ...), the
  inputs named as the receiver's tensors (`examples` for a parsing receiver, the feature names for a raw one);
- when the receiver is one string tensor (the parsing receiver's serialized tf.Examples), also
  `serving_default` and `classification` (`classes`, `scores`) for classifiers, `regression` (`outputs`) for
  regressors and binary classifiers (the logistic), their input named `inputs`. With any other receiver the
  Estimator dropped those (a classification or regression signature reads one tf.Example string).
A migrated custom model_fn (compat.model_fns) without `export_outputs` had one signature, `serving_default`:
its PREDICT path's predictions (a single tensor named `output`), from the features as the receiver gave them.
A model_fn kept as written (compat.wrapped_model_fns) exports its PREDICT spec's `export_outputs`, each under
its key (a classify or regress signature only from one string receiver tensor, named `inputs`).

Servers and clients see the same signature names, input and output names, dtypes and values; the variables
inside are the Keras model's, under Keras names. The receiver function is the program's own, run as the
Estimator ran it (a TF1 graph: placeholders, parsing; `tf.compat.v1` still has them): this module replaces
the four `tf.estimator.export` names it may use, `ServingInputReceiver`, `TensorServingInputReceiver`,
`build_parsing_serving_input_receiver_fn` and `build_raw_serving_input_receiver_fn`. `LatestExporter`,
`FinalExporter` and `BestExporter` are EvalSpec's exporters, called by
`compat.estimator_evaluation.PeriodicEvaluation`, as is a program's own `Exporter` subclass.
"""

from __future__ import annotations

import abc
import contextlib
import os
import shutil
import time
from typing import NamedTuple

import tensorflow as tf
import tf_keras
from google.protobuf import text_format
from tensorflow.core.protobuf import saved_model_pb2

from .canned import head_of
from .estimator_prediction import all_classes, head_predictions
from .forwarded_features import forwarded

# A categorical feature parsed as a VarLenFeature is densified with the value feature columns ignore, so
# the columns see the same ids as from the parsed SparseTensor (tf.feature_column's default ignore_value).
_IGNORED_VALUE = {tf.string: "", tf.int64: -1, tf.int32: -1}
# The names Estimator gave a receiver tensor, features and predictions that were not dicts (export_utils,
# PredictOutput).
_SINGLE_RECEIVER_NAME, _SINGLE_FEATURE_NAME, _SINGLE_OUTPUT_NAME = "input", "feature", "output"


class Exporter(abc.ABC):
    """`tf.estimator.Exporter`: the base of a program's own EvalSpec exporter. After each evaluation of
    `train_and_evaluate` it is called as Estimator called it: `export(estimator=<the migrated model>,
    export_path=<model_dir>/export/<name>, checkpoint_path=<the checkpoint evaluated>, eval_result=<its metrics>,
    is_the_final_export=<whether max_steps was reached>)` (compat.estimator_evaluation.PeriodicEvaluation)."""

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """The directory under model_dir/export this exporter writes to."""

    @abc.abstractmethod
    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        """Export after an evaluation; what it returns is among train_and_evaluate's export results."""


class ServingInputReceiver(NamedTuple):
    """`tf.estimator.export.ServingInputReceiver`: what a serving input receiver function returns, the
    features the model reads and the tensors a client feeds (single tensors keyed as Estimator keyed them)."""

    features: dict
    receiver_tensors: dict
    receiver_tensors_alternatives: dict | None = None


class TensorServingInputReceiver(NamedTuple):
    """`tf.estimator.export.TensorServingInputReceiver`: a receiver whose one feature the model_fn is given as the
    tensor itself (a ServingInputReceiver gave a single tensor as `{"feature": tensor}`)."""

    features: tf.Tensor
    receiver_tensors: dict
    receiver_tensors_alternatives: dict | None = None


def _receiver(serving_input_receiver_fn) -> ServingInputReceiver:
    """What the receiver function returns, its single tensors keyed as Estimator keyed them (the one feature of
    a TensorServingInputReceiver given as it is)."""
    receiver = serving_input_receiver_fn()
    if not isinstance(receiver, ServingInputReceiver | TensorServingInputReceiver):
        raise TypeError(
            "serving_input_receiver_fn must return a compat.estimator_export.ServingInputReceiver or "
            f"TensorServingInputReceiver, got {type(receiver).__name__}"
        )
    kind = type(receiver).__name__
    if receiver.receiver_tensors_alternatives:
        raise ValueError(f"{kind}(receiver_tensors_alternatives=...) is not supported")
    features, tensors = receiver.features, receiver.receiver_tensors
    if isinstance(receiver, TensorServingInputReceiver):
        if not isinstance(features, tf.Tensor | tf.SparseTensor | tf.RaggedTensor):
            raise ValueError(f"TensorServingInputReceiver: feature must be a Tensor, SparseTensor, or RaggedTensor, "
                             f"got {type(features).__name__}")  # (Estimator's ValueError)
    elif not isinstance(features, dict):
        features = {_SINGLE_FEATURE_NAME: features}
    return ServingInputReceiver(features, tensors if isinstance(tensors, dict) else {_SINGLE_RECEIVER_NAME: tensors})


def build_parsing_serving_input_receiver_fn(feature_spec: dict, default_batch_size: int | None = None):
    """`tf.estimator.export.build_parsing_serving_input_receiver_fn`: a receiver of serialized tf.Examples
    (a string tensor fed as `examples`) parsed with `feature_spec` (e.g. `make_parse_example_spec`)."""
    if not isinstance(feature_spec, dict) or not feature_spec:
        raise ValueError(f"feature_spec must be a non-empty dict of feature name -> parsing spec, got {feature_spec!r}")

    def serving_input_receiver_fn():
        serialized = tf.compat.v1.placeholder(tf.string, [default_batch_size], name="input_example_tensor")
        return ServingInputReceiver(tf.io.parse_example(serialized, feature_spec), {"examples": serialized})

    return serving_input_receiver_fn


def build_raw_serving_input_receiver_fn(features: dict, default_batch_size: int | None = None):
    """`tf.estimator.export.build_raw_serving_input_receiver_fn`: the features themselves, one input per
    feature (a tensor or a `tf.TensorSpec`) with its dtype and its shape after the first dimension, the batch
    dimension `default_batch_size` (None: any), as Estimator's `_placeholder_from_tensor` made them."""
    if not isinstance(features, dict) or not features:
        raise ValueError(f"features must be a non-empty dict of feature name -> tensor, got {features!r}")

    def serving_input_receiver_fn():
        tensors = {
            name: tf.compat.v1.placeholder(
                value.dtype, tf.TensorShape([default_batch_size]).concatenate(tf.TensorShape(value.shape)[1:]),
                name=name,
            )
            for name, value in features.items()
        }
        return ServingInputReceiver(tensors, dict(tensors))

    return serving_input_receiver_fn


def _dense(value):
    if not isinstance(value, tf.SparseTensor):
        return value
    return tf.sparse.to_dense(value, default_value=_IGNORED_VALUE.get(value.dtype, 0))


class _Exported(tf.Module):
    """What is saved with the signature functions: a canned model (its variables and lookup tables); a
    migrated model_fn's variables and lookup tables (a vocabulary column's, its feature layer holds them), not
    the model (saving it as a Keras model would trace `call` outside a pass, which makes its inline layers again)."""

    def __init__(self, model: tf_keras.Model):
        super().__init__()
        if hasattr(model, "prediction_step") or hasattr(model, "serving_signatures"):
            self.model_variables = list(model.variables)
            self.model_tables = [held for held in tf.train.TrackableView(model).descendants()
                                 if isinstance(held, tf.saved_model.experimental.TrackableResource)]
        else:
            self.model = model


def signatures(model: tf_keras.Model, serving_input_receiver_fn) -> dict[str, tf.types.experimental.ConcreteFunction]:
    """The signatures the Estimator's export had, as concrete functions of `model` (see the module doc).

    The receiver function builds its TF1 graph (placeholders, parsing) as it did for the Estimator, inside
    `tf.compat.v1.wrap_function`; the graph is then pruned to a function of the receiver tensors."""
    if hasattr(model, "serving_signatures"):  # a model_fn kept as written (compat.wrapped_model_fns)
        return _wrapped_signatures(model, serving_input_receiver_fn)
    if hasattr(model, "prediction_step"):  # a migrated model_fn (compat.model_fns.EstimatorModel)
        head = None

        def outputs(features):  # its PREDICT path, given the features as the model_fn was
            model.begin_pass()
            predictions = model.prediction_step(features)
            return predictions if isinstance(predictions, dict) else {_SINGLE_OUTPUT_NAME: predictions}
    else:
        head = head_of(model)

        def outputs(features):  # the canned head's predictions; the Keras model's inputs are dense
            if not isinstance(features, dict):  # (its feature columns read a dict: the Estimator failed too)
                raise TypeError("a canned estimator's feature columns read a dict of features, and the "
                                "TensorServingInputReceiver gives one tensor: return a ServingInputReceiver")
            dense = {name: _dense(value) for name, value in features.items()}
            return forwarded(model, features, head_predictions(head, model(dense, training=False)))

    receivers = []

    def serving_graph():
        receiver = _receiver(serving_input_receiver_fn)
        receivers.append(receiver)
        return outputs(receiver.features)

    graph = tf.compat.v1.wrap_function(serving_graph, [])
    tensors = receivers[0].receiver_tensors
    names = sorted(tensors)
    served = graph.prune(feeds=[tensors[name] for name in names], fetches=graph.structured_outputs)
    specs = {name: tf.TensorSpec(tensors[name].shape, tensors[name].dtype, name=name) for name in names}
    predict = tf.function(lambda inputs: served(*[inputs[name] for name in names])).get_concrete_function(specs)
    if head is None:  # a model_fn without export_outputs: its predictions are the default signature
        return {"serving_default": predict}
    found = {"predict": predict}
    if len(names) != 1 or tensors[names[0]].dtype != tf.string:
        return found
    inputs_spec = tf.TensorSpec(tensors[names[0]].shape, tf.string, name="inputs")

    def classification(inputs):
        outputs = served(inputs)
        classes = (all_classes(outputs["logits"], head.label_vocabulary) if head.kind == "multi_label"
                   else outputs["all_classes"])
        return {"classes": classes, "scores": outputs["probabilities"]}

    def regression(inputs):
        return {"outputs": served(inputs)["logistic" if head.kind == "binary" else "predictions"]}

    if head.kind != "regression":
        found["classification"] = tf.function(classification).get_concrete_function(inputs_spec)
    if head.kind in ("binary", "regression"):
        found["regression"] = tf.function(regression).get_concrete_function(inputs_spec)
    found["serving_default"] = found["regression" if head.kind == "regression" else "classification"]
    return found


def _receiver_graph(serving_input_receiver_fn):
    """The receiver function run in a TF1 graph: (a function of its receiver tensors, in `names` order, returning
    the features, the features' specs, the receiver tensors, `names`: their keys sorted)."""
    receivers = []

    def serving_graph():
        receiver = _receiver(serving_input_receiver_fn)
        receivers.append(receiver)
        return receiver.features

    graph = tf.compat.v1.wrap_function(serving_graph, [])
    tensors = receivers[0].receiver_tensors
    names = sorted(tensors)
    for feature in tf.nest.flatten(graph.structured_outputs):
        if not isinstance(feature, tf.Tensor):
            raise TypeError(f"serving_input_receiver_fn gives the model_fn a {type(feature).__name__} feature: "
                            "exporting a model_fn kept as written from other than dense tensors is not migrated yet")
    features = graph.prune(feeds=[tensors[name] for name in names], fetches=graph.structured_outputs)
    specs = tf.nest.map_structure(lambda t: tf.TensorSpec(t.shape, t.dtype), graph.structured_outputs)
    return features, specs, tensors, names


def receiver_features_spec(serving_input_receiver_fn):
    """The specs of the features the receiver function gives the model (its variables are made from them)."""
    return _receiver_graph(serving_input_receiver_fn)[1]


def _wrapped_signatures(model, serving_input_receiver_fn) -> dict[str, tf.types.experimental.ConcreteFunction]:
    """A wrapped model_fn's export, as Estimator's: each of the PREDICT spec's export outputs a signature under
    its key; a predict signature takes the receiver tensors by name, a classify or regress one the single string
    tensor as `inputs` (with another receiver Estimator left it out)."""
    features, features_spec, tensors, names = _receiver_graph(serving_input_receiver_fn)
    one_string = len(names) == 1 and tensors[names[0]].dtype == tf.string
    specs = {name: tf.TensorSpec(tensors[name].shape, tensors[name].dtype, name=name) for name in names}
    found = {}
    served_signatures, resources = model.serving_signatures(features_spec)
    for key, (kind, outputs) in served_signatures.items():
        def served(*receiver_tensors, outputs=outputs):
            return outputs(*tf.nest.flatten(features(*receiver_tensors)))

        if kind == "predict":
            found[key] = tf.function(lambda inputs, served=served: served(*[inputs[name] for name in names])
                                     ).get_concrete_function(specs)
        elif one_string:
            found[key] = tf.function(served).get_concrete_function(
                tf.TensorSpec(tensors[names[0]].shape, tf.string, name="inputs"))
    return _Signatures(found, resources)


class _Signatures(dict):
    """Signature functions, with the resources (lookup tables) they use: the export must hold those too."""

    def __init__(self, functions: dict, resources: list):
        super().__init__(functions)
        self.resources = resources


def export_saved_model(
    model: tf_keras.Model,
    export_dir_base: str,
    serving_input_receiver_fn,
    assets_extra: dict | None = None,
    as_text: bool = False,
) -> bytes:
    """What `estimator.export_saved_model(export_dir_base, serving_input_receiver_fn, assets_extra, as_text)`
    did, for a `compat.canned` model or a migrated model_fn (the same arguments, the model first): returns the
    new export directory (bytes, as Estimator returned it).

    `assets_extra` maps a path under `assets.extra/` to the file copied there; `as_text` writes the SavedModel
    proto as text (`saved_model.pbtxt`, which TensorFlow's loaders read as they read `saved_model.pb`). The
    SavedModel is written to `temp-<seconds>` and renamed when complete, so a crash never leaves a half-written
    export.
    """
    if not callable(serving_input_receiver_fn):
        raise TypeError(f"serving_input_receiver_fn must be a function, got {type(serving_input_receiver_fn).__name__}")
    export_dir = _timestamped_dir(os.fsdecode(export_dir_base))
    temp_dir = os.path.join(os.path.dirname(export_dir), "temp-" + os.path.basename(export_dir))
    try:
        exported = _Exported(model)
        found = signatures(model, serving_input_receiver_fn)
        exported.tables = list(getattr(found, "resources", ()))  # a wrapped model_fn's vocabularies
        # a wrapped model_fn's PREDICT Scaffold may restore its variables from other names (moving averages)
        restoring = getattr(model, "restoring_as_the_scaffold", None)
        with restoring("infer") if restoring is not None else contextlib.nullcontext():  # ModeKeys.PREDICT
            tf.saved_model.save(exported, temp_dir, signatures=found)
        if as_text:
            _as_text(temp_dir)
        for destination, source in (assets_extra or {}).items():
            target = os.path.join(temp_dir, "assets.extra", destination)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(source, target)
        os.rename(temp_dir, export_dir)
    finally:
        shutil.rmtree(temp_dir, ignore_errors=True)
    return os.fsencode(export_dir)


def _as_text(saved_model_dir: str) -> None:
    """The SavedModel in `saved_model_dir` with its proto as text (saved_model.pbtxt) in place of binary."""
    binary = os.path.join(saved_model_dir, tf.saved_model.SAVED_MODEL_FILENAME_PB)
    saved_model = saved_model_pb2.SavedModel.FromString(tf.io.gfile.GFile(binary, "rb").read())
    with tf.io.gfile.GFile(os.path.join(saved_model_dir, tf.saved_model.SAVED_MODEL_FILENAME_PBTXT), "w") as text:
        text.write(text_format.MessageToString(saved_model))
    tf.io.gfile.remove(binary)


def _timestamped_dir(export_dir_base: str, attempts: int = 10) -> str:
    """`<export_dir_base>/<unix seconds>` that does not exist yet (waiting a second while it does)."""
    for _ in range(attempts):
        candidate = os.path.join(export_dir_base, str(int(time.time())))
        if not os.path.exists(candidate):
            return candidate
        time.sleep(1)
    raise RuntimeError(f"{export_dir_base}: no unused timestamped export directory after {attempts} attempts")


class LatestExporter(Exporter):
    """`tf.estimator.LatestExporter`: after each evaluation of train_and_evaluate, an export under
    `model_dir/export/<name>`, then all but the newest `exports_to_keep` exports there deleted (None: none)."""

    def __init__(self, name: str, serving_input_receiver_fn, assets_extra: dict | None = None, as_text: bool = False,
                 exports_to_keep: int | None = 5):
        _check_exporter(name, exports_to_keep)
        self._name, self.serving_input_receiver_fn, self.assets_extra = name, serving_input_receiver_fn, assets_extra
        self.as_text, self.exports_to_keep = as_text, exports_to_keep

    name = property(lambda self: self._name)

    def export(self, estimator, export_path: str, checkpoint_path, eval_result: dict, is_the_final_export: bool) -> bytes:
        """The model as evaluated (the state of `checkpoint_path`, which the Estimator's exported) under export_path."""
        exported = export_saved_model(estimator, export_path, self.serving_input_receiver_fn, self.assets_extra,
                                      self.as_text)
        _keep_newest(export_path, self.exports_to_keep)
        return exported


def _keep_newest(export_path: str, exports_to_keep: int | None) -> None:
    """Delete all but the newest `exports_to_keep` timestamped exports in export_path (None: keep all)."""
    if exports_to_keep is None:
        return
    versions = sorted(entry for entry in os.listdir(export_path) if len(entry) == 10 and entry.isdigit())
    for version in versions[:-exports_to_keep]:
        shutil.rmtree(os.path.join(export_path, version))


def _check_exporter(name: str, exports_to_keep: int | None = None) -> None:
    if exports_to_keep is not None and exports_to_keep <= 0:
        raise ValueError(f"exporter {name!r}: exports_to_keep must be a positive number or None")


class FinalExporter(Exporter):
    """`tf.estimator.FinalExporter`: one export, after the evaluation of the step that reached max_steps."""

    def __init__(self, name: str, serving_input_receiver_fn, assets_extra: dict | None = None, as_text: bool = False):
        _check_exporter(name)
        self._name, self.serving_input_receiver_fn, self.assets_extra = name, serving_input_receiver_fn, assets_extra
        self.as_text = as_text

    name = property(lambda self: self._name)

    def export(self, estimator, export_path: str, checkpoint_path, eval_result: dict,
               is_the_final_export: bool) -> bytes | None:
        if not is_the_final_export:
            return None
        return export_saved_model(estimator, export_path, self.serving_input_receiver_fn, self.assets_extra,
                                  self.as_text)


def loss_smaller(best_eval_result: dict, current_eval_result: dict) -> bool:
    """BestExporter's default compare_fn: whether the current evaluation's loss is below the best's."""
    for which, result in (("best_eval_result", best_eval_result), ("current_eval_result", current_eval_result)):
        if not result or "loss" not in result:
            raise ValueError(f"{which} cannot be empty or no loss is found in it.")
    return best_eval_result["loss"] > current_eval_result["loss"]


class BestExporter(Exporter):
    """`tf.estimator.BestExporter`: an export when `compare_fn(best_eval_result=..., current_eval_result=...)`
    says the evaluation beats the last exported one, and always at the first evaluation of the run (as the
    Estimator's did: the best it read back from the eval event files was replaced before it was compared);
    then all but the newest `exports_to_keep` exports deleted (None: none). `event_file_pattern` is taken
    for the same arguments only: what the Estimator read back with it never decided an export."""

    def __init__(self, name: str = "best_exporter", serving_input_receiver_fn=None,
                 event_file_pattern: str | None = "eval/*.tfevents.*", compare_fn=loss_smaller,
                 assets_extra: dict | None = None, as_text: bool = False, exports_to_keep: int | None = 5):
        _check_exporter(name, exports_to_keep)
        if compare_fn is None:
            raise ValueError(f"exporter {name!r}: compare_fn must not be None")
        self._name, self.serving_input_receiver_fn, self.assets_extra = name, serving_input_receiver_fn, assets_extra
        self.compare_fn, self.as_text, self.exports_to_keep = compare_fn, as_text, exports_to_keep
        self._best_eval_result: dict | None = None  # of the last export of this run

    name = property(lambda self: self._name)

    def export(self, estimator, export_path: str, checkpoint_path, eval_result: dict,
               is_the_final_export: bool) -> bytes | None:
        first = self._best_eval_result is None
        if not first and not self.compare_fn(best_eval_result=self._best_eval_result, current_eval_result=eval_result):
            return None
        self._best_eval_result = eval_result
        exported = export_saved_model(estimator, export_path, self.serving_input_receiver_fn, self.assets_extra,
                                      self.as_text)
        _keep_newest(export_path, self.exports_to_keep)
        return exported
