"""Notebooks in tree mode: code cells migrated as one module, everything else kept, cells named in findings.

The notebook is built here (a Colab-style Estimator notebook: markdown, magics, a %%writefile cell, an
output, the program spread over several cells), rewritten by `migrate rewrite` as part of a tree, checked
cell by cell, and the migrated notebook is executed for real (nbclient, modern env): it trains and
checkpoints to max_steps.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from migrate.demo import checkpoint_step
from migrate.notebooks import NotebookError, migrate_notebook
from tests.conftest import MIGRATE, MODERN_PYTHON, ROOT, run


def _cell(kind: str, source: str, **extra) -> dict:
    lines = source.splitlines(keepends=True)
    cell = {"cell_type": kind, "metadata": {}, "source": lines}
    if kind == "code":
        cell.update({"execution_count": None, "outputs": []})
    cell.update(extra)
    return cell


CELLS = [
    _cell("markdown", "# Digits with an Estimator\n\nTrains, checkpoints every 5 steps."),
    _cell("code", "%env TF_CPP_MIN_LOG_LEVEL=2\n!echo starting"),
    _cell(
        "code",
        "import os\n\nimport numpy as np\nimport tensorflow as tf\nfrom sklearn.datasets import load_digits\n\n"
        'MODEL_DIR = os.environ.get("NOTEBOOK_MODEL_DIR", "model")\n'
        "digits = load_digits()\npixels = (digits.data / 16.0).astype(np.float32)",
    ),
    _cell("code", "config = tf.compat.v1.estimator.RunConfig(model_dir=MODEL_DIR, save_checkpoints_steps=5)"),
    _cell(
        "code",
        "columns = [tf.feature_column.numeric_column(\"pixels\", shape=(64,))]\n"
        "classifier = tf.compat.v1.estimator.DNNClassifier(\n"
        "    hidden_units=[16], feature_columns=columns, n_classes=10, config=config\n)",
    ),
    _cell("code", "%%writefile notes.txt\nnot Python: tf.estimator.DNNClassifier(hidden_units=[1])"),
    _cell(
        "code",
        "%%time\n"
        "train_input = tf.compat.v1.estimator.inputs.numpy_input_fn(\n"
        "    x={\"pixels\": pixels}, y=digits.target, batch_size=32, num_epochs=None, shuffle=True\n)\n"
        "classifier.train(input_fn=train_input, max_steps=20)",
        outputs=[{"name": "stdout", "output_type": "stream", "text": ["INFO: loss = 2.3\n"]}],
        execution_count=7,
    ),
    _cell(
        "code",
        "eval_input = tf.compat.v1.estimator.inputs.numpy_input_fn(\n"
        "    x={\"pixels\": pixels}, y=digits.target, batch_size=256, shuffle=False\n)\n"
        "%time metrics = classifier.evaluate(input_fn=eval_input)\n"
        "%timeit -n 1 -r 1 print(metrics[\"global_step\"])",
    ),
]


def notebook_text(cells=CELLS) -> str:
    notebook = {
        "cells": cells,
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


def code(cell: dict) -> str:
    return "".join(cell["source"])


@pytest.fixture(scope="module")
def migrated(tmp_path_factory) -> tuple[Path, dict, str]:
    """The notebook rewritten in place by `migrate rewrite` on its directory: (path, report, stderr)."""
    tree = tmp_path_factory.mktemp("tree")
    (tree / "train.ipynb").write_text(notebook_text())
    report = tree.parent / "report.json"
    completed = run([MIGRATE, "rewrite", tree, "--target", "keras", "--report", report])
    return tree / "train.ipynb", json.loads(report.read_text()), completed.stderr


def test_code_cells_are_migrated_and_the_rest_is_kept(migrated):
    path, _, _ = migrated
    before, after = CELLS, json.loads(path.read_text())["cells"]
    assert len(after) == len(before)
    assert after[0] == before[0]  # markdown
    assert after[1] == before[1]  # magics only
    assert after[5] == before[5]  # %%writefile: not Python, not touched
    assert "RunConfig" not in code(after[3])  # its settings moved to the train code
    assert "canned.dnn_classifier(" in code(after[4])
    assert "BackupAndRestore" in code(after[6]) and ".train(" not in code(after[6])
    assert after[6]["outputs"] == before[6]["outputs"] and after[6]["execution_count"] == 7
    assert code(after[2]).startswith("import")  # imports the rewrite needs go to the first code cell
    assert "from estimator_migrate.compat import" in code(after[2]) or "from estimator_migrate.compat import" in code(after[1])


def test_untouched_cells_keep_their_json_text(migrated):
    path, _, _ = migrated
    text = path.read_text()
    for index in (0, 5):
        original = json.dumps(CELLS[index], indent=1, ensure_ascii=False).replace("\n", "\n  ")
        assert original in text
    assert text.endswith("}\n")


def test_findings_name_the_cell(migrated):
    _, report, stderr = migrated
    (entry,) = report["files"]
    assert entry["status"] == "changed"
    rules = {(f["rule"], f["cell"], f["line"]) for f in entry["findings"]}
    assert ("runconfig-checkpointing", 4, 1) in rules
    assert ("canned-estimator", 5, 2) in rules
    assert ("estimator-train", 7, 5) in rules  # (under the cell's %%time)
    assert all(f["migrated"] for f in entry["findings"])


def test_a_second_run_changes_nothing(migrated):
    path, _, _ = migrated
    text = path.read_text()
    assert migrate_notebook(text, "keras").changed is False


def test_the_added_imports_come_after_a_cells_future_imports():
    """A first cell opening with comments and a `from __future__` import (Python 2-era notebooks): IPython
    compiles each cell alone, so the switch and imports the rewrite adds go after it, and every cell compiles."""
    cells = copy.deepcopy(CELLS)
    cells[2] = _cell("code", "# To support both python 2 and python 3\nfrom __future__ import (division,\n"
                     "    print_function)\n\n" + code(CELLS[2]))
    result = migrate_notebook(notebook_text(cells), "keras")
    first = json.loads(result.code)["cells"][2]
    assert code(first).startswith("# To support both python 2 and python 3\nfrom __future__ import (division,\n"
                                  "    print_function)\n\nimport os\n\nos.environ.setdefault(")
    for cell in json.loads(result.code)["cells"]:
        if cell["cell_type"] == "code" and not code(cell).startswith("%%"):
            compile("".join("pass\n" if line.startswith(("%", "!")) else line for line in cell["source"]),
                    "cell", "exec")


def test_a_colab_notebook_choosing_tensorflow_1_is_told_it_runs_on_tensorflow_2():
    """Colab notebooks of the TF1 days opened with `%tensorflow_version 1.x` (which Colab no longer has) or
    installed a pinned TensorFlow 1.x: in the migrated notebook the magic is commented out, and the install
    kept with a TODO naming what to install instead (the user's environment: not rewritten)."""
    cells = copy.deepcopy(CELLS)
    cells[1] = _cell("code", "%tensorflow_version 1.x\n!pip install -q tensorflow-gpu==1.15.5 pandas\n!pip install pandas")
    result = migrate_notebook(notebook_text(cells), "keras")
    lines = code(json.loads(result.code)["cells"][1]).splitlines()
    assert lines[0] == "pass  # %tensorflow_version 1.x: TensorFlow 2 runs the migrated code (Colab has no 1.x)"
    assert lines[1].startswith("!pip install -q tensorflow-gpu==1.15.5 pandas  # TODO(migrate): installs TensorFlow 1.x")
    assert lines[2] == "!pip install pandas"
    found = {(f.rule, f.cell, f.line, f.migrated) for f in result.findings if f.rule == "tensorflow-version"}
    assert found == {("tensorflow-version", 2, 1, True), ("tensorflow-version", 2, 2, False)}
    assert migrate_notebook(result.code, "keras").changed is False
    guarded = copy.deepcopy(cells)  # (ageron's handson-ml: the magic the only line of a try block)
    guarded[1] = _cell("code", "try:\n    # %tensorflow_version only exists in Colab.\n    %tensorflow_version 1.x\n"
                       "except Exception:\n    pass")
    lines = code(json.loads(migrate_notebook(notebook_text(guarded), "keras").code)["cells"][1]).splitlines()
    assert lines[2] == "    pass  # %tensorflow_version 1.x: TensorFlow 2 runs the migrated code (Colab has no 1.x)"
    kept = copy.deepcopy(cells)  # a notebook the rewrite leaves as it was (nothing migrated) keeps its TensorFlow 1.x
    kept[3:5] = [_cell("code", "print(tf.__version__)")] * 2
    kept[6] = kept[7] = _cell("code", "print(1)")
    assert migrate_notebook(notebook_text(kept), "keras").changed is False


def test_timing_magics_keep_their_python_migrated():
    """Colab's timing magics: a `%%time` cell is Python under its first line, the statement after `%time` or
    `%timeit` is Python: both are migrated and the magics put back; a statement the rewrite replaces with several
    (tier 1's inline fit for a train call) runs untimed, with a note in the report."""
    result = migrate_notebook(notebook_text(), "keras")
    cells = json.loads(result.code)["cells"]
    training = code(cells[6]).splitlines()
    assert training[0] == "%%time" and "numpy_input_fn" not in code(cells[6]) and "classifier.fit(" in code(cells[6])
    evaluation = code(cells[7]).splitlines()
    assert evaluation[-2].startswith("%time metrics = estimator_evaluation.evaluate(classifier, eval_input(), ")
    assert evaluation[-1] == '%timeit -n 1 -r 1 print(metrics["global_step"])'
    assert not [f for f in result.findings if f.rule == "notebook-magic"]
    timed_training = copy.deepcopy(CELLS)
    timed_training[6] = _cell("code", code(CELLS[6]).replace("%%time\n", "").replace("classifier.train(", "%time classifier.train("))
    result = migrate_notebook(notebook_text(timed_training), "keras")
    assert "%time" not in code(json.loads(result.code)["cells"][6]) and "classifier.fit(" in code(json.loads(result.code)["cells"][6])
    (note,) = [f for f in result.findings if f.rule == "notebook-magic"]
    assert (note.cell, note.line, note.migrated) == (7, 4, True) and note.message.startswith("%time left out")


def test_bad_notebooks_get_one_line_errors():
    with pytest.raises(NotebookError, match="invalid JSON"):
        migrate_notebook("{not json", "keras")
    broken = copy.deepcopy(CELLS)
    broken[3] = _cell("code", "config = tf.estimator.RunConfig(")
    with pytest.raises(NotebookError, match=r"^cell 4, line 1: not valid Python 3"):
        migrate_notebook(notebook_text(broken), "keras")


@pytest.mark.slow
def test_the_migrated_notebook_runs_and_checkpoints(migrated, tmp_path):
    path, _, _ = migrated
    work = tmp_path / "work"
    work.mkdir()
    run([MODERN_PYTHON, ROOT / "tests" / "run_notebook.py", path, work], timeout=600)
    assert (work / "notes.txt").exists()  # the %%writefile cell ran as a cell magic
    assert checkpoint_step(work / "model") == 20
