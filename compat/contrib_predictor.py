"""tf.contrib.predictor as TensorFlow 1.x had it, for the serving code of Estimator projects (`predict_fn =
tf.contrib.predictor.from_saved_model(export_dir)`, then `predict_fn({"examples": serialized})`;
codemods/rules/contrib_modules.py).

TensorFlow 1.15's SavedModelPredictor loaded a SavedModel's MetaGraph into a graph and session of its own
(tf.compat.v1.saved_model.loader, still TensorFlow 2's) and ran a signature's output tensors, fed its input tensors
by the signature's keys; so does this, for an Estimator's export and for a migrated program's alike (TensorFlow 2
writes its SavedModels with a MetaGraph such a session loads). `from_estimator` predicted from an estimator's latest
checkpoint through a serving input_fn: for a migrated estimator that is its export (compat.estimator_training's, to a
temporary directory), loaded the same way.
"""

from __future__ import annotations

import logging
import tempfile

import tensorflow as tf

log = logging.getLogger(__name__)

DEFAULT_TAGS = "serve"


class SavedModelPredictor:
    """`tf.contrib.predictor.from_saved_model(...)`'s predictor: call it with {input key: value}; it returns
    {output key: numpy value}. `graph`, `session`, `feed_tensors`, `fetch_tensors` as TF 1.x's had them."""

    def __init__(self, export_dir, signature_def_key=None, signature_def=None, input_names=None, output_names=None,
                 tags=None, graph=None, config=None):
        if (input_names is None) != (output_names is None):
            raise ValueError("input_names and output_names must both be specified or both be unspecified.")
        if (signature_def_key is not None) + (signature_def is not None) + (input_names is not None) > 1:
            raise ValueError("You must specify at most one of signature_def_key OR signature_def OR(input_names AND "
                             "output_names).")
        tags = tags or DEFAULT_TAGS
        self._graph = graph or tf.Graph()
        with self._graph.as_default():
            self._session = tf.compat.v1.Session(config=config)
            meta_graph = tf.compat.v1.saved_model.loader.load(self._session, tags.split(","), export_dir)
        if input_names is None:
            if signature_def is None:
                signature_def = _signature_def(meta_graph, signature_def_key)
            input_names = {key: tensor.name for key, tensor in signature_def.inputs.items()}
            output_names = {key: tensor.name for key, tensor in signature_def.outputs.items()}
        self._feed_tensors = {key: self._graph.get_tensor_by_name(name) for key, name in input_names.items()}
        self._fetch_tensors = {key: self._graph.get_tensor_by_name(name) for key, name in output_names.items()}

    @property
    def graph(self):
        return self._graph

    @property
    def session(self):
        return self._session

    @property
    def feed_tensors(self):
        return self._feed_tensors

    @property
    def fetch_tensors(self):
        return self._fetch_tensors

    def __call__(self, input_dict):
        for key in input_dict:
            if key not in self._feed_tensors:
                raise ValueError(f"Unrecognized input key: {key}")
        feed_dict = {self._feed_tensors[key]: value for key, value in input_dict.items()}
        return self._session.run(fetches=self._fetch_tensors, feed_dict=feed_dict)

    def __repr__(self):
        return (f"{type(self).__name__} with feed tensors {self._feed_tensors} and fetch_tensors "
                f"{self._fetch_tensors}")


def _signature_def(meta_graph, key):
    """The signature `key` (the default serving one when None), or TF 1.x's `default_input_alternative:<key>`."""
    key = key or tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY
    if key in meta_graph.signature_def:
        return meta_graph.signature_def[key]
    alternative = f"default_input_alternative:{key}"
    if alternative not in meta_graph.signature_def:
        raise ValueError(f'Got signature_def_key "{key}". Available signatures are '
                         f"{list(meta_graph.signature_def)}.")
    log.warning('Could not find signature def "%s". Using "%s" instead', key, alternative)
    return meta_graph.signature_def[alternative]


def from_saved_model(export_dir, signature_def_key=None, signature_def=None, input_names=None, output_names=None,
                     tags=None, graph=None, config=None) -> SavedModelPredictor:
    """A predictor running a SavedModel's signature (the default serving one unless given) in a session."""
    return SavedModelPredictor(export_dir, signature_def_key=signature_def_key, signature_def=signature_def,
                               input_names=input_names, output_names=output_names, tags=tags, graph=graph,
                               config=config)


def from_estimator(estimator, serving_input_receiver_fn, output_key=None, graph=None, config=None):
    """A predictor of a migrated estimator's latest checkpoint, fed what `serving_input_receiver_fn` receives: its
    export (to a temporary directory), loaded as `from_saved_model` loads one; `output_key` names the export output
    (signature) to run, the default serving one when None."""
    from .estimator_training import export_saved_model

    export_dir = export_saved_model(estimator, tempfile.mkdtemp(prefix="from_estimator_"), serving_input_receiver_fn)
    return from_saved_model(export_dir.decode() if isinstance(export_dir, bytes) else export_dir,
                            signature_def_key=output_key, graph=graph, config=config)
