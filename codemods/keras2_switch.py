"""Sets TF_USE_LEGACY_KERAS first in a migrated module, before anything imports TensorFlow.

The program was written for TensorFlow <= 2.15, where `tf.keras` (and `tf.compat.v1.layers` on top of it) was
Keras 2. TensorFlow >= 2.16 gives Keras 2 only as tf_keras, when TF_USE_LEGACY_KERAS is set before its import;
without it `import tensorflow` also imports Keras 3 (measured: 3 s of a 7.5 s start here), which a migrated
program never uses. `os.environ.setdefault` leaves a value the user set alone.
"""

from __future__ import annotations

import libcst as cst

from codemods.findings import TODO_MARKER
from codemods.imports import is_docstring_or_strict, is_future, is_single_import

SWITCH = "TF_USE_LEGACY_KERAS"


def set_before_tensorflow(module: cst.Module, source: str) -> cst.Module:
    """`module` with `os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")` (and `import os`) right after its
    docstring and `__future__` imports, before any import (a sibling module imported first may import TensorFlow);
    unchanged when `source` names the switch itself (the program chose)."""
    if SWITCH in source:
        return module
    body = list(module.body)
    first = 1 if body and is_docstring_or_strict(body[0]) else 0
    while first < len(body) and is_single_import(body[first]) and is_future(body[first].body[0]):
        first += 1
    config = module.config_for_parsing
    switch = f'os.environ.setdefault("{SWITCH}", "1")  # tf.keras as the program had it: Keras 2\n'
    lines = [cst.parse_statement(switch, config).with_changes(leading_lines=[cst.EmptyLine()])]  # isort's blank line
    later = next((i for i in range(first, len(body)) if _is_import_os(body[i])), None)
    if later is None:
        lines.insert(0, cst.parse_statement("import os\n", config))
    else:  # moved up, with its comments: the module keeps one `import os`
        moved = body.pop(later)
        lines.insert(0, moved.with_changes(leading_lines=[line for line in moved.leading_lines if line.comment]))
    if first < len(body) and any(line.comment for line in body[first].leading_lines):
        # The comments above the first statement (a licence, a header) stay first; its own TODOs stay on it.
        anchor = body[first]
        header = list(anchor.leading_lines)
        own = []
        while header and header[-1].comment is not None and header[-1].comment.value.startswith(TODO_MARKER.strip()):
            own.insert(0, header.pop())
        lines[0] = lines[0].with_changes(leading_lines=[*header, *lines[0].leading_lines])
        body[first] = anchor.with_changes(leading_lines=own)
    body[first:first] = lines
    return module.with_changes(body=body)


def _is_import_os(statement: cst.BaseStatement) -> bool:
    return (
        is_single_import(statement)
        and isinstance(statement.body[0], cst.Import)
        and len(statement.body[0].names) == 1
        and statement.body[0].names[0].asname is None
        and cst.helpers.get_full_name_for_node(statement.body[0].names[0].name) == "os"
    )
