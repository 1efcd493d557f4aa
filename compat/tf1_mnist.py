"""TensorFlow 1.x's MNIST tutorial reader, `tensorflow.examples.tutorials.mnist.input_data` (the same code as
`tf.contrib.learn.datasets.mnist`), which TensorFlow 2's package no longer has: a migrated MNIST program stopped at
its import (codemods/rules/tutorial_datasets.py and contrib_moves.py point those imports here).

It reads what TensorFlow 1.x read, the same way: the four gzipped IDX files in `train_dir` (fetched from `source_url`
when missing, into a temporary file renamed into place), the first `validation_size` training images kept apart as
the validation set, images as `[n, 784]` float32 in [0, 1] (`dtype=tf.uint8`: 0-255; `reshape=False`: `[n, 28, 28,
1]`), labels as uint8 or float64 one-hot rows. `DataSet.next_batch` shuffles with numpy's global generator as TF 1.x
did, which each DataSet reseeds when it is made: from the TensorFlow graph's or eager seed when `seed` is not given
(from the operating system when neither is set), so a program's batches are what they were for the same seed.
"""

from __future__ import annotations

import gzip

import numpy as np
import tensorflow as tf
from tensorflow.python.eager import context

from .tf1_datasets import Datasets, maybe_download

DEFAULT_SOURCE_URL = "https://storage.googleapis.com/cvdf-datasets/mnist/"
TRAIN_IMAGES = "train-images-idx3-ubyte.gz"
TRAIN_LABELS = "train-labels-idx1-ubyte.gz"
TEST_IMAGES = "t10k-images-idx3-ubyte.gz"
TEST_LABELS = "t10k-labels-idx1-ubyte.gz"
IMAGES_MAGIC, LABELS_MAGIC = 2051, 2049
_MAXINT32 = 2**31 - 1


def _read32(stream) -> int:
    return int(np.frombuffer(stream.read(4), dtype=np.dtype(np.uint32).newbyteorder(">"))[0])


def extract_images(f) -> np.ndarray:
    """The images of an open gzipped IDX3 file as a uint8 array `[index, y, x, 1]`."""
    print("Extracting", f.name)
    with gzip.GzipFile(fileobj=f) as stream:
        magic = _read32(stream)
        if magic != IMAGES_MAGIC:
            raise ValueError(f"Invalid magic number {magic} in MNIST image file: {f.name}")
        count, rows, cols = _read32(stream), _read32(stream), _read32(stream)
        data = np.frombuffer(stream.read(rows * cols * count), dtype=np.uint8)
        return data.reshape(count, rows, cols, 1)


def dense_to_one_hot(labels_dense: np.ndarray, num_classes: int) -> np.ndarray:
    """Class ids -> float64 rows with a 1 at each id."""
    one_hot = np.zeros((labels_dense.shape[0], num_classes))
    one_hot[np.arange(labels_dense.shape[0]), labels_dense.ravel()] = 1
    return one_hot


def extract_labels(f, one_hot: bool = False, num_classes: int = 10) -> np.ndarray:
    """The labels of an open gzipped IDX1 file: uint8 ids, or one-hot rows."""
    print("Extracting", f.name)
    with gzip.GzipFile(fileobj=f) as stream:
        magic = _read32(stream)
        if magic != LABELS_MAGIC:
            raise ValueError(f"Invalid magic number {magic} in MNIST label file: {f.name}")
        labels = np.frombuffer(stream.read(_read32(stream)), dtype=np.uint8)
        return dense_to_one_hot(labels, num_classes) if one_hot else labels


def _numpy_seed(seed):
    """The seed TF 1.x's DataSet gave numpy: random_seed.get_seed(seed)'s first seed when `seed` is None (the global
    seed), else its second (`seed`, or 2**31 - 1 for seed 0 under global seed 0), read without making an op seed."""
    global_seed = context.global_seed() if tf.executing_eagerly() else tf.compat.v1.get_default_graph().seed
    if seed is None:
        return global_seed
    return _MAXINT32 if seed == 0 and global_seed == 0 else seed


class DataSet:
    """One split: `images`, `labels`, `num_examples`, `epochs_completed`, and `next_batch`."""

    def __init__(self, images, labels, fake_data=False, one_hot=False, dtype=tf.float32, reshape=True, seed=None):
        np.random.seed(_numpy_seed(seed))
        dtype = tf.as_dtype(dtype).base_dtype
        if dtype not in (tf.uint8, tf.float32):
            raise TypeError(f"Invalid image dtype {dtype!r}, expected uint8 or float32")
        if fake_data:
            self._num_examples = 10000
            self.one_hot = one_hot
        else:
            if images.shape[0] != labels.shape[0]:
                raise ValueError(f"images.shape: {images.shape} labels.shape: {labels.shape}")
            self._num_examples = images.shape[0]
            if reshape:
                if images.shape[3] != 1:
                    raise ValueError(f"reshape=True needs one channel, images.shape: {images.shape}")
                images = images.reshape(images.shape[0], images.shape[1] * images.shape[2])
            if dtype == tf.float32:
                images = np.multiply(images.astype(np.float32), 1.0 / 255.0)
        self._images = images
        self._labels = labels
        self._epochs_completed = 0
        self._index_in_epoch = 0

    @property
    def images(self):
        return self._images

    @property
    def labels(self):
        return self._labels

    @property
    def num_examples(self) -> int:
        return self._num_examples

    @property
    def epochs_completed(self) -> int:
        return self._epochs_completed

    def _shuffle(self) -> None:
        order = np.arange(self._num_examples)
        np.random.shuffle(order)
        self._images = self._images[order]
        self._labels = self._labels[order]

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        """The next `batch_size` examples; an epoch's end is joined to the next epoch's start, shuffled anew."""
        if fake_data:
            image = [1] * 784
            label = [1] + [0] * 9 if self.one_hot else 0
            return [image for _ in range(batch_size)], [label for _ in range(batch_size)]
        start = self._index_in_epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            self._shuffle()
        if start + batch_size <= self._num_examples:
            self._index_in_epoch += batch_size
            return self._images[start:self._index_in_epoch], self._labels[start:self._index_in_epoch]
        self._epochs_completed += 1
        rest_images = self._images[start:self._num_examples]
        rest_labels = self._labels[start:self._num_examples]
        if shuffle:
            self._shuffle()
        self._index_in_epoch = batch_size - (self._num_examples - start)
        end = self._index_in_epoch
        return (np.concatenate((rest_images, self._images[:end]), axis=0),
                np.concatenate((rest_labels, self._labels[:end]), axis=0))


def _read(train_dir: str, filename: str, source_url: str, extract, **options):
    with tf.io.gfile.GFile(maybe_download(filename, train_dir, source_url + filename), "rb") as f:
        return extract(f, **options)


def read_data_sets(train_dir, fake_data=False, one_hot=False, dtype=tf.float32, reshape=True, validation_size=5000,
                   seed=None, source_url=DEFAULT_SOURCE_URL) -> Datasets:
    """MNIST's train, validation and test DataSets, as TensorFlow 1.x's input_data.read_data_sets made them."""
    if fake_data:
        def fake():
            return DataSet([], [], fake_data=True, one_hot=one_hot, dtype=dtype, seed=seed)
        return Datasets(train=fake(), validation=fake(), test=fake())
    source_url = source_url or DEFAULT_SOURCE_URL
    train_images = _read(train_dir, TRAIN_IMAGES, source_url, extract_images)
    train_labels = _read(train_dir, TRAIN_LABELS, source_url, extract_labels, one_hot=one_hot)
    test_images = _read(train_dir, TEST_IMAGES, source_url, extract_images)
    test_labels = _read(train_dir, TEST_LABELS, source_url, extract_labels, one_hot=one_hot)
    if not 0 <= validation_size <= len(train_images):
        raise ValueError(f"Validation size should be between 0 and {len(train_images)}. Received: {validation_size}.")
    options = dict(dtype=dtype, reshape=reshape, seed=seed)
    return Datasets(
        train=DataSet(train_images[validation_size:], train_labels[validation_size:], **options),
        validation=DataSet(train_images[:validation_size], train_labels[:validation_size], **options),
        test=DataSet(test_images, test_labels, **options),
    )


def load_mnist(train_dir="MNIST-data") -> Datasets:
    """read_data_sets(train_dir) with its defaults."""
    return read_data_sets(train_dir)
