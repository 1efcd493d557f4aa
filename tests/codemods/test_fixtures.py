"""Input/expected pairs for every codemod, both targets, with the no-op cases listed as carefully.

Each case is a directory under tests/codemods/fixtures/<case>/ holding `input.py` and `keras.py` and/or
`loop.py` (the expected output for that target). A case without expected files must come out unchanged.
Cases with `keras_exact.py` / `loop_exact.py` are also checked with `--exact` (exact resume).
Regenerate an expected file only after reading its diff: `python -m tests.codemods.regenerate CASE`.
"""

import json
import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest

from codemods.transformer import migrate_source

FIXTURES = Path(__file__).parent / "fixtures"
CASES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())


def variants(case):
    """(case, target, exact) triples; exact only where the case has exact expectations."""
    exact = any((FIXTURES / case / f"{target}_exact.py").exists() for target in ("keras", "loop"))
    return [(case, target, mode) for target in ("keras", "loop") for mode in ((False, True) if exact else (False,))]


VARIANTS = [variant for case in CASES for variant in variants(case)]


def expected_name(target: str, exact: bool) -> str:
    return f"{target}_exact.py" if exact else f"{target}.py"


@pytest.mark.parametrize(("case", "target", "exact"), VARIANTS)
def test_fixture(case, target, exact):
    source = (FIXTURES / case / "input.py").read_text()
    expected_file = FIXTURES / case / expected_name(target, exact)
    expected = expected_file.read_text() if expected_file.exists() else source
    result = migrate_source(source, target, exact)
    assert result.code == expected
    cst.parse_module(result.code)


@pytest.mark.parametrize(("case", "target", "exact"), VARIANTS)
def test_second_run_changes_nothing(case, target, exact):
    once = migrate_source((FIXTURES / case / "input.py").read_text(), target, exact).code
    twice = migrate_source(once, target, exact)
    assert twice.code == once
    assert all(not finding.migrated for finding in twice.findings)


def ruff_unsorted(paths: list[Path]) -> set[Path]:
    """Those of `paths` in which ruff's isort rules (its defaults) find an import block out of order."""
    completed = subprocess.run(
        [Path(sys.executable).parent / "ruff", "check", "--isolated", "--no-cache", "--select", "I",
         "--output-format", "json", *paths], capture_output=True, text=True,
    )
    return {Path(finding["filename"]) for finding in json.loads(completed.stdout)}


def test_outputs_of_sorted_inputs_pass_ruffs_import_order():
    inputs = [FIXTURES / case / "input.py" for case in CASES]
    sorted_cases = [path.parent for path in inputs if path.resolve() not in ruff_unsorted(inputs)]
    assert len(sorted_cases) > 100
    outputs = [path for case in sorted_cases for path in case.glob("*.py") if path.name != "input.py"]
    assert len(outputs) > 200
    assert ruff_unsorted(outputs) == set()
