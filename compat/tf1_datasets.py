"""tf.contrib.learn's dataset helpers (`tf.contrib.learn.datasets.base`), which TensorFlow 2 has no twin of: the CSV
loaders of TF 1.x's canned-estimator quickstart (`load_csv_with_header(filename=IRIS_TRAINING, target_dtype=np.int,
features_dtype=np.float32)`), its `Dataset(data, target)` and `Datasets(train, validation, test)` tuples and
`maybe_download` and `load_dataset("mnist")` (codemods/contrib_moves.py points those names here; compat.tf1_mnist, the MNIST reader,
uses them).

The loaders read as TF 1.x's did, with Python's csv module through tf.io.gfile (so gs:// paths too): with a header,
its first two fields are the number of rows and of features, the arrays are made that size and filled row by row;
without one, every row is read. The target is the `target_column`th field (the last by default), cast to
`target_dtype`; the other fields are the features, cast to `features_dtype`.
"""

from __future__ import annotations

import collections
import csv
import os
import tempfile
import urllib.request

import numpy as np
import tensorflow as tf

_DOWNLOAD_ATTEMPTS = 3

Dataset = collections.namedtuple("Dataset", ["data", "target"])
Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])


def load_csv_with_header(filename, target_dtype, features_dtype, target_column=-1) -> Dataset:
    """A CSV file whose first row is `n_samples,n_features,...`: its rows as (features, target) arrays."""
    with tf.io.gfile.GFile(filename) as csv_file:
        rows = csv.reader(csv_file)
        header = next(rows)
        data = np.zeros((int(header[0]), int(header[1])), dtype=features_dtype)
        target = np.zeros((int(header[0]),), dtype=target_dtype)
        for index, row in enumerate(rows):
            target[index] = np.asarray(row.pop(target_column), dtype=target_dtype)
            data[index] = np.asarray(row, dtype=features_dtype)
    return Dataset(data=data, target=target)


def load_csv_without_header(filename, target_dtype, features_dtype, target_column=-1) -> Dataset:
    """Every row of a CSV file as (features, target) arrays."""
    with tf.io.gfile.GFile(filename) as csv_file:
        data, target = [], []
        for row in csv.reader(csv_file):
            target.append(row.pop(target_column))
            data.append(np.asarray(row, dtype=features_dtype))
    return Dataset(data=np.array(data), target=np.array(target, dtype=target_dtype))


def load_dataset(name, size="small", test_with_fake_data=False):
    """TF 1.x's `learn.datasets.load_dataset`: "mnist" is its MNIST reader's `load_mnist()` (read_data_sets("MNIST-data"),
    compat.tf1_mnist); iris, boston and dbpedia came from files of TF 1.x's own package (or its downloads), which no
    TensorFlow 2 has: one error saying what replaces each."""
    if name == "mnist":
        from .tf1_mnist import load_mnist

        return load_mnist()
    if name in _PACKAGED:
        raise ValueError(f"tf.contrib.learn.datasets.load_dataset({name!r}) read {_PACKAGED[name]}, which TensorFlow 2 "
                         "does not ship: load the data yourself (a CSV of TF 1.x's layout: load_csv_with_header)")
    raise ValueError(f"Name of dataset is not found: {name}")


_PACKAGED = {"iris": "TF 1.x's packaged iris.csv",
             "boston": "TF 1.x's packaged boston_house_prices.csv",
             "dbpedia": "the DBpedia archive TF 1.x downloaded and unpacked"}


def maybe_download(filename: str, work_directory: str, source_url: str) -> str:
    """`work_directory/filename`, fetched from `source_url` first when it is not there."""
    if not tf.io.gfile.exists(work_directory):
        tf.io.gfile.makedirs(work_directory)
    path = os.path.join(work_directory, filename)
    if tf.io.gfile.exists(path):
        return path
    handle, fetched = tempfile.mkstemp()
    os.close(handle)
    try:
        for attempt in range(_DOWNLOAD_ATTEMPTS):
            try:
                urllib.request.urlretrieve(source_url, fetched)
                break
            except OSError as error:
                if attempt == _DOWNLOAD_ATTEMPTS - 1:
                    raise OSError(f"{filename}: could not fetch {source_url} ({error}); put the file in "
                                  f"{work_directory} or give a reachable source_url") from error
        partial = path + ".partial"
        tf.io.gfile.copy(fetched, partial, overwrite=True)
        tf.io.gfile.rename(partial, path, overwrite=True)
    finally:
        os.remove(fetched)
    print("Successfully downloaded", filename, tf.io.gfile.stat(path).length, "bytes.")
    return path
