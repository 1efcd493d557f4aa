"""Adds the imports the migrated code needs to the module's import block, where isort and ruff would put them,
and removes the module-level imports the rewrite left unused.

A needed name already imported there is not imported again; `from m import x` joins an existing
`from m import ...` of that block (its names kept sorted if they were). Each other import goes to its section
(standard library, or third party: TensorFlow's group), at the place isort's order gives it there (`import m`
before `from m import ...`, modules compared case-insensitively), without moving the program's own imports; a
section the block lacks becomes a group of its own, a blank line either side. A from-import longer than a line
is wrapped as isort's black profile wraps it (one name a line, trailing comma: kept as it is at any line length).
Written here rather than with LibCST's AddImportsVisitor, which appends after the block and walks the whole tree.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from dataclasses import dataclass

import libcst as cst

from codemods.syntax import name_counts

# The package migrated programs import the runtime from. This project's `compat/` directory, installed under
# the distribution's own name (pyproject.toml's package-dir): `compat` alone is one of the most common module
# names in Python projects, and a program next to its own compat.py would import that one.
RUNTIME_PACKAGE = "estimator_migrate.compat"

# isort's sections, in their order
FUTURE, STDLIB, THIRD_PARTY, FIRST_PARTY = range(4)
# The packages whose import group is the third-party section (the group of the program's TensorFlow import).
_THIRD_PARTY_ANCHORS = ("tensorflow", "tf_keras", "estimator_migrate")
# black's (and ruff's default) line length: a longer from-import is wrapped
_LINE_LENGTH = 88
_TODO = "# TODO(migrate)"


@dataclass(frozen=True)
class NeededImport:
    module: str
    obj: str | None = None  # `from module import obj`; None for `import module`
    asname: str | None = None  # `import module as asname` (the rewrite never aliases a from-import)


def add_imports(module: cst.Module, needed: list[NeededImport]) -> cst.Module:
    """`module` with `needed` imported in its leading import block (after a docstring), or in the import block
    holding its TensorFlow import when code runs before that (the runtime imports TensorFlow: a program setting
    TensorFlow's environment variables first keeps them in effect)."""
    start = 1 if module.body and is_docstring_or_strict(module.body[0]) else 0
    end = import_block_end(module)
    block = [statement.body[0] for statement in module.body[start:end] if is_single_import(statement)]
    plain, aliased, from_names = _missing(needed, block)
    if not (plain or aliased or from_names):
        return module
    body = list(module.body)
    for index in range(start, end):  # join existing `from m import ...` statements
        statement = body[index]
        if not is_single_import(statement):
            continue
        node = statement.body[0]
        if (
            isinstance(node, cst.ImportFrom)
            and not node.relative
            and not isinstance(node.names, cst.ImportStar)
            and all(alias.asname is None for alias in node.names)  # isort keeps `as` names on lines of their own
        ):
            names = from_names.pop(cst.helpers.get_full_name_for_node(node.module), None)
            if names:
                body[index] = _joined(statement, names, module.config_for_parsing)
    config = module.config_for_parsing
    added = [
        *(f"import {name}" for name in plain),
        *(f"import {name} as {asname}" for name, asname in sorted(aliased)),
        *(_from_import_code(name, sorted(objs, key=_member_key)) for name, objs in from_names.items()),
    ]
    block_start, _ = import_run(module)
    imports = body[block_start:end]
    for code in sorted(added, key=lambda code: _sort_key(cst.parse_statement(code, config).body[0])):
        imports = _placed(imports, cst.parse_statement(code, config))
    rest = body[end:]
    if imports and rest and not rest[0].leading_lines:
        rest[0] = rest[0].with_changes(leading_lines=(cst.EmptyLine(),))
    elif imports and rest and rest[0].leading_lines[0].comment is not None:
        rest[0] = rest[0].with_changes(leading_lines=(cst.EmptyLine(), *rest[0].leading_lines))
    return module.with_changes(body=[*body[:block_start], *imports, *rest])


def _placed(imports: list[cst.SimpleStatementLine], statement: cst.SimpleStatementLine) -> list:
    """`imports` (a run of import statements) with `statement` in its section, at isort's place there."""
    section = _section(statement.body[0])
    key = _sort_key(statement.body[0])
    groups = _groups(imports)
    if section == STDLIB:
        home = next((g for g in groups if any(_section(imports[i].body[0]) == STDLIB for i in g)), None)
    else:
        home = next((g for g in groups if any(_is_anchor(imports[i].body[0]) for i in g)), None)
        if home is None:  # the first group of third-party imports only
            home = next((g for g in groups if all(_section(imports[i].body[0]) == THIRD_PARTY for i in g)), None)
    if home is None:  # a group of its own, before the first group of a later section
        later = next((g for g in groups if any(_section(imports[i].body[0]) > section for i in g)), None)
        if later is None:
            return [*imports, statement.with_changes(leading_lines=(cst.EmptyLine(),) if imports else ())]
        return _inserted_before(imports, later[0], statement, own_group=True)
    peers = [i for i in home if _section(imports[i].body[0]) == section]
    after = next((i for i in peers if _sort_key(imports[i].body[0]) > key), None)
    if after is not None:
        return _inserted_before(imports, after, statement, own_group=False)
    last = peers[-1] if peers else home[-1]
    return [*imports[: last + 1], statement.with_changes(leading_lines=()), *imports[last + 1:]]


def _inserted_before(imports: list, index: int, statement: cst.SimpleStatementLine, own_group: bool) -> list:
    """`statement` right before imports[index], taking the blank lines above it (its comments stay with it);
    `own_group`: a blank line between them."""
    anchor = imports[index]
    lines = list(anchor.leading_lines)
    blank = 0
    while blank < len(lines) and lines[blank].comment is None:
        blank += 1
    kept = lines[blank:]
    if own_group:
        kept = [cst.EmptyLine(), *kept]
    return [*imports[:index], statement.with_changes(leading_lines=lines[:blank]),
            anchor.with_changes(leading_lines=kept), *imports[index + 1:]]


def tidy_import_block(original: cst.Module, rewritten: cst.Module) -> cst.Module:
    """`rewritten`'s import block as isort would leave it where the rewrite touched it: a TODO above an import gets
    a blank line before it, and if `original`'s block was sorted, imports the rewrite renamed go to their place."""
    start, end = import_run(rewritten)
    imports = list(rewritten.body[start:end])
    for index in range(1, len(imports)):
        lines = imports[index].leading_lines
        if lines and lines[0].comment is not None and lines[0].comment.value.startswith(_TODO):
            imports[index] = imports[index].with_changes(leading_lines=[cst.EmptyLine(), *lines])
    if _is_sorted(original):
        for group in _groups(imports):
            order = sorted(group, key=lambda i: (_section(imports[i].body[0]), _sort_key(imports[i].body[0])))
            if order != group:
                head = imports[group[0]].leading_lines
                blank = next((n for n, line in enumerate(head) if line.comment is not None), len(head))
                moved = [imports[i] for i in order]
                moved = [s.with_changes(leading_lines=s.leading_lines[blank:]) if i == group[0] else s
                         for i, s in zip(order, moved)]
                moved[0] = moved[0].with_changes(leading_lines=[*head[:blank], *moved[0].leading_lines])
                imports[group[0]: group[-1] + 1] = moved
    if all(a is b for a, b in zip(imports, rewritten.body[start:end])):
        return rewritten
    return rewritten.with_changes(body=[*rewritten.body[:start], *imports, *rewritten.body[end:]])


def _is_sorted(module: cst.Module) -> bool:
    """Whether each group of the module's import block is in isort's order."""
    start, end = import_run(module)
    imports = module.body[start:end]
    keys = [(_section(s.body[0]), _sort_key(s.body[0])) for s in imports]
    return all(keys[a] <= keys[b] for group in _groups(imports) for a, b in zip(group, group[1:]))


def _groups(imports: list[cst.SimpleStatementLine]) -> list[list[int]]:
    """The indices of `imports` in groups: runs with no blank line between them (but the one above a TODO)."""
    groups: list[list[int]] = []
    for index, statement in enumerate(imports):
        lines = statement.leading_lines
        todo = any(line.comment is not None and line.comment.value.startswith(_TODO) for line in lines)
        if not groups or (not todo and any(line.comment is None for line in lines)):
            groups.append([])
        groups[-1].append(index)
    return groups


def _section(node: cst.Import | cst.ImportFrom) -> int:
    """isort's section of an import; a relative import, or any the program names beside its own modules, is
    first party (third party is told apart by the group it sits in: `_placed`)."""
    if isinstance(node, cst.ImportFrom) and (node.relative or node.module is None):
        return FIRST_PARTY
    top = _module_name(node).split(".")[0]
    if top == "__future__":
        return FUTURE
    return STDLIB if top in sys.stdlib_module_names else THIRD_PARTY


def _is_anchor(node: cst.Import | cst.ImportFrom) -> bool:
    return _section(node) == THIRD_PARTY and _module_name(node).split(".")[0] in _THIRD_PARTY_ANCHORS


def _module_name(node: cst.Import | cst.ImportFrom) -> str:
    if isinstance(node, cst.Import):
        return cst.helpers.get_full_name_for_node(node.names[0].name)
    return "" if node.module is None else cst.helpers.get_full_name_for_node(node.module)


def _sort_key(node: cst.Import | cst.ImportFrom) -> tuple:
    """isort's order within a section (force_sort_within_sections off): plain imports first, by module name
    ignoring case, then by their first name."""
    name = _module_name(node)
    if isinstance(node, cst.Import):  # `import m` before `import m as a`
        alias = node.names[0].asname
        return (False, name.lower(), name, (alias is not None, "" if alias is None else alias.name.value))
    first = "" if isinstance(node.names, cst.ImportStar) else cst.helpers.get_full_name_for_node(node.names[0].name)
    return (True, name.lower(), name, _member_key(first))


def _member_key(name: str) -> tuple:
    """isort's order of a from-import's names (order_by_type): CONSTANTS, Classes, then the rest."""
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return (kind, name.lower(), name)


def _from_import_code(module: str, names: list[str], wrapped: bool = False) -> str:
    line = f"from {module} import {', '.join(names)}"
    if len(line) <= _LINE_LENGTH and not wrapped:
        return line
    return f"from {module} import (\n" + "".join(f"    {name},\n" for name in names) + ")"


def _joined(statement: cst.SimpleStatementLine, names: set[str], config) -> cst.SimpleStatementLine:
    """An existing `from m import ...` given `names` too: all sorted if they were (written as isort writes
    them), else the new ones first, the program's own left as they were."""
    node = statement.body[0]
    present = [alias.name.value for alias in node.names if isinstance(alias.name, cst.Name)]
    plain = (
        len(present) == len(node.names)
        and all(alias.asname is None for alias in node.names)
        and "#" not in cst.Module([]).code_for_node(node)
    )
    if not plain or present != sorted(present, key=_member_key):
        new = [cst.ImportAlias(cst.Name(name)) for name in sorted(names, key=_member_key)]
        return statement.with_changes(body=[node.with_changes(names=[*new, *node.names])])
    merged = sorted({*present, *names}, key=_member_key)
    code = _from_import_code(_module_name(node), merged, wrapped=isinstance(node.lpar, cst.LeftParen))
    return cst.parse_statement(code, config).with_changes(
        leading_lines=statement.leading_lines, trailing_whitespace=statement.trailing_whitespace
    )


def _missing(
    needed: list[NeededImport], block: list[cst.Import | cst.ImportFrom]
) -> tuple[set[str], set[tuple[str, str]], dict[str, set[str]]]:
    """What `block` does not import yet: plain modules, aliased modules, from-imported names by module."""
    plain = {imp.module for imp in needed if imp.obj is None and imp.asname is None}
    aliased = {(imp.module, imp.asname) for imp in needed if imp.obj is None and imp.asname is not None}
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
                else:
                    aliased.discard((name, alias.asname.name.value))
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


def import_run(module: cst.Module) -> tuple[int, int]:
    """The indices (start, end) of the run of import statements ending at `import_block_end`."""
    end = start = import_block_end(module)
    while start > 0 and is_single_import(module.body[start - 1]):
        start -= 1
    return start, end


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
    return names_in(tree)


def names_in(tree: ast.Module) -> Counter:
    """`names_used` of a module Python parsed."""
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
