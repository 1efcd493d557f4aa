"""`migrate convert-checkpoint` on real canned-Estimator checkpoints (made in the legacy environment).

For every family x optimizer x head version: the converted `model.keras` gives the logits the Estimator's
`predict()` gave (also loaded where only tf_keras is installed), and one training step from the converted TF2 checkpoint (weights, slots, step) on the
same batch gives the weights of the Estimator's own next step.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import tensorflow as tf
import tf_keras

from estimator_migrate.compat.convert import convert_checkpoint
from estimator_migrate.compat.legacy_checkpoint import LegacyCheckpoint
from estimator_migrate.compat.rebuild import build_model, weight_sources
from estimator_migrate.compat.recognise import recognise
from tests.conftest import MIGRATE, plain_keras_logits, run
from tests.legacy.make_canned_checkpoints import case_names

pytestmark = pytest.mark.legacy
TOLERANCE = 1e-5


def load_batch(case_dir):
    batch = np.load(case_dir / "batch.npz")
    features = {name[len("feature_"):]: batch[name] for name in batch.files if name.startswith("feature_")}
    return features, batch["labels"], batch["logits"]


@pytest.mark.parametrize("case", case_names())
def test_converted_model_gives_estimator_logits_and_next_step(case, canned_checkpoints, tmp_path):
    case_dir = canned_checkpoints / case
    features, labels, estimator_logits = load_batch(case_dir)
    out = tmp_path / "converted"
    conversion, _ = convert_checkpoint(case_dir / "before", out)
    description = json.loads((case_dir / "case.json").read_text())
    assert conversion.estimator.family == description["family"]
    assert conversion.estimator.head == description["head"]
    assert {s.kind for s in conversion.estimator.optimizers.values()} == {description["optimizer"]}

    assert len(list(out.glob("ckpt-3.data-*"))) == 1, "a small model's tensors belong in one data file"
    loaded = tf_keras.models.load_model(out / "model.keras")
    np.testing.assert_allclose(loaded(features).numpy(), estimator_logits, rtol=0, atol=TOLERANCE)

    # A fresh model of the same architecture, restored from the TF2 checkpoint only, trains one step.
    estimator = recognise(LegacyCheckpoint(case_dir / "before"))
    model = build_model(estimator)
    tf.train.Checkpoint(model=model, optimizer=model.optimizer, step=model.optimizer.iterations).restore(
        tf.train.latest_checkpoint(str(out))
    ).assert_existing_objects_matched()
    assert int(model.optimizer.iterations) == description["steps"]
    model.train_on_batch(features, labels)

    after = LegacyCheckpoint(case_dir / "after")
    before = LegacyCheckpoint(case_dir / "before")
    assert after.global_step == description["steps"] + 1
    changed = []
    for variable, names in weight_sources(estimator, model):
        expected = np.concatenate([after.read(name) for name in names], axis=0)
        previous = np.concatenate([before.read(name) for name in names], axis=0)
        changed.append(np.abs(expected - previous).max() > 10 * TOLERANCE)
        np.testing.assert_allclose(variable.numpy(), expected, rtol=0, atol=TOLERANCE, err_msg=str(names))
    assert sum(changed) >= 2, "the Estimator's step barely moved the weights: the comparison would prove nothing"


# One case per family x task x model shape (binary or 3 classes / 1-d or 2-d labels, one or two features: the
# optimizers adagrad, adam and sgd give the three shapes, and a family's two heads of one optimizer its two tasks):
# what the model.keras holds does not depend on the optimizer or the head.
PLAIN_CASES = [name for name in case_names() if name.split("_")[-2] in ("adagrad", "adam", "sgd")]


def test_converted_model_loads_with_plain_tf_keras(canned_checkpoints, tmp_path):
    """model.keras is plain Keras: loaded in a process where this project cannot be imported, it gives the
    logits of the Estimator's predict()."""
    models, expected = [], []
    for case in PLAIN_CASES:
        features, _, estimator_logits = load_batch(canned_checkpoints / case)
        convert_checkpoint(canned_checkpoints / case / "before", tmp_path / case)
        models.append((tmp_path / case / "model.keras", features))
        expected.append(estimator_logits)
    for case, logits, estimator_logits in zip(PLAIN_CASES, plain_keras_logits(models, tmp_path), expected):
        np.testing.assert_allclose(logits, estimator_logits, rtol=0, atol=TOLERANCE, err_msg=case)


# --- bad input: one line naming the file, exit 1, nothing written -------------------------------------

SOURCE_CASE = "dnn_classifier_adam_v1"


@pytest.fixture
def model_dir(canned_checkpoints, tmp_path):
    """A private copy of one real Estimator model_dir, free to be damaged."""
    copy = tmp_path / "model_dir"
    shutil.copytree(canned_checkpoints / SOURCE_CASE / "before", copy)
    return copy


def truncate_data(model_dir):
    data = next(model_dir.glob("model.ckpt-3.data-*"))
    data.write_bytes(data.read_bytes()[:100])


def corrupt_index(model_dir):
    index = model_dir / "model.ckpt-3.index"
    index.write_bytes(b"\x00garbage" * 40)


def object_based(model_dir):
    shutil.rmtree(model_dir)
    convert_checkpoint(model_dir.parent / "source", model_dir)


def add_adagrad_da_state(model_dir):
    """Rewrite model.ckpt-3 with a TF1 AdagradDA slot beside its weights, as an AdagradDAOptimizer leaves."""
    prefix = str(model_dir / "model.ckpt-3")
    reader = tf.train.load_checkpoint(prefix)
    tensors = {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()}
    tensors["dnn/logits/kernel/AdagradDA"] = np.ones_like(tensors["dnn/logits/kernel"])
    tf.raw_ops.SaveV2(prefix=prefix, tensor_names=list(tensors), shape_and_slices=[""] * len(tensors),
                      tensors=list(tensors.values()))


BAD_INPUTS = {
    # name: (damage to the model_dir copy, the path given to the command, what the error line says)
    "missing_dir": (None, "nowhere", "no such checkpoint or directory"),
    "no_state_file": (lambda d: (d / "checkpoint").unlink(), ".", "no `checkpoint` state file"),
    "state_names_missing_checkpoint": (
        lambda d: [p.unlink() for p in d.glob("model.ckpt-3.*")], ".", "model.ckpt-3.index is missing"
    ),
    "truncated_data": (truncate_data, ".", "cannot read"),
    "corrupted_index": (corrupt_index, ".", "not a readable checkpoint index"),
    "not_a_checkpoint": (lambda d: (d / "notes.txt").write_text("hello\n"), "notes.txt", "not a checkpoint"),
    "tf2_checkpoint": (object_based, ".", "TF2 object-based checkpoint"),
    # converted as a plain SGD before: its state silently dropped
    "unsupported_optimizer_state": (
        add_adagrad_da_state, ".", "dnn/logits/kernel/AdagradDA is neither a canned Estimator weight nor the state"
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_is_one_line_and_leaves_nothing(case, model_dir, canned_checkpoints, tmp_path):
    damage, argument, message = BAD_INPUTS[case]
    shutil.copytree(canned_checkpoints / SOURCE_CASE / "before", tmp_path / "source")
    if damage is not None:
        damage(model_dir)
    before = sorted(p.name for p in model_dir.iterdir())
    out = tmp_path / "out"
    target = model_dir / argument if argument != "." else model_dir
    completed = run([MIGRATE, "convert-checkpoint", target, "--out", out], check_codes=(1,))
    errors = [line for line in completed.stderr.splitlines() if line.startswith("migrate:")]
    assert len(errors) == 1, completed.stderr
    assert message in errors[0] and str(model_dir.name) in errors[0], errors[0]
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out")] == [], "staging left behind"
    assert sorted(p.name for p in model_dir.iterdir()) == before


def test_existing_out_directory_is_refused(canned_checkpoints, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine\n")
    completed = run(
        [MIGRATE, "convert-checkpoint", canned_checkpoints / SOURCE_CASE / "before", "--out", out], check_codes=(1,)
    )
    assert "already exists and is not empty" in completed.stderr
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


def test_inspect_reports_what_was_recognised(canned_checkpoints):
    path = canned_checkpoints / "dnn_linear_combined_regressor_adagrad_v2" / "before"
    report = json.loads(run([MIGRATE, "inspect-checkpoint", path, "--json"]).stdout)
    assert report["global_step"] == 3
    assert report["state_file"] == {"latest": "model.ckpt-3", "all": ["model.ckpt-0", "model.ckpt-3"]}
    recognised = report["recognised"]
    assert recognised["estimator"] == "tf.estimator.DNNLinearCombinedRegressor"
    assert recognised["label_dimension"] == 2 and recognised["hidden_units"] == [5, 4]
    assert recognised["features"]["dnn"] == {"age": [2], "wide": [3]}
    assert {p: o["kind"] for p, o in recognised["optimizers"].items()} == {"dnn": "Adagrad", "linear": "Adagrad"}
    assert recognised["optimizers"]["dnn"]["hyper"]["learning_rate"] == pytest.approx(0.05)
    names = {v["name"]: v for v in report["variables"]}
    assert names["training/Adagrad/dnn/logits/kernel/accumulator"] == {
        "name": "training/Adagrad/dnn/logits/kernel/accumulator", "shape": [4, 2], "dtype": "float32"
    }
    text = run([MIGRATE, "inspect-checkpoint", path]).stdout
    assert "recognised: tf.estimator.DNNLinearCombinedRegressor (v2 head, loss averaged), label_dimension 2" in text


@pytest.mark.parametrize(("damage", "verbose"), [(None, False), (truncate_data, False), (None, True)],
                         ids=["converted", "error", "verbose-environment"])
def test_only_the_commands_own_line_without_verbose(damage, verbose, model_dir, tmp_path):
    """Run as a user runs it (no TF_CPP_MIN_LOG_LEVEL of ours): the result or the error is all the output,
    TensorFlow's start-up lines (absl, oneDNN, CPU features) kept quiet; a user's own setting wins, and
    ESTIMATOR_MIGRATE_VERBOSE=1 brings them back."""
    import os
    import subprocess

    if damage is not None:
        damage(model_dir)
    environment = {k: v for k, v in os.environ.items() if k not in ("TF_CPP_MIN_LOG_LEVEL", "PYTHONPATH")}
    if verbose:
        environment["ESTIMATOR_MIGRATE_VERBOSE"] = "1"
    completed = subprocess.run([str(MIGRATE), "convert-checkpoint", str(model_dir), "--out", str(tmp_path / "out")],
                               capture_output=True, text=True, env=environment)
    lines = (completed.stdout + completed.stderr).splitlines()
    if verbose:
        assert any("cpu_feature_guard" in line or "oneDNN" in line for line in lines), lines
        assert lines[-1].startswith("migrate: converted"), lines
        return
    assert len(lines) == 1, lines
    assert lines[0].startswith("migrate: converted" if damage is None else "migrate: error:"), lines
