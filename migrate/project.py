"""The project index: what each project of the rewritten tree keeps, read before any module is rewritten.

A project is what one PATH argument holds under one top-level entry (`PATH/<entry>/...`; the files right
in PATH make one project together), or a single file given as PATH. Only facts that cross modules are
indexed: where the project builds an estimator that stays TF1 (codemods/runtime_tier.py switches the
run-time linked tier off there, since a RunConfig or train call in any module might reach it), and whether it
was written for TensorFlow 1.x (codemods/tf_era.py: its `tf.estimator` is the v1 estimators). Python 2 modules
are read as the rewrite will convert them (codemods/python2.py).
"""

from __future__ import annotations

from pathlib import Path

from codemods.python2 import as_python3
from codemods.runtime_tier import EstimatorMentions, ProjectFacts, estimator_mentions, kept_estimators
from codemods.tf_era import written_for_tf1
from migrate.discovery import SourceFile
from migrate.files import BadSource, read_source


def project_key(file: SourceFile) -> tuple[Path, str]:
    """The project `file` belongs to: its PATH argument and the top-level entry under it."""
    if file.given:
        return file.path, ""
    parts = Path(file.relative).parts
    return file.root, parts[0] if len(parts) > 1 else ""


def index_projects(files: list[SourceFile]) -> dict[Path, ProjectFacts]:
    """Each Python file's ProjectFacts (notebooks are projects of their own: not indexed)."""
    mentions: dict[tuple[Path, str], list[EstimatorMentions]] = {}
    tf1: set[tuple[Path, str]] = set()
    for file in files:
        if file.is_notebook:
            continue
        try:
            code, _ = read_source(file.path)
        except BadSource:
            continue
        key = project_key(file)
        if "stimator" in code or "tensorflow" in code:
            code = as_python3(code, str(file.path))
        if "stimator" in code:  # cheap test before parsing: every construct kept names an Estimator
            mentions.setdefault(key, []).append(estimator_mentions(code, file.relative))
        if key not in tf1 and written_for_tf1(code):
            tf1.add(key)
    kept = {key: kept_estimators(found) for key, found in mentions.items()}
    return {
        file.path: ProjectFacts(kept.get(project_key(file), []), project_key(file) in tf1)
        for file in files
        if not file.is_notebook
    }
