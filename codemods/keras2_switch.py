"""Sets TF_USE_LEGACY_KERAS before a migrated module first imports TensorFlow.

The program was written for TensorFlow <= 2.15, where `tf.keras` (and `tf.compat.v1.layers` on top of it) was
Keras 2. TensorFlow >= 2.16 gives Keras 2 only as tf_keras, when TF_USE_LEGACY_KERAS is set before its import;
without it `import tensorflow` also imports Keras 3 (measured: 3 s of a 7.5 s start here), which a migrated
program never uses. `os.environ.setdefault` leaves a value the user set alone.
"""

from __future__ import annotations

import libcst as cst

SWITCH = "TF_USE_LEGACY_KERAS"
# Importing any of these imports TensorFlow (the runtime package does, on its first line).
_TENSORFLOW_IMPORTING = ("tensorflow", "tf_keras", "estimator_migrate")


def set_before_tensorflow(module: cst.Module, source: str) -> cst.Module:
    """`module` with `os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")` (and `import os`, unless imported
    already) just before its first top-level statement that imports TensorFlow; unchanged when no top-level
    statement does, or when `source` names the switch itself (the program chose)."""
    if SWITCH in source:
        return module
    body = list(module.body)
    first = next((i for i, statement in enumerate(body) if _imports_tensorflow(statement)), None)
    if first is None:
        return module
    config = module.config_for_parsing
    lines = [cst.parse_statement(f'os.environ.setdefault("{SWITCH}", "1")  # tf.keras as the program had it: Keras 2\n',
                                 config)]
    if not any(_is_import_os(statement) for statement in body[:first]):
        later = next((i for i in range(first + 1, len(body)) if _is_import_os(body[i])), None)
        if later is None:
            lines.insert(0, cst.parse_statement("import os\n", config))
        else:  # moved up, with its comments: the module keeps one `import os`
            moved = body.pop(later)
            lines.insert(0, moved.with_changes(leading_lines=[line for line in moved.leading_lines if line.comment]))
    anchor = body[first]
    lines[0] = lines[0].with_changes(leading_lines=[*anchor.leading_lines, *lines[0].leading_lines])
    body[first:first + 1] = [*lines, anchor.with_changes(leading_lines=())]
    return module.with_changes(body=body)


def _imports_tensorflow(statement: cst.BaseStatement) -> bool:
    """Whether running `statement` at module level imports TensorFlow (function and class bodies do not run)."""
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        return False
    found = _FindsTensorflowImport()
    statement.visit(found)
    return found.found


class _FindsTensorflowImport(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Import(self, node: cst.Import) -> bool:
        self.found |= any(_is_tensorflow(cst.helpers.get_full_name_for_node(a.name)) for a in node.names)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if not node.relative and node.module is not None:
            self.found |= _is_tensorflow(cst.helpers.get_full_name_for_node(node.module))
        return False


def _is_tensorflow(module_name: str | None) -> bool:
    return module_name is not None and module_name.split(".")[0] in _TENSORFLOW_IMPORTING


def _is_import_os(statement: cst.BaseStatement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Import)
        and len(statement.body[0].names) == 1
        and statement.body[0].names[0].asname is None
        and cst.helpers.get_full_name_for_node(statement.body[0].names[0].name) == "os"
    )
