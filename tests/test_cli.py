"""The `migrate` command as users run it: real files written and read back, real exit codes."""

from __future__ import annotations

import json
import os
import shutil
import stat

import pytest

from migrate.files import BadSource, read_source
from tests.conftest import EXAMPLE, MIGRATE, MODERN_PYTHON, run

SYNTAX_ERROR = "def broken(:\n    import tensorflow.estimator\n"
PYTHON2 = "import tensorflow as tf\nprint 'estimator'\n"


@pytest.fixture
def tree(tmp_path):
    """A small project: the bundled Estimator program plus files that must not change."""
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    shutil.copy2(EXAMPLE, root / "pkg" / "train.py")
    os.chmod(root / "pkg" / "train.py", 0o755)
    (root / "pkg" / "util.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "README.txt").write_text("not python\n")
    (root / ".venv" / "lib").mkdir(parents=True)
    shutil.copy2(EXAMPLE, root / ".venv" / "lib" / "excluded.py")
    return root


def snapshot(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_check_exits_1_before_and_0_after_rewriting(tree):
    assert run([MIGRATE, "rewrite", "--check", tree], check_codes=(1,)).returncode == 1
    run([MIGRATE, "rewrite", tree])
    assert run([MIGRATE, "rewrite", "--check", tree]).returncode == 0


def test_rewrite_in_place_keeps_mode_bits_and_leaves_no_temp_files(tree):
    before = snapshot(tree)
    run([MIGRATE, "rewrite", tree])
    after = snapshot(tree)
    assert set(after) == set(before)
    assert after["pkg/train.py"] != before["pkg/train.py"]
    assert b"BackupAndRestore" in after["pkg/train.py"]
    assert stat.S_IMODE((tree / "pkg" / "train.py").stat().st_mode) == 0o755
    unchanged = ("pkg/util.py", "README.txt", ".venv/lib/excluded.py")
    assert {k: after[k] for k in unchanged} == {k: before[k] for k in unchanged}


def test_second_rewrite_changes_nothing(tree):
    run([MIGRATE, "rewrite", tree])
    once = snapshot(tree)
    run([MIGRATE, "rewrite", tree])
    assert snapshot(tree) == once


def test_diff_and_check_write_nothing(tree):
    before = snapshot(tree)
    diff = run([MIGRATE, "rewrite", "--diff", tree]).stdout
    assert diff.startswith("--- a/pkg/train.py\n+++ b/pkg/train.py\n")
    assert "+class InterruptHook(tf_keras.callbacks.Callback):" in diff
    run([MIGRATE, "rewrite", "--check", tree], check_codes=(1,))
    assert snapshot(tree) == before


def test_out_writes_the_tree_and_never_touches_the_input(tree, tmp_path):
    before = snapshot(tree)
    out = tmp_path / "out"
    run([MIGRATE, "rewrite", tree, "--target", "loop", "--out", out])
    assert snapshot(tree) == before
    written = snapshot(out)
    assert set(written) == {"pkg/train.py", "pkg/util.py", "README.txt"}
    assert b"tf.train.CheckpointManager(" in written["pkg/train.py"]
    assert written["pkg/util.py"] == before["pkg/util.py"]


def test_report_follows_the_schema(tree, tmp_path):
    report = tmp_path / "report.json"
    run([MIGRATE, "rewrite", "--check", tree, "--report", report], check_codes=(1,))
    data = json.loads(report.read_text())
    assert data["version"] == 1 and data["tool"].startswith("migrate ") and data["target"] == "keras"
    files = {entry["path"]: entry for entry in data["files"]}
    assert set(files) == {"pkg/train.py", "pkg/util.py"}
    assert files["pkg/util.py"] == {"path": "pkg/util.py", "status": "unchanged", "findings": []}
    rules = [(f["rule"], f["line"], f["migrated"]) for f in files["pkg/train.py"]["findings"]]
    assert rules == [
        ("session-run-hook", 21, True),
        ("runconfig-checkpointing", 58, True),
        ("canned-estimator", 60, True),
        ("numpy-input-fn", 70, True),
        ("estimator-train", 77, True),
    ]
    assert data["summary"] == {
        "files": 2,
        "changed": 1,
        "unchanged": 1,
        "errors": 0,
        "skipped": 0,
        "findings": 5,
        "migrated": 5,
        "manual": 0,
        "estimators": {"rewritten": 1, "run-time": 0, "wrapped": 0, "kept": 0},
    }


def test_parallel_run_gives_the_same_result(tree, tmp_path):
    # Modules to rewrite, modules settled unparsed (no TensorFlow; TensorFlow but nothing to migrate, which the
    # project index still reads), a Python 2 module and one that parses as neither: each path of the runner.
    for i in range(30):
        shutil.copy2(EXAMPLE, tree / "pkg" / f"copy_{i}.py")
        (tree / "pkg" / f"plain_{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n")
    (tree / "pkg" / "graph.py").write_text("import tensorflow as tf\nx = tf.placeholder(tf.float32)\n")
    (tree / "pkg" / "python2.py").write_text(PYTHON2)
    (tree / "pkg" / "syntax.py").write_text(SYNTAX_ERROR)
    reports = []
    for jobs in ("1", "2"):
        out, report = tmp_path / f"out{jobs}", tmp_path / f"report{jobs}.json"
        run([MIGRATE, "rewrite", tree, "--out", out, "--jobs", jobs, "--report", report], check_codes=(1,))  # syntax.py
        reports.append((snapshot(out), json.loads(report.read_text())))
    assert reports[0] == reports[1]


def test_a_tree_without_tensorflow_never_loads_libcst(tmp_path):
    # Start-up is most of what a pre-commit run over a few such files costs; LibCST's import is half a second.
    for i in range(5):
        (tmp_path / f"plain_{i}.py").write_text(f"import os\n\ndef f{i}():\n    return os.sep\n")
    check = (
        "import sys\nfrom migrate.cli import run\n"
        f"code = run(['rewrite', {str(tmp_path)!r}, '--jobs', '1', '--check', '--quiet'])\n"
        "print(code, 'libcst' in sys.modules)\n"
    )
    assert run([MODERN_PYTHON, "-c", check]).stdout.split() == ["0", "False"]
    (tmp_path / "train.py").write_text("import tensorflow as tf\nclassifier = tf.estimator.DNNClassifier([1], [])\n")
    assert run([MODERN_PYTHON, "-c", check], check_codes=(0,)).stdout.split() == ["1", "True"]


BAD_FILES = {
    "syntax.py": (SYNTAX_ERROR.encode(), "error", "not valid Python 3 (line 1"),
    "latin1.py": ("# estimator\nname = 'caf\xe9'\n".encode("latin-1"), "error", "not UTF-8"),
    "binary.py": (b"\x00\x01tensorflow\x02", "error", "binary file"),
    "unknown_coding.py": (b"# -*- coding: klingon -*-\nimport tensorflow\n", "error", "unknown encoding: klingon"),
}


def test_bad_files_are_reported_untouched_and_the_rest_is_migrated(tree, tmp_path):
    for name, (data, _, _) in BAD_FILES.items():
        (tree / name).write_bytes(data)
    outside = tmp_path / "outside.py"
    outside.write_text("import tensorflow\n")
    (tree / "link_out.py").symlink_to(outside)
    (tree / "link_in.py").symlink_to(tree / "pkg" / "util.py")
    (tree / "pkg" / "tf2_only_broken.py").write_text("import tensorflow as tf\ndef f(:\n")
    (tree / "python2.py").write_text(PYTHON2)
    report = tmp_path / "report.json"
    completed = run([MIGRATE, "rewrite", tree, "--report", report], check_codes=(1,))

    entries = {e["path"]: e for e in json.loads(report.read_text())["files"]}
    for name, (data, status, message) in BAD_FILES.items():
        assert entries[name]["status"] == status
        assert message in entries[name]["error"]
        assert (tree / name).read_bytes() == data
        assert any(
            line.startswith(f"{tree / name}: error: {message}") for line in completed.stderr.splitlines()
        )
    assert (
        entries["link_out.py"]["status"] == "error" and "leaving the tree" in entries["link_out.py"]["error"]
    )
    assert entries["link_in.py"]["status"] == "skipped"
    # Not parsed at all (nothing in it names an estimator or a SessionRunHook), so not an error either
    assert entries["pkg/tf2_only_broken.py"]["status"] == "unchanged"
    assert (tree / "link_out.py").is_symlink() and (tree / "link_in.py").is_symlink()
    assert outside.read_text() == "import tensorflow\n"
    assert entries["pkg/train.py"]["status"] == "changed"
    # Python 2 (TF 1.x ran on 2.7) is not bad input: it is converted to Python 3 (codemods/python2.py)
    assert entries["python2.py"]["status"] == "changed"
    assert (tree / "python2.py").read_text() == "import tensorflow as tf\nprint('estimator')\n"


def test_a_file_is_read_and_written_in_its_declared_coding_or_with_its_bom(tmp_path):
    """Python reads a file in the coding its PEP 263 comment declares (TF 1.x code from Python 2 days declared
    latin-1 for its comments), and a BOM marks UTF-8: the migrated file keeps both, and its accented text."""
    program = ("# -*- coding: latin-1 -*-\n# Entraîne le modèle\nimport tensorflow as tf\n\n"
               "config = tf.estimator.RunConfig(save_checkpoints_steps=5)\n"
               "classifier = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=[tf.feature_column.numeric_column"
               "('x')], model_dir='/tmp/modèle', config=config)\n\n\ndef input_fn():\n"
               "    return tf.data.Dataset.from_tensor_slices(({'x': [[1.0]]}, [0])).batch(1)\n\n\n"
               "classifier.train(input_fn=input_fn, max_steps=10)\n")
    (tmp_path / "latin.py").write_bytes(program.encode("latin-1"))
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbf" + program.replace("latin-1", "utf-8").encode("utf-8"))
    run([MIGRATE, "rewrite", tmp_path, "--quiet"])
    for name, encoding in (("latin.py", "latin-1"), ("bom.py", "utf-8-sig")):
        migrated = (tmp_path / name).read_bytes().decode(encoding)
        assert migrated.startswith("# -*- coding: ") and "# Entraîne le modèle" in migrated, name
        assert "canned.dnn_classifier(" in migrated and "'/tmp/modèle'" in migrated, name
    assert (tmp_path / "bom.py").read_bytes().startswith(b"\xef\xbb\xbf")
    assert b"mod\xe8le" in (tmp_path / "latin.py").read_bytes()
    compile((tmp_path / "latin.py").read_bytes(), "latin.py", "exec")  # Python reads it in its coding


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file_is_an_error(tmp_path):
    secret = tmp_path / "secret.py"
    secret.write_text("import tensorflow\n")
    secret.chmod(0)
    completed = run([MIGRATE, "rewrite", "--check", tmp_path], check_codes=(1,))
    assert f"{secret}: error: cannot read: Permission denied" in completed.stderr


def test_read_failure_is_one_line_naming_the_reason(tmp_path):
    with pytest.raises(BadSource, match="^cannot read: Is a directory$"):
        read_source(tmp_path)


def test_usage_errors_exit_2(tmp_path):
    assert run([MIGRATE, "rewrite", tmp_path / "missing"], check_codes=(2,)).returncode == 2
    assert run([MIGRATE, "rewrite", "--diff", "--check", tmp_path], check_codes=(2,)).returncode == 2
    assert run([MIGRATE, "rewrite", "--target", "jax", tmp_path], check_codes=(2,)).returncode == 2


def test_scan_lists_findings_and_writes_nothing(tree):
    before = snapshot(tree)
    completed = run([MIGRATE, "scan", tree])
    assert f"{tree / 'pkg' / 'train.py'}:77:5: estimator-train [migrated]" in completed.stdout
    assert snapshot(tree) == before
