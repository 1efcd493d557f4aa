"""The project index: what each project of the rewritten tree keeps, read before any module is rewritten.

A project is what one PATH argument holds under one top-level entry (`PATH/<entry>/...`; the files right
in PATH make one project together), or a single file given as PATH. Only facts that cross modules are
indexed: where the project builds an estimator that stays TF1 (codemods/runtime_tier.py switches the
run-time linked tier off there, since a RunConfig or train call in any module might reach it), and whether it
was written for TensorFlow 1.x (codemods/tf_era.py: its `tf.estimator` is the v1 estimators). Python 2 modules
are read as the rewrite will convert them (codemods/python2.py).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from codemods.project_facts import EstimatorMentions, ProjectFacts, estimator_mentions_in, kept_estimators
from codemods.tf_era import calls_tf1_only_apis, names_tf1_only_apis
from migrate.discovery import SourceFile
from migrate.files import BadSource, read_source


def project_key(file: SourceFile) -> tuple[Path, str]:
    """The project `file` belongs to: its PATH argument and the top-level entry under it."""
    if file.given:
        return file.path, ""
    parts = Path(file.relative).parts
    return file.root, parts[0] if len(parts) > 1 else ""


@dataclass
class ModuleIndex:
    """What one module tells the index: its project, what it says about estimators (None: it names none),
    whether it was written for TensorFlow 1.x."""

    project: tuple[Path, str]
    mentions: EstimatorMentions | None
    tf1: bool
    tf1_names: bool = False  # it names what TensorFlow 2 lacks (codemods/tf_era.uses_tf1_names)


def worth_indexing(file: SourceFile, code: str) -> bool:
    """Whether `file`, of text `code`, can tell the index anything (tested before parsing): every construct
    kept names an Estimator, and TF1 APIs are tensorflow's. A notebook is a project of its own."""
    return not file.is_notebook and ("stimator" in code or "tensorflow" in code)


def index_module(file: SourceFile) -> ModuleIndex | None:
    """`file`'s part of the index (None: nothing to index, or a file that cannot be read); each module is
    read on its own, so the modules of a tree are indexed in parallel."""
    try:
        code, _ = read_source(file.path)
    except BadSource:
        return None
    if not worth_indexing(file, code):
        return None
    # imported here: it loads LibCST, which a tree without TensorFlow never needs
    from codemods.python2 import python3_tree

    tree = python3_tree(code, str(file.path))
    if tree is None:
        return ModuleIndex(project_key(file), EstimatorMentions() if "stimator" in code else None, False)
    nodes = list(ast.walk(tree))
    mentions = estimator_mentions_in(nodes, file.relative) if "stimator" in code else None
    tensorflow = "tensorflow" in code
    return ModuleIndex(project_key(file), mentions, tensorflow and calls_tf1_only_apis(nodes),
                       tensorflow and names_tf1_only_apis(nodes))


def index_projects(files: list[SourceFile], modules: Iterable[ModuleIndex | None]) -> dict[Path, ProjectFacts]:
    """Each Python file's ProjectFacts (notebooks are projects of their own: not indexed), from the
    `index_module` of its project's modules (those `worth_indexing`, at least)."""
    mentions: dict[tuple[Path, str], list[EstimatorMentions]] = {}
    tf1: set[tuple[Path, str]] = set()
    tf1_names: set[tuple[Path, str]] = set()
    for module in modules:
        if module is None:
            continue
        if module.mentions is not None:
            mentions.setdefault(module.project, []).append(module.mentions)
        if module.tf1:
            tf1.add(module.project)
        if module.tf1_names:
            tf1_names.add(module.project)
    kept = {key: kept_estimators(found) for key, found in mentions.items()}
    wraps = {key for key, found in mentions.items() if any(module.wraps for module in found)}
    factories = {key: frozenset().union(*(module.factories for module in found)) for key, found in mentions.items()}
    return {
        file.path: ProjectFacts(kept.get(project_key(file), []), project_key(file) in tf1,
                                project_key(file) in tf1_names, project_key(file) in wraps,
                                factories.get(project_key(file), frozenset()))
        for file in files
        if not file.is_notebook
    }
