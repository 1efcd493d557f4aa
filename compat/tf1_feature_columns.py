"""TensorFlow 1.x feature columns that refuse eager execution, for programs whose main code now runs eagerly.

`tf.compat.v1.feature_column.shared_embedding_columns` raises "not supported when eager execution is enabled"
when it is called, though the columns it makes hold no graph state: their shared table is made (and shared
through a graph collection) where a graph reads them, such as a model_fn's `input_layer` (compat.wrapped_model_fns
builds each mode's graph as Estimator did). Made here in a graph of their own, they are TF 1.x's columns, read
as TF 1.x read them, under the Estimator's variable names. A canned estimator's Keras feature layer reads them
through `keras_feature_columns`: one table per group, as the Estimator's input layer had it.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence

import tensorflow as tf


def shared_embedding_columns(*args, **kwargs):
    """`tf.compat.v1.feature_column.shared_embedding_columns(...)`, the same arguments and columns."""
    with tf.Graph().as_default():
        return tf.compat.v1.feature_column.shared_embedding_columns(*args, **kwargs)


def is_shared_embedding_column(column) -> bool:
    """Whether `column` is one of `shared_embedding_columns`' (TensorFlow 1.x's `_SharedEmbeddingColumn`)."""
    return type(column).__name__ == "_SharedEmbeddingColumn" and hasattr(column, "shared_embedding_collection_name")


def keras_feature_columns(feature_columns: Sequence) -> list:
    """`feature_columns` as a Keras feature layer (`DenseFeatures`) takes them: each group of TF 1.x shared
    embedding columns becomes `SharedEmbeddingColumn`s of one table (made afresh for each call: one table per
    layer); the other columns as they are."""
    tables: dict[str, _SharedTable] = {}
    columns = []
    for column in feature_columns:
        if is_shared_embedding_column(column):
            name = column.shared_embedding_collection_name
            column = SharedEmbeddingColumn(column, tables.setdefault(name, _SharedTable(name)))
        columns.append(column)
    return columns


class _SharedTable:
    """The one embedding table of a group of shared embedding columns, per feature layer (its state manager)."""

    def __init__(self, name: str):
        self.name = name
        self.variables = weakref.WeakKeyDictionary()  # state manager -> the table


class SharedEmbeddingColumn(tf.__internal__.feature_column.DenseColumn):
    """A TF 1.x shared embedding column (`shared_embedding_columns`' `_SharedEmbeddingColumn`) as a TensorFlow 2
    feature column: the same lookup (`safe_embedding_lookup_sparse` with the column's combiner and max_norm) into a
    table its group shares. A Keras feature layer makes the table once, named as the Estimator's input layer named it
    (`<layer>/<shared_embedding_collection_name>/embedding_weights`), with the group's initializer, and trains it
    from every column of the group."""

    def __init__(self, tf1_column, table: _SharedTable):
        if tf1_column.ckpt_to_load_from is not None:
            raise ValueError(f"{tf1_column.name}: a shared embedding column's ckpt_to_load_from is not migrated: "
                             "warm-start the model from that checkpoint instead")
        self.tf1_column = tf1_column
        self.categorical_column = tf1_column.categorical_column
        self.table = table

    @property
    def _is_v2_column(self):
        return True

    @property
    def name(self):
        return self.tf1_column.name

    @property
    def parse_example_spec(self):
        return self.categorical_column.parse_example_spec

    @property
    def parents(self):
        return [self.categorical_column]

    @property
    def variable_shape(self):
        return tf.TensorShape([self.tf1_column.dimension])

    def transform_feature(self, transformation_cache, state_manager):
        return transformation_cache.get(self.categorical_column, state_manager)

    def create_state(self, state_manager):
        if state_manager in self.table.variables:  # made by another column of the group
            return
        shape = (self.categorical_column.num_buckets, self.tf1_column.dimension)
        # The Estimator's name: the group's scope in the input layer where the feature layer opened this column's
        # (a trailing "/" makes a name scope absolute)
        layer_scope, _, column_scope = tf.get_current_name_scope().rpartition("/")
        if column_scope != self.name:
            layer_scope = tf.get_current_name_scope()
        with tf.name_scope(f"{layer_scope}/{self.table.name}/" if layer_scope else f"{self.table.name}/"):
            self.table.variables[state_manager] = state_manager.create_variable(
                self, name="embedding_weights", shape=shape, dtype=tf.float32,
                trainable=self.tf1_column.trainable, initializer=self.tf1_column.initializer)

    def get_dense_tensor(self, transformation_cache, state_manager):
        sparse = self.categorical_column.get_sparse_tensors(transformation_cache, state_manager)
        lookup = tf.nn.safe_embedding_lookup_sparse
        if not self.tf1_column.use_safe_embedding_lookup and sparse.id_tensor.shape.rank is not None \
                and sparse.id_tensor.shape.rank <= 2:
            lookup = tf.nn.embedding_lookup_sparse
        return lookup(self.table.variables[state_manager], sparse.id_tensor, sparse.weight_tensor,
                      combiner=self.tf1_column.combiner, max_norm=self.tf1_column.max_norm)

    def get_config(self):
        raise NotImplementedError(f"{self.name}: a model reading TF 1.x shared embedding columns is saved as its "
                                  "checkpoint (tf.train.Checkpoint), not as a Keras config")
