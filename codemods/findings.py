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


# What an estimator became (the report's estimator view; docs/migration.md, "Tiers"): tier 1, rewritten to a Keras
# model's fit or a loop; the run-time linked tier (compat.estimator_training over compat.canned); its model_fn kept
# as written and wrapped (tier 2); kept TF1, with its TODOs
TIERS = ("rewritten", "run-time", "wrapped", "kept")


@dataclass(frozen=True)
class EstimatorTier:
    """The tier one estimator constructor got, where it is, and (kept) why."""

    constructor: str  # the estimator class's name, as TensorFlow names it: "LinearClassifier"
    tier: str  # one of TIERS
    line: int
    col: int
    reasons: tuple[str, ...] = ()
    cell: int | None = None

    def to_json(self) -> dict:
        entry = {"constructor": self.constructor, "tier": self.tier, "line": self.line, "col": self.col}
        if self.cell is not None:
            entry["cell"] = self.cell
        if self.reasons:
            entry["reasons"] = list(self.reasons)
        return entry


def todo_comment(rule: str, message: str) -> str:
    """The inline comment left on a construct that must be migrated by hand."""
    text = " ".join(message.split())
    return f"{TODO_MARKER}{rule}: {text}"
