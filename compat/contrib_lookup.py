"""tf.contrib.lookup as TensorFlow 1.x had it, for code the rewrite keeps (`tf.contrib.lookup.index_table_from_tensor(
tf.constant(LABELS))` in the Cloud ML samples' input and serving functions; codemods/rules/contrib_modules.py).

TensorFlow 1.15's tf.contrib.lookup was core's lookup tables (tensorflow.python.ops.lookup_ops, still TensorFlow 2's)
under their TF 1.x names, and a few functions taking the vocabulary as `mapping` where core says `vocabulary_list`.
The classes here are core's own; the functions are contrib's, each calling core's as contrib's did.
"""

from __future__ import annotations

from tensorflow.python.framework import dtypes, ops
from tensorflow.python.ops import lookup_ops
from tensorflow.python.ops.lookup_ops import (  # noqa: F401 (tf.contrib.lookup's names, re-exported)
    FastHashSpec,
    HasherSpec,
    IdTableWithHashBuckets,
    InitializableLookupTableBase,
    KeyValueTensorInitializer,
    LookupInterface,
    StrongHashSpec,
    TableInitializerBase,
    TextFileIdTableInitializer,
    TextFileIndex,
    TextFileInitializer,
    TextFileStringTableInitializer,
    index_table_from_file,
    index_to_string_table_from_file,
)

# contrib's HashTable was an initializable (TF1 graph) table of core's kernel: TensorFlow 2's is StaticHashTableV1
# (tf.compat.v1.lookup.StaticHashTable); its mutable tables were core's.
HashTable = lookup_ops.StaticHashTableV1
MutableHashTable = lookup_ops.MutableHashTable
MutableDenseHashTable = lookup_ops.DenseHashTable


def index_table_from_tensor(mapping, num_oov_buckets=0, default_value=-1, hasher_spec=FastHashSpec,
                            dtype=dtypes.string, name=None):
    """A table mapping the keys of the 1-D `mapping` to their int64 positions (out-of-vocabulary keys: a hash
    bucket past them when `num_oov_buckets` > 0, else `default_value`)."""
    if mapping is None:
        raise ValueError("mapping must be specified.")
    return lookup_ops.index_table_from_tensor(vocabulary_list=mapping, num_oov_buckets=num_oov_buckets,
                                              default_value=default_value, hasher_spec=hasher_spec, dtype=dtype,
                                              name=name)


def index_to_string_table_from_tensor(mapping, default_value="UNK", name=None):
    """A table mapping int64 positions in the 1-D string `mapping` to its strings (others: `default_value`)."""
    if mapping is None:
        raise ValueError("mapping must be specified.")
    return lookup_ops.index_to_string_table_from_tensor(vocabulary_list=mapping, default_value=default_value,
                                                        name=name)


def string_to_index(tensor, mapping, default_value=-1, name=None):
    """`tensor`'s strings as their int64 positions in `mapping` (others: `default_value`)."""
    return index_table_from_tensor(mapping=mapping, default_value=default_value, name=name).lookup(tensor)


def index_to_string(tensor, mapping, default_value="UNK", name=None):
    """`tensor`'s int64 positions as the strings of `mapping` (others: `default_value`)."""
    return index_to_string_table_from_tensor(mapping=mapping, default_value=default_value, name=name).lookup(tensor)


def string_to_index_table_from_file(vocabulary_file=None, num_oov_buckets=0, vocab_size=None, default_value=-1,
                                    hasher_spec=FastHashSpec, name=None):
    """index_table_from_file of string keys (contrib's older name)."""
    return index_table_from_file(vocabulary_file, num_oov_buckets, vocab_size, default_value, hasher_spec,
                                 key_dtype=dtypes.string, name=name)


def string_to_index_table_from_tensor(mapping, num_oov_buckets=0, default_value=-1, hasher_spec=FastHashSpec,
                                      name=None):
    """index_table_from_tensor of a string `mapping` (contrib's older name)."""
    with ops.name_scope(name, "string_to_index") as scope:
        mapping = ops.convert_to_tensor(mapping)
    if dtypes.string != mapping.dtype.base_dtype:
        raise ValueError("string_to_index_table_from_tensor requires string.")
    return index_table_from_tensor(mapping, num_oov_buckets, default_value, hasher_spec, name=scope)
