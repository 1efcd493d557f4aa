"""`[tool.migrate]` in pyproject.toml: the project's defaults for `migrate scan` / `rewrite`.

Found as ruff finds its own: the nearest pyproject.toml holding a `[tool.migrate]` table, walking up from each
PATH argument. Flags given on the command line win over it. Keys:

    [tool.migrate]
    target = "keras"            # or "loop"
    exact = false
    exclude = ["legacy_jobs", "tests/fixtures/*.py"]

`exclude` holds glob patterns (fnmatch): one without a `/` matches any file or directory of that name, one
with a `/` a path relative to the directory of that pyproject.toml.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from codemods import TARGETS


class ConfigError(ValueError):
    """A [tool.migrate] table that cannot be used: the message names the file and what is wrong."""


@dataclass(frozen=True)
class Config:
    path: Path | None = None  # the pyproject.toml it came from; None: no configuration
    target: str | None = None
    exact: bool | None = None
    exclude: tuple[str, ...] = ()

    @property
    def base(self) -> Path:
        """The directory `exclude` patterns with a `/` are relative to."""
        return self.path.parent if self.path is not None else Path.cwd()


_KEYS = {"target", "exact", "exclude"}


def find_config(paths: list[str]) -> Config:
    """The [tool.migrate] configuration of the project the PATH arguments belong to (empty when none has one).
    Paths of two projects with different configurations are an error: one run has one target."""
    found = {_nearest(Path(path)) for path in paths}
    if len(found) > 1:
        names = ", ".join(sorted(str(p) if p else "none" for p in found))
        raise ConfigError(
            f"the paths belong to projects with different [tool.migrate] configurations ({names}); "
            "run migrate once per project"
        )
    path = found.pop() if found else None
    return load_config(path) if path is not None else Config()


def _nearest(path: Path) -> Path | None:
    directory = path.resolve()
    return _nearest_from(directory if directory.is_dir() else directory.parent)


@cache  # pre-commit passes many files of the same directories
def _nearest_from(directory: Path) -> Path | None:
    pyproject = directory / "pyproject.toml"
    if pyproject.is_file() and "migrate" in _read(pyproject).get("tool", {}):
        return pyproject
    return None if directory.parent == directory else _nearest_from(directory.parent)


def _read(pyproject: Path) -> dict:
    try:
        with pyproject.open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{pyproject}: cannot read it as TOML ({error})") from None


def load_config(pyproject: Path) -> Config:
    """The [tool.migrate] table of `pyproject`, checked key by key."""
    table = _read(pyproject).get("tool", {}).get("migrate", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{pyproject}: [tool.migrate] must be a table")
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ConfigError(
            f"{pyproject}: [tool.migrate] has no key {unknown[0]!r} (known: {', '.join(sorted(_KEYS))})"
        )
    target = table.get("target")
    if target is not None and target not in TARGETS:
        raise ConfigError(f"{pyproject}: [tool.migrate] target must be one of {', '.join(TARGETS)}, not {target!r}")
    exact = table.get("exact")
    if exact is not None and not isinstance(exact, bool):
        raise ConfigError(f"{pyproject}: [tool.migrate] exact must be true or false, not {exact!r}")
    exclude = table.get("exclude", [])
    if not isinstance(exclude, list) or not all(isinstance(p, str) for p in exclude):
        raise ConfigError(f"{pyproject}: [tool.migrate] exclude must be a list of glob patterns (strings)")
    return Config(pyproject, target, exact, tuple(exclude))
