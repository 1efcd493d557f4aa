"""Runs the codemods over files, in parallel over processes; every file's outcome is a typed `FileResult`.

A file is never half-processed: it is read strictly, transformed in memory, the output re-parsed (inside
`migrate_source`), and only then may the caller write it. One bad file never stops the others.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from codemods.findings import EstimatorTier, Finding
from codemods.prefilter import may_need_migration
from codemods.project.facts import ProjectFacts
from migrate.discovery import SourceFile, symlink_problem
from migrate.files import BadSource, read_source
from migrate.project import ModuleIndex, context_files, index_module, index_projects, worth_indexing

if TYPE_CHECKING:
    import libcst as cst

PROGRESS_THRESHOLD = 200  # files; below this a progress line is noise


@dataclass
class FileResult:
    file: SourceFile
    status: str  # changed | unchanged | error | skipped
    error: str | None = None
    findings: list[Finding] = field(default_factory=list)
    estimators: list[EstimatorTier] = field(default_factory=list)  # the tier each estimator got
    old_code: str | None = None  # the text read, for diffs (process_all keeps it for the modules it parsed)
    new_code: str | None = None  # also for an error: a module that does not parse, with TODO marks
    encoding: str = "utf-8"  # the file's, as read (migrate.files.read_source): written back in it

    @property
    def writes(self) -> bool:
        """Whether rewriting writes `new_code` (a migrated module, or one marked where it cannot be)."""
        return self.new_code is not None and self.status in ("changed", "error")


def process_file(
    file: SourceFile, target: str, exact: bool = False, project: ProjectFacts | None = None
) -> FileResult:
    """Migrate one file in memory (`project`: what the rest of its project keeps); never raises for a
    problem with the file itself."""
    with _collector_paused():
        return _process_file(file, target, exact, project)


@contextlib.contextmanager
def _collector_paused():
    """Python's cyclic garbage collector paused while a file is read or rewritten: LibCST (and `ast`) allocate
    about a million short-lived objects for a long module, and each of the hundreds of collections that
    triggers walks the whole tree again (a sixth of the rewrite, measured on ../shared/corpus). Nearly all go
    by reference counting; the few cycles (a transformer and its context) are collected after the file."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _index_module(file: SourceFile) -> ModuleIndex | None:
    with _collector_paused():
        return index_module(file)


def _process_file(file: SourceFile, target: str, exact: bool, project: ProjectFacts | None) -> FileResult:
    settled = _settle(file, project)
    return settled if isinstance(settled, FileResult) else _rewrite(file, *settled, target, exact, project)


def _tf1_names_project(project: ProjectFacts | None) -> bool:
    """Whether the project's TensorFlow names are TF1's (codemods/rules/tf1_names.py): each module of it that
    names TensorFlow is worth parsing, whatever else it holds."""
    return project is not None and project.tf1_names


def _tf1_names_module(code: str, project: ProjectFacts | None) -> bool:
    return _tf1_names_project(project) and "tensorflow" in code


def _reread(project: ProjectFacts | None) -> bool:
    """Whether a module naming TensorFlow that had nothing worth parsing on its own must be read again, its
    project known."""
    return _tf1_names_project(project) or bool(project is not None and project.estimator_factories)


def _calls_factory(code: str, project: ProjectFacts | None) -> bool:
    """Whether `code` may call a function of its project that returns an estimator (its methods are Estimator's)."""
    return project is not None and any(name in code for name in project.estimator_factories)


def _settle(file: SourceFile, project: ProjectFacts | None = None) -> FileResult | tuple[str, str]:
    """`file`'s outcome when it needs no rewrite (a symlink problem, unreadable, nothing worth parsing), else its
    code and its encoding. `project`, once the index knows it, may make a module worth parsing."""
    problem = symlink_problem(file)
    if problem:
        return FileResult(file, problem[0], error=problem[1])
    try:
        code, encoding = read_source(file.path)
    except BadSource as error:
        return FileResult(file, "error", error=str(error))
    if not may_need_migration(code) and not _tf1_names_module(code, project) and not _calls_factory(code, project):
        return FileResult(file, "unchanged", old_code=code, encoding=encoding)
    return code, encoding


def _rewrite(file: SourceFile, code: str, encoding: str, target: str, exact: bool, project: ProjectFacts | None) -> FileResult:
    """`file`'s code (`code`) rewritten, or marked where it cannot be."""
    # Imported here, by the first module worth parsing: a tree with nothing to migrate never loads LibCST
    # (half a second of start-up, most of what a pre-commit run over such files costs).
    import libcst as cst

    from codemods.python2 import NotPython2
    from codemods.transformer import migrate_source
    from codemods.unparsed import mark_unparsed
    from migrate.notebooks import NotebookError, migrate_notebook

    try:
        result = migrate_notebook(code, target, exact) if file.is_notebook else migrate_source(code, target, exact, project)
    except NotebookError as error:
        return FileResult(file, "error", error=str(error))
    except cst.ParserSyntaxError as error:
        if not file.is_notebook:
            try:
                return _migrate_python2(file, code, encoding, target, exact, project)
            except NotPython2:
                pass
        # not rewritten; its constructs marked (codemods/unparsed.py)
        marked, findings = mark_unparsed(code)
        return FileResult(file, "error", error=_syntax_error(code, error), findings=findings, old_code=code,
                          new_code=marked if findings or marked != code else None, encoding=encoding)
    except Exception as error:  # a bug in a rule must not take the other files down
        return FileResult(
            file, "error", error=f"internal error in the rewrite: {type(error).__name__}: {error}"
        )
    status = "changed" if result.changed else "unchanged"
    return FileResult(file, status, findings=result.findings, estimators=result.estimators, old_code=code,
                      new_code=result.code, encoding=encoding)


def _migrate_python2(
    file: SourceFile, code: str, encoding: str, target: str, exact: bool, project: ProjectFacts | None
) -> FileResult:
    """A module that is Python 2, converted (codemods/python2.py) and then migrated."""
    from codemods.python2 import to_python3
    from codemods.transformer import migrate_source

    converted, findings = to_python3(code, str(file.path))
    result = migrate_source(converted, target, exact, project)
    return FileResult(file, "changed", findings=[*findings, *result.findings], estimators=result.estimators,
                      old_code=code, new_code=result.code, encoding=encoding)


def _syntax_error(code: str, error: cst.ParserSyntaxError) -> str:
    """One line saying where the file stops being Python 3, in CPython's words when it has some."""
    try:
        ast.parse(code)
    except SyntaxError as syntax:
        return f"not valid Python 3 (line {syntax.lineno}): {syntax.msg}"
    return " ".join(f"LibCST cannot parse it (line {error.raw_line}): {error.message}".split())


def _process_star(args) -> FileResult:
    return process_file(*args)


@dataclass
class _Triage:
    """What reading a file tells before any rewrite: its outcome when it needs none, whether the project index
    should read it, and its length (the longest are rewritten first)."""

    result: FileResult | None
    indexed: bool
    size: int
    names_tensorflow: bool = False  # settled as having nothing worth parsing, but it names TensorFlow


def _triage(file: SourceFile) -> _Triage:
    settled = _settle(file)
    if not isinstance(settled, FileResult):
        return _Triage(None, worth_indexing(file, settled[0]), len(settled[0]))
    code = settled.old_code
    indexed = code is not None and worth_indexing(file, code)
    settled.old_code = None  # nothing reads an unchanged file's code again: not sent back from a worker
    return _Triage(settled, indexed, len(code) if code else 0, code is not None and "tensorflow" in code)


def process_all(files: list[SourceFile], target: str, jobs: int, exact: bool = False) -> list[FileResult]:
    """`process_file` over every file, with `jobs` processes; results in the order of `files`. Every file
    is read first (most have nothing worth parsing: settled there, in chunks of files per task), then the
    projects are indexed (migrate/project.py), so that each module rewritten knows what its project keeps."""
    progress = _Progress(len(files))
    parallel = jobs > 1 and len(files) > 1
    with ProcessPoolExecutor(max_workers=jobs) if parallel else contextlib.nullcontext() as pool:

        def each(function, items):
            if pool is None:
                return map(function, items)
            return pool.map(function, items, chunksize=max(1, len(items) // (8 * jobs)))

        triaged = list(each(_triage, files))
        indexed = [file for file, triage in zip(files, triaged) if triage.indexed] + context_files(files)
        projects = index_projects(files, each(_index_module, indexed))
        # A module of a project whose TensorFlow names are TF1's is rewritten too (codemods/rules/tf1_names.py), and
        # one of a project with estimator factories is read again (it may train what one returns: `_calls_factory`)
        results = [None if triage.names_tensorflow and _reread(projects.get(file.path)) else triage.result
                   for file, triage in zip(files, triaged)]
        for _ in filter(None, results):
            progress.advance()
        # One file per task, longest first: real trees mix 50-line modules with 5,000-line ones and notebooks,
        # and chunks of files in tree order left one core idle while the other worked through a chunk of long
        # ones (bench/rewrite_throughput.py).
        pending = sorted((i for i, result in enumerate(results) if result is None), key=lambda i: -triaged[i].size)
        # A task reads its file again rather than have its text sent to the parent and back: cheaper for both.
        work = {i: (files[i], target, exact, projects.get(files[i].path)) for i in pending}
        if pool is None:
            for index in pending:
                results[index] = _process_star(work[index])
                progress.advance()
        else:
            futures = {pool.submit(_process_star, work[index]): index for index in pending}
            for future in as_completed(futures):
                results[futures[future]] = future.result()
                progress.advance()
    return results


class _Progress:
    """`migrate: N/M files` on stderr every 100 files, for trees large enough to wait on."""

    def __init__(self, total: int):
        self.total, self.count = total, 0

    def advance(self) -> None:
        self.count += 1
        if self.total >= PROGRESS_THRESHOLD and (self.count % 100 == 0 or self.count == self.total):
            end = "\r" if sys.stderr.isatty() and self.count < self.total else "\n"
            print(f"migrate: {self.count}/{self.total} files", end=end, file=sys.stderr, flush=True)
