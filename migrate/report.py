"""The JSON report (`--report FILE.json`, schema in DESIGN.md) and the one-line summary."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from codemods.findings import TIERS
from migrate import __version__
from migrate.files import atomic_write
from migrate.runner import FileResult


def summary(results: list[FileResult]) -> dict:
    statuses = Counter(result.status for result in results)
    findings = [finding for result in results for finding in result.findings]
    migrated = sum(finding.migrated for finding in findings)
    tiers = Counter(tier.tier for result in results for tier in result.estimators)
    return {
        "files": len(results),
        "changed": statuses["changed"],
        "unchanged": statuses["unchanged"],
        "errors": statuses["error"],
        "skipped": statuses["skipped"],
        "findings": len(findings),
        "migrated": migrated,
        "manual": len(findings) - migrated,
        "estimators": {tier: tiers[tier] for tier in TIERS},
    }


def build_report(results: list[FileResult], target: str) -> dict:
    files = []
    for result in results:
        entry = {"path": result.file.relative, "status": result.status}
        if result.error is not None:
            entry["error" if result.status == "error" else "reason"] = result.error
        entry["findings"] = [finding.to_json() for finding in result.findings]
        if result.estimators:
            entry["estimators"] = [tier.to_json() for tier in result.estimators]
        files.append(entry)
    return {
        "version": 1,
        "tool": f"migrate {__version__}",
        "target": target,
        "files": files,
        "summary": summary(results),
    }


def write_report(path: Path, results: list[FileResult], target: str) -> None:
    text = json.dumps(build_report(results, target), indent=2) + "\n"
    atomic_write(path, text.encode("utf-8"))


def summary_line(results: list[FileResult], verb: str) -> str:
    s = summary(results)
    line = (
        f"{s['files']} files: {s['changed']} {verb}, {s['unchanged']} unchanged, {s['errors']} errors, "
        f"{s['skipped']} skipped; {s['findings']} findings: {s['migrated']} migrated, {s['manual']} manual"
    )
    if any(s["estimators"].values()):
        line += "; estimators: " + ", ".join(f"{count} {tier}" for tier, count in s["estimators"].items())
    return line
