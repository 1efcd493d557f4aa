"""The project index: what each module's programs keep, read before any module is rewritten.

Every module of the tree that names an estimator or TensorFlow is read with `ast` (Python 2 modules as the
rewrite will convert them: codemods/python2.py): what it says about estimators, whether it was written for
TensorFlow 1.x (codemods/tf_era.py), and what it imports. codemods/project/graph.py groups the modules into
programs by their imports; a module's ProjectFacts merge the facts of the programs it belongs to. A file given
alone (as pre-commit passes them) is read with the modules of its import root, so it gets the answer the tree
gets.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from codemods.project.facts import EstimatorMentions, ProjectFacts, estimator_mentions_in, kept_estimators
from codemods.project.graph import Import, Modules, import_root, imports_in, programs
from codemods.tf_era import calls_tf1_only_apis, names_tf1_only_apis
from migrate.discovery import SourceFile, discover
from migrate.files import BadSource, read_source


@dataclass
class ModuleIndex:
    """What one module tells the index: what it says about estimators (None: it names none), whether it was
    written for TensorFlow 1.x, and what it imports."""

    path: str  # absolute
    mentions: EstimatorMentions | None
    tf1: bool
    tf1_names: bool = False  # it names what TensorFlow 2 lacks (codemods/tf_era.uses_tf1_names)
    imports: list[Import] = field(default_factory=list)


def worth_indexing(file: SourceFile, code: str) -> bool:
    """Whether `file`, of text `code`, can tell the index anything (tested before parsing): every construct
    kept names an Estimator, and TF1 APIs are tensorflow's; a package's `__init__.py` says what importing the
    package loads (without it, any of its modules). A notebook is a project of its own."""
    return not file.is_notebook and ("stimator" in code or "tensorflow" in code or file.path.name == "__init__.py")


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

    path = os.path.abspath(file.path)
    tree = python3_tree(code, str(file.path))
    if tree is None:
        return ModuleIndex(path, EstimatorMentions() if "stimator" in code else None, False)
    nodes = list(ast.walk(tree))
    mentions = estimator_mentions_in(nodes, path) if "stimator" in code else None
    tensorflow = "tensorflow" in code
    return ModuleIndex(path, mentions, tensorflow and calls_tf1_only_apis(nodes),
                       tensorflow and names_tf1_only_apis(nodes), imports_in(nodes))


# A file given alone is read with the modules of its import root, up to this many (a script in a home folder
# is not read with everything below it)
CONTEXT_LIMIT = 5000


def context_files(files: list[SourceFile]) -> list[SourceFile]:
    """The other Python files of the import roots of the files given alone (pre-commit passes files one by one,
    and each must get the answer its tree gets); not rewritten, only indexed."""
    given = {os.path.abspath(file.path) for file in files if file.given}
    roots = sorted({import_root(path) for path in given if path.endswith(".py")})
    found: list[SourceFile] = []
    for root in roots:
        others = [file for file in discover(root) if file.path.suffix == ".py"
                  and os.path.abspath(file.path) not in given]
        if len(others) <= CONTEXT_LIMIT:
            found += others
    return found


@dataclass(frozen=True)
class _ProgramFacts:
    """What one program (an entry and the modules it loads) keeps."""

    kept: list[tuple[str, str]]  # (constructor, absolute path): kept_estimators
    tf1: bool
    tf1_names: bool
    wraps: bool
    factories: frozenset[str]


def _program_facts(modules: list[ModuleIndex]) -> _ProgramFacts:
    mentions = [module.mentions for module in modules if module.mentions is not None]
    return _ProgramFacts(kept_estimators(mentions), any(module.tf1 for module in modules),
                         any(module.tf1_names for module in modules), any(found.wraps for found in mentions),
                         frozenset().union(*(found.factories for found in mentions)))


def _merged(path: str, programs: list[_ProgramFacts], exported: set[str] | None) -> ProjectFacts:
    """The ProjectFacts of the module at `path`, from those of the programs it belongs to and the names other
    modules import from it (`exported`)."""
    kept = dict.fromkeys(where for program in programs for where in program.kept)
    folder = os.path.dirname(path)
    described = [f"{name} in {'this module' if at == path else os.path.relpath(at, folder)}" for name, at in kept]
    return ProjectFacts(described, any(p.tf1 for p in programs), any(p.tf1_names for p in programs),
                        any(p.wraps for p in programs), frozenset().union(*(p.factories for p in programs)),
                        None if exported is None else frozenset(exported))


def index_projects(files: list[SourceFile], modules: Iterable[ModuleIndex | None]) -> dict[Path, ProjectFacts]:
    """Each Python file's ProjectFacts (notebooks are projects of their own: not indexed), from the
    `index_module` of the tree's modules (those `worth_indexing`, at least, and the `context_files`)."""
    indexed = {module.path: module for module in modules if module is not None}
    tree = Modules(indexed)
    taken = {path: tree.names_taken(path, module.imports) for path, module in indexed.items()}
    exported: dict[str, set[str] | None] = {}
    for names_taken in taken.values():
        for path, names in names_taken.items():
            if names is None or exported.get(path, set()) is None:
                exported[path] = None
            else:
                exported.setdefault(path, set()).update(names)
    found = programs({path: set(names_taken) for path, names_taken in taken.items()})
    belongs: dict[str, list[_ProgramFacts]] = {}
    for entry in sorted(found):
        facts = _program_facts([indexed[path] for path in sorted(found[entry])])
        for path in found[entry]:
            belongs.setdefault(path, []).append(facts)
    return {file.path: _merged(os.path.abspath(file.path), belongs.get(os.path.abspath(file.path), []),
                               exported.get(os.path.abspath(file.path), set()))
            for file in files if not file.is_notebook}
