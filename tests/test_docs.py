"""docs/checkpoints.md's slot table states what compat/optimizer_state.py does; this keeps them equal."""

from __future__ import annotations

import re

from estimator_migrate.compat.optimizer_state import (
    V1_SLOTS,
    V2_RMSPROP_SLOTS,
    V2_SLOTS,
    v1_keras_slot,
    v2_keras_slot,
)
from tests.conftest import ROOT

V2_SCOPES = {"Momentum": "SGD", "RMSProp": "RMSprop"}  # the Keras optimizer scope of each kind


def slot_table() -> list[list[str]]:
    text = (ROOT / "docs" / "checkpoints.md").read_text()
    table = text.split("| optimizer | v1 slot(s) |", 1)[1].split("\n\n", 1)[0]
    rows = [line.split("|")[1:-1] for line in table.splitlines()[2:]]
    return [[cell.strip() for cell in row] for row in rows]


def names(cell: str) -> list[str]:
    """The slot names of a cell: backticked words, without the bracketed remarks."""
    return re.findall(r"`([A-Za-z_0-9]+)`", re.sub(r"\(.*?\)", "", cell))


def test_slot_table_matches_the_code():
    """Each row's legacy slots become the tf_keras slots it names, by the code's own functions, and the
    table names every slot the code knows."""
    v1_documented, v2_documented = set(), {}
    for optimizer, v1_cell, v2_cell, keras_cell, _ in slot_table():
        kind = optimizer.split(",")[0]
        keras, v1_slots = names(keras_cell), names(v1_cell)
        row_names = {f"w/{slot}" for slot in v1_slots}
        for slot, keras_slot in zip(v1_slots, keras, strict=False):
            assert V1_SLOTS[slot][0] == kind and v1_keras_slot(f"w/{slot}", slot, row_names) == keras_slot, slot
            v1_documented.add(slot)
        scope = V2_SCOPES.get(kind, kind)
        for slot, keras_slot in zip(names(v2_cell), keras, strict=False):
            assert v2_keras_slot(scope, slot) == keras_slot, (optimizer, slot)
            v2_documented.setdefault(scope == "RMSprop", set()).add(slot)
    assert v1_documented == set(V1_SLOTS)
    assert v2_documented == {False: set(V2_SLOTS), True: set(V2_RMSPROP_SLOTS)}
