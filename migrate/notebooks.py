"""Jupyter notebooks (.ipynb): the code cells are migrated as one module, everything else is kept.

A notebook's cells share one namespace (a RunConfig in one cell, the estimator in the next, `train` in a
third), so the code cells are joined into one module, each opened by a marker statement
`__migrate_cell__(N)`, and the result is split back at the markers. IPython syntax that is not Python
(`%magic`, `!shell` lines) is swapped for a placeholder statement with the same indentation and put back
afterwards; the statement after a timing magic (`%time`, `%timeit`) is migrated and the magic put back before it.
A cell that starts with a cell magic (`%%writefile`, `%%bash`, ...) is not Python at all and is left out,
but for the magics whose body is Python (`%%time`, `%%timeit`, `%%capture`, `%%prun`), which stay its first line. Markdown, raw cells, outputs, metadata and untouched cells stay as they were; the JSON is
written back with the indentation the file had (Jupyter's: one space), so a diff shows only the cells
that changed. Findings name the cell (1-based, counting every cell) and the line within it.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field, replace

import libcst as cst

from codemods.findings import EstimatorTier, Finding
from codemods.transformer import migrate_source

_CELL = "__migrate_cell__({})"
_MAGIC = "__migrate_magic__({})"
_CELL_LINE = re.compile(r"^__migrate_cell__\((\d+)\)$")
_MAGIC_LINE = re.compile(r"^(\s*)__migrate_magic__\((\d+)\)$")
_IPYTHON_LINE = re.compile(r"^\s*[%!]")
# Magics whose body is Python the kernel runs as it is: a cell under `%%time` (`%%timeit`, `%%capture`, `%%prun`), a
# statement after `%time` (`%timeit`, with its options). Their Python is migrated; the magic is put back around it.
_PYTHON_CELL_MAGIC = re.compile(r"^\s*%%(time|timeit|capture|prun)\b")
_TIMING_LINE = re.compile(r"^(\s*)(%(?:time|timeit|prun)(?:\s+-\w+(?:\s+\d+)?)*)\s+(\S.*)$")
_TIMED = "  # __migrate_timed__({})"
_TIMED_LINE = re.compile(r"^(.*?)  # __migrate_timed__\((\d+)\)$")


class NotebookError(Exception):
    """A notebook that cannot be migrated; the message says why, in one line."""


@dataclass
class NotebookResult:
    code: str
    findings: list[Finding]
    changed: bool
    estimators: list[EstimatorTier] = field(default_factory=list)


def migrate_notebook(text: str, target: str, exact: bool = False) -> NotebookResult:
    """Migrate the code cells of the notebook `text` (its JSON) for `target`."""
    notebook = _load(text)
    cells = notebook["cells"]
    python_cells = [i for i, cell in enumerate(cells) if _is_python(cell)]
    module, magics, cell_of_line = _join(cells, python_cells)
    try:
        result = migrate_source(module, target, exact)
    except cst.ParserSyntaxError as error:
        cell, line = cell_of_line[error.raw_line - 1] if 0 < error.raw_line <= len(cell_of_line) else (0, 0)
        raise NotebookError(f"cell {cell + 1}, line {line}: not valid Python 3: {error.message}") from error
    findings = [_in_cell(finding, cell_of_line) for finding in result.findings]
    tiers = [_in_cell(tier, cell_of_line) for tier in result.estimators]
    if not result.changed:
        return NotebookResult(text, findings, False, tiers)
    findings += _unpin_tensorflow_1(module, magics, cell_of_line)
    findings += _untimed(module, result.code, magics, cell_of_line)
    for index, lines in _split(result.code, magics).items():
        if lines != _trimmed(_source_lines(cells[index])):
            _check_migrated_syntax(index, lines)
            cells[index]["source"] = _as_source(lines)
    return NotebookResult(_dump(notebook, text), findings, True, tiers)


def _load(text: str) -> dict:
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotebookError(f"not a notebook: invalid JSON (line {error.lineno}: {error.msg})") from error
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise NotebookError("not a notebook: no list of cells (nbformat 4 is supported)")
    return notebook


def _is_python(cell: dict) -> bool:
    if cell.get("cell_type") != "code":
        return False
    lines = _source_lines(cell)
    first = next((line for line in lines if line.strip()), "")
    return not first.lstrip().startswith("%%") or bool(_PYTHON_CELL_MAGIC.match(first))


def _source_lines(cell: dict) -> list[str]:
    source = cell.get("source", "")
    text = "".join(source) if isinstance(source, list) else source
    return text.splitlines()


def _as_source(lines: list[str]) -> list[str]:
    """nbformat's form: a list of lines, each but the last ending in a newline."""
    return [line + "\n" for line in lines[:-1]] + lines[-1:]


def _join(cells: list[dict], python_cells: list[int]) -> tuple[str, list[str], list[tuple[int, int]]]:
    """The module, the IPython lines it replaced, and (cell index, line in cell) of each module line.

    Each cell is checked on its own first, so a syntax error is reported in the cell that has it.
    """
    module, magics, cell_of_line = [], [], []
    for index in python_cells:
        module.append(_CELL.format(index))
        cell_of_line.append((index, 0))
        lines = []
        for line in _source_lines(cells[index]):
            timed = _TIMING_LINE.match(line)
            if timed and _parses(timed.group(3)):  # `%time stmt` -> `stmt  # marker`: the statement is migrated
                lines.append(timed.group(1) + timed.group(3) + _TIMED.format(len(magics)))
                magics.append(timed.group(2))
            elif _IPYTHON_LINE.match(line):
                indent = line[: len(line) - len(line.lstrip())]
                lines.append(indent + _MAGIC.format(len(magics)))
                magics.append(line)
            else:
                lines.append(line)
        _check_syntax(index, "\n".join(lines))
        module.extend(lines)
        cell_of_line.extend((index, number) for number in range(1, len(lines) + 1))
    return "\n".join(module) + "\n", magics, cell_of_line


# Lines that chose TensorFlow 1.x for the notebook: Colab's `%tensorflow_version 1.x` (Colab has had only TensorFlow
# 2 since 2022: the magic fails there), and installs pinning TensorFlow below 2
_TF1_VERSION_MAGIC = re.compile(r"^\s*%tensorflow_version\s+1(\.|\s|$)")
_TF1_PIN = re.compile(r"^\s*[!%]\s*pip3?\s+install\b.*\btensorflow(-gpu|-cpu)?\s*(==\s*1\.|<\s*2\b|~=\s*1\.)")


def _unpin_tensorflow_1(module: str, magics: list[str], cell_of_line: list[tuple[int, int]]) -> list[Finding]:
    """In a migrated notebook, which runs on TensorFlow 2: `%tensorflow_version 1.x` made a `pass` with the magic as
    its comment, an install
    pinning TensorFlow 1.x kept with a TODO (the user's environment: install TensorFlow 2 and tf-keras instead).
    `magics` is changed in place; the findings say where, by cell."""
    findings = []
    for number, line in enumerate(module.splitlines(), start=1):
        placeholder = _MAGIC_LINE.match(line)
        if placeholder is None:
            continue
        index = int(placeholder.group(2))
        magic = magics[index]
        indent = magic[: len(magic) - len(magic.lstrip())]
        if _TF1_VERSION_MAGIC.match(magic):
            # (a statement, not a comment: the magic may be a block's only line, as in `try: %tensorflow_version 1.x`)
            magics[index] = f"{indent}pass  # {magic.strip()}: TensorFlow 2 runs the migrated code (Colab has no 1.x)"
            findings.append(Finding("tensorflow-version", number, len(indent), True,
                                    "%tensorflow_version 1.x commented out: the migrated code runs on TensorFlow 2"))
        elif _TF1_PIN.match(magic) and "TODO(migrate)" not in magic:
            message = ("installs TensorFlow 1.x: the migrated notebook runs on TensorFlow 2 with tf-keras (and "
                       "estimator_migrate's compat package); install those instead")
            magics[index] = f"{magic.rstrip()}  # TODO(migrate): {message}"
            findings.append(Finding("tensorflow-version", number, len(indent), False, message))
    return [_in_cell(finding, cell_of_line) for finding in findings]


def _untimed(module: str, migrated: str, magics: list[str], cell_of_line: list[tuple[int, int]]) -> list[Finding]:
    """A note for each timing magic whose statement the rewrite replaced with several (tier 1's inline `fit` for a
    `train` call): the statements run, untimed."""
    kept = {int(timed.group(2)) for timed in map(_TIMED_LINE.match, migrated.splitlines()) if timed}
    findings = []
    for number, line in enumerate(module.splitlines(), start=1):
        timed = _TIMED_LINE.match(line)
        if timed and int(timed.group(2)) not in kept:
            magic = magics[int(timed.group(2))]
            findings.append(Finding("notebook-magic", number, 0, True, f"{magic} left out: the rewrite replaced its "
                                    "statement with several, which run untimed; time the cell with %%time"))
    return [_in_cell(finding, cell_of_line) for finding in findings]


def _check_syntax(index: int, code: str) -> None:
    try:
        compile(code, f"cell {index + 1}", "exec", ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except SyntaxError as error:
        raise NotebookError(f"cell {index + 1}, line {error.lineno}: not valid Python 3: {error.msg}") from error


def _check_migrated_syntax(index: int, lines: list[str]) -> None:
    """A migrated cell runs by itself in IPython: it must compile alone (a `from __future__` import first)."""
    placeheld = [line[: len(line) - len(line.lstrip())] + "pass" if _IPYTHON_LINE.match(line) else line for line in lines]
    try:
        # compiled to bytecode: the parser alone (PyCF_ONLY_AST) lets a misplaced `from __future__` import pass
        compile("\n".join(placeheld), f"cell {index + 1}", "exec", ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except SyntaxError as error:
        raise NotebookError(f"cell {index + 1}, line {error.lineno}: the migrated cell would not be valid Python "
                            f"({error.msg}); the notebook is left as it was") from error


def _split(code: str, magics: list[str]) -> dict[int, list[str]]:
    """Cell index -> its lines, from the migrated module. Lines before the first marker are imports the
    rewrite added (LibCST puts them at the top of the module, before the first cell's marker)."""
    cells: dict[int, list[str]] = {}
    preamble: list[str] = []
    current = preamble
    for line in code.splitlines():
        marker = _CELL_LINE.match(line)
        if marker:
            current = cells.setdefault(int(marker.group(1)), [])
            continue
        magic = _MAGIC_LINE.match(line)
        current.append(magics[int(magic.group(2))] if magic else _timed(line, magics))
    _place_imports(cells, preamble)
    return {index: _trimmed(lines) for index, lines in cells.items()}


def _parses(statement: str) -> bool:
    try:
        ast.parse(statement)
        return True
    except SyntaxError:
        return False


def _timed(line: str, magics: list[str]) -> str:
    """A migrated line that had a timing magic (`_TIMED`): the magic put back before it, when the line is still
    the statement whole; a statement the rewrite spread over lines runs untimed, and says so."""
    timed = _TIMED_LINE.match(line)
    if not timed:
        return line
    code, magic = timed.group(1), magics[int(timed.group(2))]
    indent = code[: len(code) - len(code.lstrip())]
    if _parses(code.strip()):
        return f"{indent}{magic} {code.lstrip()}"
    return f"{code}  # ({magic} left out: the migrated statement spans several lines; time the cell with %%time)"


def _place_imports(cells: dict[int, list[str]], imports: list[str]) -> None:
    """Put the added imports at the top of the first cell that imports anything (else the first code
    cell), leaving out those a cell already has: the rewrite only sees the module's first import block."""
    present = {line for lines in cells.values() for line in lines if line.strip()}
    kept: list[str] = []
    for line in imports:  # the blank lines between groups kept, one at most, none at either end
        if line.strip() and line not in present:
            kept.append(line)
        elif not line.strip() and kept and kept[-1].strip():
            kept.append("")
    imports = kept[:-1] if kept and not kept[-1].strip() else kept
    if not imports or not cells:
        return
    importing = [i for i, lines in sorted(cells.items()) if any(_is_import(line) for line in lines)]
    target = importing[0] if importing else min(cells)
    lines = cells[target]
    at = _after_future_imports(lines)
    if lines and _PYTHON_CELL_MAGIC.match(lines[0]):
        at = max(at, 1)  # a cell magic opens its cell
    rest = lines[at:]
    before = [""] if at and rest and not rest[0].strip() else []  # the blank line after the future imports
    cells[target] = [*lines[:at], *before, *imports,
                     *([""] if rest and rest[0].strip() and not _is_import(rest[0]) else []), *rest]


def _after_future_imports(lines: list[str]) -> int:
    """The index of the line after a cell's `from __future__` imports (0 without): they must open the cell."""
    end = 0
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("from __future__ import"):
            if "(" in line:  # a parenthesized list runs to its closing line
                while ")" not in lines[index] and index + 1 < len(lines):
                    index += 1
            end = index + 1
        elif line.strip() and not line.lstrip().startswith("#") and end:
            break
        index += 1
    return end


def _is_import(line: str) -> bool:
    return line.startswith(("import ", "from "))


def _trimmed(lines: list[str]) -> list[str]:
    """Without trailing blank lines (the joined module may add or drop some between cells)."""
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    return lines[:end]


def _in_cell(finding: Finding | EstimatorTier, cell_of_line: list[tuple[int, int]]) -> Finding | EstimatorTier:
    cell, line = cell_of_line[finding.line - 1]
    return replace(finding, line=line, cell=cell + 1)


def _dump(notebook: dict, original: str) -> str:
    """JSON with the original's indentation (Jupyter writes one space) and final newline."""
    second = original.split("\n", 2)[1] if original.count("\n") >= 1 else ""
    indent = len(second) - len(second.lstrip(" ")) or 1
    text = json.dumps(notebook, indent=indent, ensure_ascii=False)
    return text + "\n" if original.endswith("\n") else text
