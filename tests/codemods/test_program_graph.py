"""Imports resolved as Python resolves them, and the programs they make (codemods/project/graph.py): files
written to a temporary tree, read with `ast`."""

from __future__ import annotations

import ast
import os

from codemods.project.graph import Modules, import_root, imports_in, programs


def _tree(root, files: dict[str, str]) -> dict[str, set[str]]:
    """Write `files` under `root`; each module's imports, resolved, by path from `root`."""
    for relative, source in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
    paths = {str(root / relative): imports_in(ast.walk(ast.parse(source))) for relative, source in files.items()}
    modules = Modules(paths)
    return {os.path.relpath(path, root): {os.path.relpath(target, root) for target in modules.imported_by(path, found)}
            for path, found in paths.items()}


def test_a_script_imports_from_its_own_folder(tmp_path):
    loads = _tree(tmp_path, {"scripts/train.py": "import data\nfrom util import helper\n", "scripts/data.py": "",
                             "scripts/util.py": "", "data.py": ""})
    assert loads["scripts/train.py"] == {"scripts/data.py", "scripts/util.py"}


def test_a_package_module_imports_from_above_its_top_package(tmp_path):
    files = {"trainer/__init__.py": "", "trainer/task.py": "from trainer import model\nfrom . import inputs\n",
             "trainer/model.py": "from .util.helpers import f\n", "trainer/inputs.py": "",
             "trainer/util/__init__.py": "", "trainer/util/helpers.py": ""}
    loads = _tree(tmp_path, files)
    assert import_root(str(tmp_path / "trainer" / "util" / "helpers.py")) == str(tmp_path)
    assert loads["trainer/task.py"] == {"trainer/__init__.py", "trainer/model.py", "trainer/inputs.py"}
    assert loads["trainer/model.py"] == {"trainer/util/__init__.py", "trainer/util/helpers.py"}


def test_a_package_without_its_init_in_the_tree_may_load_any_of_its_modules(tmp_path):
    """The tree holds part of a repository (or a namespace package): `from lib import Estimator` may come from
    any module of lib/, through the `__init__.py` that is not there; a folder above the import root is searched
    too, as a repository root on PYTHONPATH is."""
    loads = _tree(tmp_path, {"examples/run.py": "from lib import NodeEstimator\n", "lib/python/base.py": "",
                             "lib/python/node.py": "", "other/unrelated.py": ""})
    assert loads["examples/run.py"] == {"lib/python/base.py", "lib/python/node.py"}


def test_unresolved_imports_load_nothing(tmp_path):
    loads = _tree(tmp_path, {"a.py": "import tensorflow as tf\nimport numpy\nfrom missing import x\n"})
    assert loads["a.py"] == set()


def test_programs_are_entries_with_what_they_load():
    imports = {"a": {"data"}, "b": {"data"}, "c": {"data", "model"}, "data": set(), "model": set(),
               "x": {"y"}, "y": {"x"}}  # x and y: an import cycle no entry reaches
    assert programs(imports) == {"a": {"a", "data"}, "b": {"b", "data"}, "c": {"c", "data", "model"},
                                 "x": {"x", "y"}}


def test_the_names_each_import_takes_from_the_modules_it_loads(tmp_path):
    files = {"train.py": "from model import model_fn, build\nimport data\n", "model.py": "", "data.py": "",
             "trainer/__init__.py": "", "trainer/task.py": "from trainer import inputs\nfrom trainer.util import f\n",
             "trainer/inputs.py": "", "trainer/util.py": ""}
    for relative, source in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(source)
    paths = {str(tmp_path / relative): imports_in(ast.walk(ast.parse(source))) for relative, source in files.items()}
    modules = Modules(paths)

    def taken(relative):
        path = str(tmp_path / relative)
        return {os.path.relpath(target, tmp_path): names for target, names in modules.names_taken(path, paths[path]).items()}

    assert taken("train.py") == {"model.py": {"model_fn", "build"}, "data.py": None}  # None: the module itself bound
    # a package's __init__ on the way is given the names too (they may be defined there); a submodule imported
    # from its package is bound itself
    assert taken("trainer/task.py") == {"trainer/__init__.py": {"inputs", "f"}, "trainer/inputs.py": None,
                                        "trainer/util.py": {"f"}}
