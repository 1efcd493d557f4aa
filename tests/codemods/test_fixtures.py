"""Input/expected pairs for every codemod, both targets, with the no-op cases listed as carefully.

Each case is a directory under tests/codemods/fixtures/<case>/ holding `input.py` and `keras.py` and/or
`loop.py` (the expected output for that target). A case without expected files must come out unchanged.
Regenerate an expected file only after reading its diff: `python -m tests.codemods.regenerate CASE`.
"""

from pathlib import Path

import libcst as cst
import pytest

from codemods.transformer import migrate_source

FIXTURES = Path(__file__).parent / "fixtures"
CASES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())


def _targets(case):
    return [(case, target) for target in ("keras", "loop")]


@pytest.mark.parametrize(("case", "target"), [pair for case in CASES for pair in _targets(case)])
def test_fixture(case, target):
    source = (FIXTURES / case / "input.py").read_text()
    expected_file = FIXTURES / case / f"{target}.py"
    expected = expected_file.read_text() if expected_file.exists() else source
    result = migrate_source(source, target)
    assert result.code == expected
    cst.parse_module(result.code)


@pytest.mark.parametrize(("case", "target"), [pair for case in CASES for pair in _targets(case)])
def test_second_run_changes_nothing(case, target):
    once = migrate_source((FIXTURES / case / "input.py").read_text(), target).code
    twice = migrate_source(once, target)
    assert twice.code == once
    assert all(not finding.migrated for finding in twice.findings)
