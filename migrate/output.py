"""How `scan` and `rewrite` show their findings (`--output-format`).

- text: `path:line:col: rule [migrated|manual] message`; `scan` lists every finding on stdout, `rewrite` only
  what needs a person, on stderr (stdout stays free for `--diff`);
- json: one JSON object per line on stdout: a file's `{"path", "status"}` (with `error` when it failed, `reason`
  when it was skipped) unless it is unchanged, then each finding's report entry (DESIGN.md) with its `path`;
- github: GitHub Actions workflow commands on stdout, which the Actions log turns into annotations on the
  pull request's files: `::warning` for what needs a person, `::error` for a file that failed or that
  `rewrite --check` would change, `::notice` for what `scan` would migrate.
"""

from __future__ import annotations

import json
import sys

from codemods.findings import Finding
from migrate.runner import FileResult

FORMATS = ("text", "json", "github")


def print_findings(result: FileResult, output_format: str, everything: bool, checking: bool = False) -> None:
    """The findings of one file (`everything`: also those migrated, as `scan` lists them; `checking`: for
    `rewrite --check`, where a file that would change fails the check)."""
    findings = [finding for finding in result.findings if everything or not finding.migrated]
    if output_format == "json":
        _json_lines(result, findings)
    elif output_format == "github":
        _github(result, findings, checking)
    else:
        _text(result, findings, everything)


def _text(result: FileResult, findings: list[Finding], everything: bool) -> None:
    if result.status in ("error", "skipped"):
        print(f"{result.file.path}: {result.status}: {result.error}", file=sys.stderr)
    for finding in findings:
        kind = "migrated" if finding.migrated else "manual"
        cell = f"cell {finding.cell}:" if finding.cell is not None else ""
        print(
            f"{result.file.path}:{cell}{finding.line}:{finding.col + 1}: {finding.rule} [{kind}] {finding.message}",
            file=sys.stdout if everything else sys.stderr,
        )


def _json_lines(result: FileResult, findings: list[Finding]) -> None:
    path = str(result.file.path)
    if result.status != "unchanged":
        status = {"path": path, "status": result.status}
        if result.error is not None:  # named as in the JSON report
            status["error" if result.status == "error" else "reason"] = result.error
        print(json.dumps(status))
    for finding in findings:
        print(json.dumps({"path": path, **finding.to_json()}))


def _github(result: FileResult, findings: list[Finding], checking: bool) -> None:
    path = _property(str(result.file.path))
    if result.status == "error":
        print(f"::error file={path},title=migrate::{_data(result.error or 'failed')}")
    elif result.status == "changed" and checking:
        print(f"::error file={path},title=migrate::TensorFlow 1 code that `migrate rewrite` migrates: run it on this file")
    for finding in findings:
        level = "notice" if finding.migrated else "warning"
        # A notebook's line is a line of its cell, which GitHub cannot point at: the annotation goes on the file.
        where = f",line={finding.line},col={finding.col + 1}" if finding.cell is None else ""
        cell = f"cell {finding.cell}, line {finding.line}: " if finding.cell is not None else ""
        title = _property(f"migrate {finding.rule}")
        print(f"::{level} file={path}{where},title={title}::{_data(cell + finding.message)}")


def _data(text: str) -> str:
    """A workflow command's message, escaped as GitHub's runner unescapes it."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    """A workflow command's property value (file, title), escaped as GitHub's runner unescapes it."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")
