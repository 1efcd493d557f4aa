"""docs/migration.md's construct -> output table is the one in mapping_table.py, and each row's fixture
really emits what the row says (the strings it names appear in that fixture's expected outputs)."""

from __future__ import annotations

import pytest

from tests.codemods.mapping_table import BEGIN, DOC, END, ROWS, render
from tests.codemods.test_fixtures import FIXTURES, expected_name


def test_the_docs_hold_the_generated_table():
    text = DOC.read_text()
    assert f"{BEGIN}\n{render()}\n{END}" in text, "run: python -m tests.codemods.mapping_table"


@pytest.mark.parametrize("row", ROWS, ids=[f"{i}-{row.fixture}" for i, row in enumerate(ROWS)])
def test_each_row_is_what_its_fixture_emits(row):
    case = FIXTURES / row.fixture
    assert row.keras_shows or row.construct.startswith("`RunConfig(session_config"), "a row must show something"
    for target, shows in (("keras", row.keras_shows), ("loop", row.loop_shows)):
        output = (case / expected_name(target, row.exact)).read_text()
        for text in shows:
            assert text in output, f"{row.fixture}/{expected_name(target, row.exact)} lacks {text!r}"
