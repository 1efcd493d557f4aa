"""Adds the imports the migrated code needs to the module's leading import block, and removes the
module-level imports the rewrite left unused.

The output is what LibCST's AddImportsVisitor writes (the first versions ran it): a needed name already
imported there is not imported again; `from m import x` joins an existing `from m import ...` of that
block (new names first, sorted); the rest follows the block: `import m` sorted, `import m as a` in the
order asked, then `from m import ...` by module, names sorted; the first statement after the block gets
an empty line before it. Written here because AddImportsVisitor walks the whole tree and sets up its
matcher dispatch per instance, which cost a quarter of an Estimator program's rewrite (measured:
bench/rewrite_throughput.py), for a block that is a few lines long.
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass

import libcst as cst

from codemods.syntax import name_counts

# The package migrated programs import the runtime from. This project's `compat/` directory, installed under
# the distribution's own name (pyproject.toml's package-dir): `compat` alone is one of the most common module
# names in Python projects, and a program next to its own compat.py would import that one.
RUNTIME_PACKAGE = "estimator_migrate.compat"


@dataclass(frozen=True)
class NeededImport:
    module: str
    obj: str | None = None  # `from module import obj`; None for `import module`
    asname: str | None = None  # `import module as asname` (the rewrite never aliases a from-import)


def add_imports(module: cst.Module, needed: list[NeededImport]) -> cst.Module:
    """`module` with `needed` imported at the end of its leading import block (after a docstring), or of the
    import block holding its TensorFlow import when code runs before that (the runtime imports TensorFlow: a
    program setting TensorFlow's environment variables first keeps them in effect)."""
    start = 1 if module.body and is_docstring_or_strict(module.body[0]) else 0
    end = import_block_end(module)
    block = [statement.body[0] for statement in module.body[start:end] if is_single_import(statement)]
    plain, aliased, from_names = _missing(needed, block)
    if not (plain or aliased or from_names):
        return module
    header = list(module.body[:end])
    for index in range(start, end):  # join existing `from m import ...` statements
        statement = header[index]
        if not is_single_import(statement):
            continue
        node = statement.body[0]
        if (
            isinstance(node, cst.ImportFrom)
            and not node.relative
            and not isinstance(node.names, cst.ImportStar)
        ):
            names = from_names.pop(cst.helpers.get_full_name_for_node(node.module), None)
            if names:
                joined = node.with_changes(
                    names=[*(cst.ImportAlias(cst.Name(name)) for name in sorted(names)), *node.names]
                )
                header[index] = statement.with_changes(body=[joined])
    config = module.config_for_parsing
    added = [
        *(cst.parse_statement(f"import {name}", config) for name in sorted(plain)),
        *(cst.parse_statement(f"import {name} as {asname}", config) for name, asname in aliased.items()),
        *(
            cst.parse_statement(f"from {name} import {', '.join(sorted(objs))}", config)
            for name, objs in sorted(from_names.items())
        ),
    ]
    rest = list(module.body[end:])
    if rest and not rest[0].leading_lines:
        rest[0] = rest[0].with_changes(leading_lines=(cst.EmptyLine(),))
    elif rest and rest[0].leading_lines[0].comment is not None:
        rest[0] = rest[0].with_changes(leading_lines=(cst.EmptyLine(), *rest[0].leading_lines))
    return module.with_changes(body=[*header, *added, *rest])


def _missing(
    needed: list[NeededImport], block: list[cst.Import | cst.ImportFrom]
) -> tuple[set[str], dict[str, str], dict[str, set[str]]]:
    """What `block` does not import yet: plain modules, aliased modules, from-imported names by module."""
    plain = {imp.module for imp in needed if imp.obj is None and imp.asname is None}
    aliased = {imp.module: imp.asname for imp in needed if imp.obj is None and imp.asname is not None}
    from_names: dict[str, set[str]] = {}
    for imp in needed:
        if imp.obj is not None:
            from_names.setdefault(imp.module, set()).add(imp.obj)
    for node in block:
        if isinstance(node, cst.Import):
            for alias in node.names:
                name = cst.helpers.get_full_name_for_node(alias.name)
                if alias.asname is None:
                    plain.discard(name)
                elif aliased.get(name) == alias.asname.name.value:
                    del aliased[name]
        elif not node.relative:
            name = cst.helpers.get_full_name_for_node(node.module)
            if name not in from_names:
                continue
            if isinstance(node.names, cst.ImportStar):
                del from_names[name]
                continue
            from_names[name] -= {alias.name.value for alias in node.names if alias.asname is None}
            if not from_names[name]:
                del from_names[name]
    return plain, aliased, from_names


def import_block_end(module: cst.Module) -> int:
    """The index after the import block the added imports go to: the leading one (after a docstring), or the
    one holding the module's TensorFlow import when code runs before that."""
    start = 1 if module.body and is_docstring_or_strict(module.body[0]) else 0
    end = _block_end(module.body, start)
    if not any(_imports_tensorflow(statement) for statement in module.body[start:end]):
        later = next((i for i in range(end, len(module.body)) if _imports_tensorflow(module.body[i])), None)
        if later is not None:
            end = _block_end(module.body, later)
    return end


def _block_end(body: list[cst.BaseStatement], start: int) -> int:
    """The index after the run of single-import statements starting at `start`."""
    end = start
    while end < len(body) and is_single_import(body[end]):
        end += 1
    return end


def _imports_tensorflow(statement: cst.CSTNode) -> bool:
    if not is_single_import(statement):
        return False
    node = statement.body[0]
    if isinstance(node, cst.Import):
        names = [cst.helpers.get_full_name_for_node(alias.name) for alias in node.names]
    else:
        names = [] if node.relative or node.module is None else [cst.helpers.get_full_name_for_node(node.module)]
    return any(name.split(".")[0] in ("tensorflow", "tf_keras") for name in names)


def is_single_import(statement: cst.CSTNode) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], (cst.Import, cst.ImportFrom))
    )


def is_docstring_or_strict(statement: cst.CSTNode) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    if isinstance(small, cst.Expr):
        return isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString))
    return (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and small.targets[0].target.value == "__strict__"
    )


def remove_unused_imports(
    original: cst.Module, rewritten: cst.Module, original_code: str | None = None, used_after: Counter | None = None
) -> cst.Module:
    """`rewritten` without the module-level imported names that `original` used and `rewritten` no longer
    does: a `from tensorflow import estimator` left behind fails to import on TensorFlow >= 2.16. Imports
    the original did not use either are the program's business and stay. `original_code`: the original's
    source, whose names are then counted only if some import became unused (`names_used`); `used_after`: the
    rewritten module's names, when the caller has counted them."""
    imports = [s for s in rewritten.body if is_single_import(s) and not is_future(s.body[0])]
    imports = [s for s in imports if not isinstance(s.body[0].names, cst.ImportStar)]
    if rewritten is original or not imports:
        return rewritten
    used_after = used_after if used_after is not None else _uses(rewritten)
    unused = {_bound(s.body[0], a) for s in imports for a in s.body[0].names} - set(used_after)
    if not unused:
        return rewritten
    used_before = names_used(original_code) if original_code is not None else None
    used_before = used_before if used_before is not None else _uses(original)
    removable = {name for name in unused if used_before.get(name)}
    if not removable:
        return rewritten
    # comments above a removed import go to the next statement, but the rewrite's TODOs about it go with it
    body, carried = [], []
    for statement in rewritten.body:
        if carried:
            statement = statement.with_changes(leading_lines=[*carried, *statement.leading_lines])
            carried = []
        if any(statement is s for s in imports):
            node = statement.body[0]
            kept = [alias for alias in node.names if _bound(node, alias) not in removable]
            if not kept:
                carried = [line for line in statement.leading_lines if line.comment is not None
                           and not line.comment.value.startswith("# TODO(migrate)")]
                continue
            if len(kept) < len(node.names):
                if kept[-1] is not node.names[-1]:  # the new last name ends as the old last did
                    kept[-1] = kept[-1].with_changes(comma=node.names[-1].comma)
                statement = statement.with_changes(body=[node.with_changes(names=kept)])
        body.append(statement)
    return rewritten.with_changes(body=body)


def names_used(code: str) -> Counter | None:
    """How often each name is read or bound in `code` outside its import statements (Python's parser: far
    faster than a walk of the LibCST tree); None when this Python cannot parse it."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    return Counter(node.id for node in ast.walk(tree) if isinstance(node, ast.Name))


def _uses(module: cst.Module):
    """Occurrences of each name outside module-level import statements."""
    return name_counts(module.with_changes(body=[s for s in module.body if not is_single_import(s)]))


def imported_names(module: cst.Module) -> set[str]:
    """The names the module's top-level import statements bind."""
    return {name for statement in module.body if is_single_import(statement)
            and not isinstance(statement.body[0].names, cst.ImportStar) for name in bound_names(statement.body[0])}


def bound_names(node: cst.Import | cst.ImportFrom) -> set[str]:
    """The names an import statement binds (none for `import *`)."""
    return set() if isinstance(node.names, cst.ImportStar) else {_bound(node, alias) for alias in node.names}


def _bound(node: cst.Import | cst.ImportFrom, alias: cst.ImportAlias) -> str:
    if alias.asname is not None:
        return alias.asname.name.value
    name = cst.helpers.get_full_name_for_node(alias.name)
    return name.split(".")[0] if isinstance(node, cst.Import) else name


def is_future(node: cst.Import | cst.ImportFrom) -> bool:
    return (
        isinstance(node, cst.ImportFrom)
        and node.module is not None
        and cst.helpers.get_full_name_for_node(node.module) == "__future__"
    )
