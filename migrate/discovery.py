"""Which files a PATH argument stands for: .py and .ipynb files found recursively, minus environments and builds."""

from __future__ import annotations

import os
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import cached_property
from pathlib import Path

EXCLUDED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        ".venv-legacy",
        "env",
        "__pycache__",
        ".tox",
        ".nox",
        "build",
        "dist",
        "node_modules",
        "site-packages",
        ".eggs",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".ipynb_checkpoints",
    }
)


@dataclass(frozen=True)
class SourceFile:
    path: Path  # as found on disk
    root: Path  # the PATH argument's directory it was found under
    relative: str  # path relative to the PATH argument, as the report shows it
    given: bool = False  # the PATH argument is this file itself (then a project of its own)
    excluded: bool = False  # by the user's exclude patterns: never read; `--out` copies it as it is

    @property
    def is_notebook(self) -> bool:
        return self.path.suffix == ".ipynb"

    @property
    def is_migratable(self) -> bool:
        """Python source or a Jupyter notebook (its code cells), not excluded by the user."""
        return (self.path.suffix == ".py" or self.is_notebook) and not self.excluded


def _excluded(name: str) -> bool:
    return name in EXCLUDED_DIRS or name.endswith(".egg-info")


@dataclass(frozen=True)
class Exclusions:
    """The user's `exclude` glob patterns (config/--exclude): one without a `/` matches any file or directory of
    that name, one with a `/` a path relative to `base` (fnmatch, `*` crossing `/` too)."""

    patterns: tuple[str, ...] = ()
    base: Path = Path(".")

    def path(self, path: Path) -> bool:
        """Whether `path`, or a directory it is in, is excluded."""
        if not self.patterns:
            return False
        relative = self._relative(path)
        if relative is None:
            return self._matches(path.name, None)
        parts = relative.split("/")
        return any(self._matches(part, "/".join(parts[: i + 1])) for i, part in enumerate(parts))

    def entry(self, path: Path) -> bool:
        """Whether `path` itself is excluded (the directories it is in known not to be)."""
        return bool(self.patterns) and self._matches(path.name, self._relative(path))

    def _relative(self, path: Path) -> str | None:
        relative = os.path.relpath(os.path.abspath(path), self._base)
        relative = relative.replace(os.sep, "/")
        return None if relative == ".." or relative.startswith("../") else relative

    @cached_property
    def _base(self) -> str:
        return os.path.abspath(self.base)

    @cached_property
    def _names(self) -> tuple[str, ...]:
        return tuple(p.strip("/") for p in self.patterns if "/" not in p.strip("/"))

    @cached_property
    def _paths(self) -> tuple[str, ...]:
        return tuple(p.strip("/") for p in self.patterns if "/" in p.strip("/"))

    def _matches(self, name: str, relative: str | None) -> bool:
        return any(fnmatchcase(name, pattern) for pattern in self._names) or (
            relative is not None and any(fnmatchcase(relative, pattern) for pattern in self._paths)
        )


def discover(path_argument: str, exclusions: Exclusions = Exclusions()) -> list[SourceFile]:
    """Every file under a PATH argument (a file or a directory), sorted, environments and builds pruned.
    Files the user's exclusions cover (they, or a directory they are in, even above the PATH argument, as
    for a file pre-commit passes) are listed as excluded.

    Non-Python files are listed too: `--out` copies them so the output tree is complete.
    """
    path = Path(path_argument)
    if path.is_file() or path.is_symlink() and not path.is_dir():
        return [SourceFile(path, path.parent, path.name, given=True, excluded=exclusions.path(path))]
    found = []
    excluded_dirs = {path} if exclusions.path(path) else set()
    for directory, subdirs, files in os.walk(path):
        here = Path(directory)
        subdirs[:] = sorted(d for d in subdirs if not _excluded(d))
        inside = here in excluded_dirs
        for name in subdirs:
            if inside or exclusions.entry(here / name):
                excluded_dirs.add(here / name)
        for name in sorted(files):
            file = here / name
            excluded = inside or exclusions.entry(file)
            found.append(SourceFile(file, path, file.relative_to(path).as_posix(), excluded=excluded))
    return found


def symlink_problem(file: SourceFile) -> tuple[str, str] | None:
    """(status, reason) for a symlink, which is never rewritten through: rewriting would replace the link."""
    if not file.path.is_symlink():
        return None
    target = file.path.resolve()
    try:
        target.relative_to(file.root.resolve())
    except ValueError:
        return "error", f"symlink leaving the tree (to {target}); not followed"
    return (
        "skipped",
        f"symlink to {target.relative_to(file.root.resolve()).as_posix()} (rewritten there, if listed)",
    )
