"""docs/checkpoints.md's slot table states what compat/optimizer_state.py does; this keeps them equal."""

from __future__ import annotations

import re

from compat.optimizer_state import V1_SLOTS, V2_SLOTS
from tests.conftest import ROOT


def slot_table() -> list[list[str]]:
    text = (ROOT / "docs" / "checkpoints.md").read_text()
    table = text.split("| optimizer | v1 slot(s) |", 1)[1].split("\n\n", 1)[0]
    rows = [line.split("|")[1:-1] for line in table.splitlines()[2:]]
    return [[cell.strip() for cell in row] for row in rows]


def names(cell: str) -> list[str]:
    """The slot names of a cell: backticked words, without the bracketed remarks."""
    return re.findall(r"`([A-Za-z_0-9]+)`", re.sub(r"\(.*?\)", "", cell))


def test_slot_table_matches_the_code():
    v1, v2 = {}, {}
    for optimizer, v1_cell, v2_cell, keras_cell, _ in slot_table():
        keras = names(keras_cell)
        for slot, keras_slot in zip(names(v1_cell), keras, strict=False):
            v1[slot] = (optimizer, keras_slot)
        for slot, keras_slot in zip(names(v2_cell), keras, strict=False):
            v2[slot] = keras_slot
    assert v1 == V1_SLOTS
    assert v2 == V2_SLOTS
