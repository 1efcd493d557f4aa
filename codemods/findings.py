"""What a migration found: one `Finding` per construct, migrated or left for a person."""

from __future__ import annotations

from dataclasses import asdict, dataclass

TODO_MARKER = "# TODO(migrate): "


@dataclass(frozen=True)
class Finding:
    rule: str
    line: int  # 1-based, in the input file
    col: int  # 0-based, as LibCST and most editors' APIs count
    migrated: bool
    message: str
    cell: int | None = None  # notebooks: the cell (1-based, every cell counted); `line` is then in the cell

    def to_json(self) -> dict:
        entry = asdict(self)
        if self.cell is None:
            del entry["cell"]
        return entry


def todo_comment(rule: str, message: str) -> str:
    """The inline comment left on a construct that must be migrated by hand."""
    text = " ".join(message.split())
    return f"{TODO_MARKER}{rule}: {text}"
