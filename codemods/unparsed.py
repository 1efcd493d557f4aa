"""TODO marks in a module the rewrite cannot parse, as Python 3 or as Python 2 (codemods/python2.py converts
the latter).

Such a module is not rewritten, but its training constructs are not left in silence either: each statement
that builds or runs an estimator, a RunConfig, a hook or a TF1 training session gets a `TODO(migrate)`
comment above it, found on the token stream up to where it breaks. Comments
change nothing the module does; the marks are made once (a module marked already is left as it is).
"""

from __future__ import annotations

import io
import tokenize

from codemods.canned_estimators import CANNED
from codemods.findings import Finding
from codemods.guidance import GUIDANCE
from codemods.runtime_tier import ESTIMATOR_METHODS

RULE = "unparsed"
MESSAGE = (
    "kept: this module parses neither as Python 3 nor as Python 2, so this is not rewritten; fix its syntax "
    "error and run migrate again"
)
COMMENT = f"# TODO(migrate): {RULE}: {MESSAGE}"
_CONSTRUCTS = frozenset(
    {path.rsplit(".", 1)[-1] for path in (*CANNED, *GUIDANCE)}
    | {"RunConfig", "train_and_evaluate", "TrainSpec", "EvalSpec", "SessionRunHook"}
)
_INPUT_KEYWORDS = frozenset(ESTIMATOR_METHODS.values())


def mark_unparsed(source: str) -> tuple[str, list[Finding]]:
    """`source` with a TODO above each statement naming a training construct (unless one is there already),
    and a finding for each (at its line in `source`)."""
    lines = source.splitlines(keepends=True)
    statements = _construct_statements(source)
    for line, col in reversed(statements):
        if not _marked(lines, line):
            indent = lines[line - 1][:col]
            newline = "\r\n" if lines[line - 1].endswith("\r\n") else "\n"
            lines.insert(line - 1, f"{indent}{COMMENT}{newline}")
    findings = [Finding(RULE, line, col, False, MESSAGE) for line, col in statements]
    return "".join(lines), findings


def _marked(lines: list[str], line: int) -> bool:
    return line >= 2 and lines[line - 2].strip() == COMMENT


def _construct_statements(source: str) -> list[tuple[int, int]]:
    """(line, column) where each logical line naming a construct starts; up to where tokenizing stops."""
    found = []
    statement: list[tokenize.TokenInfo] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT) and not statement:
                continue
            if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                if statement and _names_a_construct(statement):
                    found.append(statement[0].start)
                statement = []
                continue
            statement.append(token)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # marks up to the point the tokenizer read
    return found


def _names_a_construct(tokens: list[tokenize.TokenInfo]) -> bool:
    names = {token.string for token in tokens if token.type == tokenize.NAME}
    for index, token in enumerate(tokens[:-1]):
        if token.type != tokenize.NAME or tokens[index + 1].string != "(":
            continue
        if token.string in _CONSTRUCTS or token.string.endswith("Estimator"):
            return True
        after_dot = index > 0 and tokens[index - 1].string == "."
        if after_dot and token.string in ESTIMATOR_METHODS and names & _INPUT_KEYWORDS:
            return True
    return tokens[0].string == "class" and "SessionRunHook" in names
