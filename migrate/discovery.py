"""Which files a PATH argument stands for: .py and .ipynb files found recursively, minus environments and builds."""

from __future__ import annotations

import os
from dataclasses import dataclass
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

    @property
    def is_notebook(self) -> bool:
        return self.path.suffix == ".ipynb"

    @property
    def is_migratable(self) -> bool:
        """Python source or a Jupyter notebook (its code cells)."""
        return self.path.suffix == ".py" or self.is_notebook


def _excluded(name: str) -> bool:
    return name in EXCLUDED_DIRS or name.endswith(".egg-info")


def discover(path_argument: str) -> list[SourceFile]:
    """Every file under a PATH argument (a file or a directory), sorted, excluded directories pruned.

    Non-Python files are listed too: `--out` copies them so the output tree is complete.
    """
    path = Path(path_argument)
    if path.is_file() or path.is_symlink() and not path.is_dir():
        return [SourceFile(path, path.parent, path.name, given=True)]
    found = []
    for directory, subdirs, files in os.walk(path):
        subdirs[:] = sorted(d for d in subdirs if not _excluded(d))
        for name in sorted(files):
            file = Path(directory) / name
            found.append(SourceFile(file, path, file.relative_to(path).as_posix()))
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
