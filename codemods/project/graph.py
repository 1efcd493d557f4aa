"""Which modules of a tree make one program: imports resolved as Python resolves them, read with `ast`.

A module's program is what runs with it: the modules it imports (transitively) and, for a module others import,
every program that imports it. Modules that do not import each other are independent programs, even side by
side in one folder: a folder of scripts sharing a helper is one program per script, the helper belonging to
each. What one program keeps (an estimator with no TensorFlow 2 form, TF1-only APIs) never reaches another.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable

# (level, module, names): `from ..a import b, c` is (2, "a", ("b", "c")); `import a.b` is (0, "a.b", ())
Import = tuple[int, str, tuple[str, ...]]


def imports_in(nodes: Iterable[ast.AST]) -> list[Import]:
    """Every import statement among a module's `nodes` (`ast.walk`), at any depth: an import in a function
    runs with the program too."""
    found: list[Import] = []
    for node in nodes:
        if isinstance(node, ast.Import):
            found += [(0, alias.name, ()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.level, node.module or "", tuple(alias.name for alias in node.names)))
    return found


def import_root(path: str) -> str:
    """The directory Python imports `path` from: its own folder for a script, the folder above its top package
    (folders holding an `__init__.py`) for a module of a package (run as `python -m package.module`)."""
    directory = os.path.dirname(os.path.abspath(path))
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return directory


def _search_bases(path: str) -> list[str]:
    """Where an absolute import of `path` is looked up: its import root, then the folders above it (a package
    without `__init__.py`, or a repository root on PYTHONPATH, as real projects run)."""
    bases, directory = [], import_root(path)
    while True:
        bases.append(directory)
        parent = os.path.dirname(directory)
        if parent == directory:
            return bases
        directory = parent


class Modules:
    """The modules of a tree (absolute paths) as imports find them."""

    def __init__(self, paths: Iterable[str]):
        self.paths = set(paths)
        # each folder's modules, at any depth: what importing a package whose `__init__.py` is not in the tree
        # may load (the tree is a part of a repository, or a namespace package)
        self.below: dict[str, list[str]] = {}
        for path in sorted(self.paths):
            directory = os.path.dirname(path)
            while True:
                self.below.setdefault(directory, []).append(path)
                parent = os.path.dirname(directory)
                if parent == directory:
                    break
                directory = parent

    def _package(self, directory: str) -> list[str]:
        init = os.path.join(directory, "__init__.py")
        return [init] if init in self.paths else self.below.get(directory, [])

    def _submodule(self, path: str) -> list[str]:
        if path + ".py" in self.paths:
            return [path + ".py"]
        return self._package(path)

    def at(self, base: str, dotted: str) -> list[str]:
        """The modules importing `dotted` from `base` runs: its packages' and the module."""
        found, directory = [], base
        parts = [part for part in dotted.split(".") if part]
        for i, part in enumerate(parts):
            directory = os.path.join(directory, part)
            if i == len(parts) - 1 and directory + ".py" in self.paths:
                found.append(directory + ".py")
            else:
                found += self._package(directory)
        return found

    def imported_by(self, path: str, imports: list[Import]) -> set[str]:
        """The modules `path`'s imports load."""
        return set(self.names_taken(path, imports))

    def names_taken(self, path: str, imports: list[Import]) -> dict[str, set[str] | None]:
        """The modules `path`'s imports load, each with the names taken from it (`from m import a, b`: {a, b},
        also for the packages on the way; None where the module itself is bound, `import m` or `from package
        import m`, and any name of it may be read)."""
        taken: dict[str, set[str] | None] = {}

        def take(module_path: str, names: set[str] | None) -> None:
            if names is None or (module_path in taken and taken[module_path] is None):
                taken[module_path] = None
            else:
                taken.setdefault(module_path, set()).update(names)

        bases = None
        for level, module, names in imports:
            if level:
                base = os.path.dirname(os.path.abspath(path))
                for _ in range(level - 1):
                    base = os.path.dirname(base)
                candidates = [base]
            else:
                bases = bases or _search_bases(path)
                candidates = bases
            for base in candidates:
                found = self.at(base, module)
                package = os.path.join(base, *module.split(".")) if module else base
                submodules = [sub for name in names for sub in self._submodule(os.path.join(package, name))]
                for found_path in found:
                    take(found_path, set(names) if names else None)
                for found_path in submodules:  # `from package import module`
                    take(found_path, None)
                if found or submodules:
                    break
        taken.pop(os.path.abspath(path), None)
        return taken


def programs(imports: dict[str, set[str]]) -> dict[str, set[str]]:
    """The programs among the modules (keys of `imports`, the modules each one loads), by entry: a module no
    other imports (in an import cycle no entry reaches, each of its modules), with everything it loads,
    transitively."""
    imported = {target for targets in imports.values() for target in targets}
    found = {module: _closure(module, imports) for module in imports if module not in imported}
    reached = set().union(*found.values())
    for module in imports:
        if module not in reached:
            found[module] = _closure(module, imports)
            reached |= found[module]
    return found


def _closure(module: str, imports: dict[str, set[str]]) -> set[str]:
    seen, stack = {module}, [module]
    while stack:
        for target in imports.get(stack.pop(), ()):
            if target not in seen:
                seen.add(target)
                stack.append(target)
    return seen
