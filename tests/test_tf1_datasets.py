"""compat.tf1_mnist, TensorFlow 1.x's tutorial MNIST reader (`tensorflow.examples.tutorials.mnist.input_data`), and
compat.tf1_datasets, tf.contrib.learn's CSV loaders, which no TensorFlow we can run still has: each behaviour below is
what TF 1.x's code did (its source, read), checked on IDX files written here from scikit-learn's digits and CSV files
from its iris."""

import gzip
import struct

import numpy as np
import pytest
import tensorflow as tf
from sklearn.datasets import load_digits, load_iris

from compat import tf1_datasets, tf1_mnist
from tests.codemods.test_fixtures import FIXTURES
from tests.conftest import MODERN_PYTHON, import_program, migrate_file, run

FIXTURE = FIXTURES / "tutorial_mnist_reader"


def write_idx_files(directory, train: int = 1200, test: int = 300, copies: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The four gzipped IDX files of MNIST's layout from scikit-learn's digits (8x8 images scaled to 0-255, centred in
    28x28): the first `train` digits `copies` times over as the training files, the next `test` as the test files;
    returns (images [n, 28, 28], labels) of both in file order."""
    digits = load_digits()
    images = np.zeros((train + test, 28, 28), np.uint8)
    images[:, 10:18, 10:18] = np.round(digits.images[:train + test] * 255 / 16).astype(np.uint8)
    labels = digits.target[:train + test].astype(np.uint8)
    images = np.concatenate([images[:train]] * copies + [images[train:]])
    labels = np.concatenate([labels[:train]] * copies + [labels[train:]])
    train *= copies
    directory.mkdir(parents=True, exist_ok=True)
    for name, rows, magic, body in (
            (tf1_mnist.TRAIN_IMAGES, images[:train], 2051, lambda r: struct.pack(">III", len(r), 28, 28)),
            (tf1_mnist.TRAIN_LABELS, labels[:train], 2049, lambda r: struct.pack(">I", len(r))),
            (tf1_mnist.TEST_IMAGES, images[train:], 2051, lambda r: struct.pack(">III", len(r), 28, 28)),
            (tf1_mnist.TEST_LABELS, labels[train:], 2049, lambda r: struct.pack(">I", len(r)))):
        with gzip.open(directory / name, "wb") as f:
            f.write(struct.pack(">I", magic) + body(rows) + rows.tobytes())
    return images, labels


def test_the_splits_scaling_and_one_hot_labels_are_tf1s(tmp_path):
    images, labels = write_idx_files(tmp_path)
    data = tf1_mnist.read_data_sets(str(tmp_path), one_hot=True, validation_size=200)
    assert type(data).__name__ == "Datasets" and data._fields == ("train", "validation", "test")
    assert [split.num_examples for split in data] == [1000, 200, 300]
    # the validation set is the first training images, in file order; test the test files'
    scaled = images.reshape(-1, 784).astype(np.float32) * np.float32(1.0 / 255.0)  # TF 1.x multiplied by 1/255
    np.testing.assert_array_equal(data.validation.images, scaled[:200])
    np.testing.assert_array_equal(data.train.images[0], scaled[200])
    assert data.train.images.dtype == np.float32 and data.train.images.max() == 1.0 and data.train.images.min() == 0
    np.testing.assert_allclose(data.test.images, images[1200:].reshape(300, 784) / 255.0, rtol=0, atol=1e-7)
    assert data.test.labels.dtype == np.float64 and data.test.labels.shape == (300, 10)
    assert data.test.labels.argmax(1).tolist() == labels[1200:].tolist() and data.test.labels.sum() == 300

    raw = tf1_mnist.read_data_sets(str(tmp_path), dtype=tf.uint8, reshape=False, validation_size=0)
    assert raw.test.images.dtype == np.uint8 and raw.test.images.shape == (300, 28, 28, 1)
    np.testing.assert_array_equal(raw.test.images[..., 0], images[1200:])
    assert raw.train.labels.dtype == np.uint8 and raw.train.labels.tolist() == labels[:1200].tolist()
    assert raw.validation.num_examples == 0
    with pytest.raises(TypeError, match="expected uint8 or float32"):
        tf1_mnist.read_data_sets(str(tmp_path), dtype=tf.int32, validation_size=0)
    with pytest.raises(ValueError, match="Validation size should be between 0 and 1200. Received: 1201."):
        tf1_mnist.read_data_sets(str(tmp_path), validation_size=1201)


def test_next_batch_shuffles_each_epoch_and_joins_its_end_to_the_next(tmp_path):
    write_idx_files(tmp_path, train=250, test=10)
    split = tf1_mnist.read_data_sets(str(tmp_path), validation_size=0, dtype=tf.uint8, seed=3).train
    first_epoch = [split.next_batch(100)[1] for _ in range(2)]
    assert split.epochs_completed == 0
    joined_images, joined = split.next_batch(100)  # the epoch's last 50, then 50 of the next, reshuffled
    assert split.epochs_completed == 1 and len(joined) == len(joined_images) == 100
    seen = np.concatenate(first_epoch + [joined[:50]])
    assert sorted(seen.tolist()) == sorted(load_digits().target[:250].tolist())  # each example once in an epoch
    assert not np.array_equal(joined[50:], seen[:50])  # not the first epoch's order again
    ordered = tf1_mnist.read_data_sets(str(tmp_path), validation_size=0, dtype=tf.uint8).train
    assert ordered.next_batch(5, shuffle=False)[1].tolist() == load_digits().target[:5].tolist()


def _first_batch_labels(directory, **options) -> list:
    return tf1_mnist.read_data_sets(str(directory), validation_size=0, **options).train.next_batch(250)[1].tolist()


def test_each_dataset_reseeds_numpy_as_tf1s_did(tmp_path):
    """TF 1.x's DataSet seeded numpy's global generator with random_seed.get_seed(seed): the op seed given, else the
    graph's (or eager) global seed, else the operating system's entropy."""
    write_idx_files(tmp_path, train=250, test=10)
    labels = load_digits().target[:250]
    assert _first_batch_labels(tmp_path, seed=7) == labels[np.random.RandomState(7).permutation(250)].tolist()
    with tf.Graph().as_default():
        tf.compat.v1.set_random_seed(11)
        assert _first_batch_labels(tmp_path) == labels[np.random.RandomState(11).permutation(250)].tolist()
        assert _first_batch_labels(tmp_path, seed=7) == _first_batch_labels(tmp_path, seed=7)
    with tf.Graph().as_default():
        tf.compat.v1.set_random_seed(0)  # get_seed's (0, 0) is (0, 2**31 - 1)
        assert _first_batch_labels(tmp_path, seed=0) == \
            labels[np.random.RandomState(2**31 - 1).permutation(250)].tolist()
    from tensorflow.python.eager import context
    tf.random.set_seed(5)
    try:
        assert _first_batch_labels(tmp_path) == labels[np.random.RandomState(5).permutation(250)].tolist()
    finally:
        context.set_global_seed(None)
    assert _first_batch_labels(tmp_path) != _first_batch_labels(tmp_path)  # unseeded: a new order each time


def test_missing_files_are_fetched_from_source_url_and_bad_files_named(tmp_path, capsys):
    write_idx_files(tmp_path / "mirror")
    data = tf1_mnist.read_data_sets(str(tmp_path / "data"), validation_size=0,
                                    source_url=(tmp_path / "mirror").as_uri() + "/")
    assert data.train.num_examples == 1200
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == sorted(
        [tf1_mnist.TEST_IMAGES, tf1_mnist.TEST_LABELS, tf1_mnist.TRAIN_IMAGES, tf1_mnist.TRAIN_LABELS])
    out = capsys.readouterr().out
    assert f"Successfully downloaded {tf1_mnist.TRAIN_IMAGES}" in out and "Extracting" in out

    with pytest.raises(OSError, match=f"{tf1_mnist.TRAIN_IMAGES}: could not fetch .*nowhere"):
        tf1_mnist.read_data_sets(str(tmp_path / "empty"), source_url=(tmp_path / "nowhere").as_uri() + "/")
    assert list((tmp_path / "empty").iterdir()) == []  # nothing half-written

    (tmp_path / "data" / tf1_mnist.TRAIN_LABELS).write_bytes(gzip.compress(struct.pack(">II", 2051, 0)))
    with pytest.raises(ValueError, match=f"Invalid magic number 2051 in MNIST label file: .*{tf1_mnist.TRAIN_LABELS}"):
        tf1_mnist.read_data_sets(str(tmp_path / "data"))


def test_fake_data_is_tf1s_constant_batches():
    data = tf1_mnist.read_data_sets("unused", fake_data=True, one_hot=True)
    images, labels = data.train.next_batch(3, fake_data=True)
    assert data.test.num_examples == 10000 and images == [[1] * 784] * 3 and labels == [[1] + [0] * 9] * 3


@pytest.mark.slow
def test_the_migrated_softmax_tutorial_trains_on_the_files(tmp_path):
    """tests/codemods/fixtures/tutorial_mnist_reader (the tutorial's import, placeholders fed from next_batch),
    migrated, runs on TensorFlow 2 and learns the digits."""
    write_idx_files(tmp_path / "data", train=1500, test=297, copies=4)  # validation_size 5000 by default
    program = migrate_file(FIXTURE / "input.py", tmp_path / "out", "keras")
    completed = run([str(MODERN_PYTHON), str(program), "--data_dir", str(tmp_path / "data"), "--steps", "300"],
                    cwd=tmp_path)
    accuracy = float(completed.stdout.split("test accuracy")[1].split()[0])
    assert accuracy > 0.8, completed.stdout  # (chance: 0.1; unseeded shuffles, 0.88 when measured)
    # 300 batches of 100 over the 1000 training images: TF 1.x counted an epoch when a batch passed its end
    assert "epochs completed 29" in completed.stdout


def write_iris_csv(path, rows: np.ndarray, header: bool = True) -> np.ndarray:
    """iris rows (4 features, then the class id) in the quickstart's CSV layout: a first row of `n_samples,
    n_features,class names` when `header`."""
    iris = load_iris()
    lines = [f"{len(rows)},4,setosa,versicolor,virginica"] if header else []
    lines += [",".join([*(f"{value:g}" for value in iris.data[row]), str(iris.target[row])]) for row in rows]
    path.write_text("\n".join(lines) + "\n")
    return iris.target[rows]


def test_the_csv_loaders_read_tf1s_layouts(tmp_path):
    rows = np.arange(0, 150, 7)
    targets = write_iris_csv(tmp_path / "with.csv", rows)
    loaded = tf1_datasets.load_csv_with_header(str(tmp_path / "with.csv"), target_dtype=int, features_dtype=np.float32)
    assert type(loaded).__name__ == "Dataset" and loaded._fields == ("data", "target")
    assert loaded.data.dtype == np.float32 and loaded.data.shape == (len(rows), 4)
    np.testing.assert_array_equal(loaded.data, load_iris().data[rows].astype(np.float32))
    assert loaded.target.tolist() == targets.tolist() and loaded.target.dtype == np.dtype(int)

    write_iris_csv(tmp_path / "without.csv", rows, header=False)
    first = tf1_datasets.load_csv_without_header(str(tmp_path / "without.csv"), target_dtype=np.float64,
                                                 features_dtype=np.float32, target_column=0)
    assert first.target.dtype == np.float64 and first.target.tolist() == load_iris().data[rows, 0].tolist()
    assert first.data.dtype == np.float32 and first.data.shape == (len(rows), 4)
    assert first.data[:, -1].tolist() == targets.tolist()  # the class ids, now the last feature


def test_the_migrated_quickstart_trains_on_the_csv_files(tmp_path, monkeypatch):
    """tests/codemods/fixtures/contrib_learn_csv_quickstart (TF 1.3's DNNClassifier quickstart: contrib's CSV loader,
    `np.int`), migrated, runs on TensorFlow 2 and learns iris."""
    order = np.random.RandomState(0).permutation(150)
    write_iris_csv(tmp_path / "iris_training.csv", order[:120])
    write_iris_csv(tmp_path / "iris_test.csv", order[120:])
    monkeypatch.chdir(tmp_path)
    program = import_program(FIXTURES / "contrib_learn_csv_quickstart" / "keras.py")
    assert program.main(str(tmp_path / "model"), steps=400) > 0.6  # (chance: a third)
    assert tf.train.latest_checkpoint(str(tmp_path / "model")).endswith("-400")


def test_load_dataset_gives_the_mnist_reader_and_one_error_for_tf1s_packaged_files(tmp_path, monkeypatch):
    """tests/codemods/fixtures/contrib_learn_load_dataset (TF 1.x's CNN tutorial: `load_dataset("mnist")`, a tf.layers
    model_fn), migrated, reads ./MNIST-data as TF 1.x's load_mnist did and trains on it."""
    write_idx_files(tmp_path / "MNIST-data", train=1500, test=297, copies=4)
    monkeypatch.chdir(tmp_path)
    program = import_program(FIXTURES / "contrib_learn_load_dataset" / "keras.py")
    results = program.main(str(tmp_path / "model"), steps=200)
    assert results["global_step"] == 200 and results["accuracy"] > 0.4, results  # (chance: 0.1; 0.49 at step 60)
    with pytest.raises(ValueError, match="packaged iris.csv, which TensorFlow 2 does not ship"):
        tf1_datasets.load_dataset("iris")
    with pytest.raises(ValueError, match="Name of dataset is not found: cifar"):
        tf1_datasets.load_dataset("cifar")
