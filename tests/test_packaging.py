"""The installed package holds every package of the source tree: pyproject lists them by name, and one left out is
missing only where the tool is installed, not in this checkout (pre-commit's environment: ModuleNotFoundError)."""

from __future__ import annotations

import tomllib

from tests.conftest import ROOT


def test_pyproject_lists_every_package():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(path.parent.relative_to(ROOT).parts)
             for top in ("migrate", "codemods") for path in (ROOT / top).rglob("__init__.py")}
    assert found <= listed, found - listed
