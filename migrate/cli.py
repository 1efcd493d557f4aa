"""The `migrate` command line (contract in DESIGN.md): scan, rewrite, inspect-checkpoint, convert-checkpoint.

Exit codes: 0 nothing left to do; 1 `--check` found files that would change, or some file failed;
2 usage error or abnormal termination.
"""

from __future__ import annotations

import argparse
import difflib
import os
import shutil
import sys
from pathlib import Path

from codemods import TARGETS
from migrate import __version__
from migrate.config import ConfigError, find_config
from migrate.discovery import Exclusions, SourceFile, discover
from migrate.files import atomic_write, encode_source
from migrate.output import FORMATS, print_findings
from migrate.quiet import quiet_tensorflow
from migrate.report import summary_line, write_report
from migrate.runner import FileResult, process_all

EXIT_OK, EXIT_FINDINGS, EXIT_ABNORMAL = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="migrate", description="Migrate TF1 Estimator programs to TensorFlow 2."
    )
    parser.add_argument("--version", action="version", version=f"migrate {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    def common(sub):
        sub.add_argument(
            "paths", nargs="+", metavar="PATH", help="files or directories (searched recursively)"
        )
        sub.add_argument(
            "--target",
            choices=TARGETS,
            help="keras (default): Model.fit + BackupAndRestore; loop: custom loop + CheckpointManager",
        )
        sub.add_argument(
            "--exact",
            action=argparse.BooleanOptionalAction,
            help="emit exact resume (data position, RNG, preemption saves): compat.exact for keras, "
            "an exact loop for loop; see docs/exact-resume.md",
        )
        sub.add_argument(
            "--exclude",
            action="append",
            metavar="PATTERN",
            help="leave files matching this glob alone (a name, or a path relative to the current directory); "
            "repeatable; replaces [tool.migrate] exclude",
        )
        sub.add_argument("--report", type=Path, metavar="FILE.json", help="write the JSON report here")
        sub.add_argument(
            "--output-format",
            choices=FORMATS,
            default="text",
            help="findings as text, JSON lines on stdout, or GitHub Actions annotations on stdout",
        )
        sub.add_argument("-q", "--quiet", action="store_true", help="print findings only, not the summary line")
        sub.add_argument(
            "--jobs", type=int, default=os.cpu_count() or 1, metavar="N", help="processes to use"
        )

    common(commands.add_parser("scan", help="list what would be migrated; writes nothing"))
    rewrite = commands.add_parser("rewrite", help="rewrite files in place, or into --out DIR")
    common(rewrite)
    mode = rewrite.add_mutually_exclusive_group()
    mode.add_argument("--diff", action="store_true", help="print a unified diff; write nothing")
    mode.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file would change")
    mode.add_argument("--out", type=Path, metavar="DIR", help="write the rewritten tree under DIR")

    inspect = commands.add_parser(
        "inspect-checkpoint", help="list an Estimator checkpoint's variables and what they were recognised as"
    )
    inspect.add_argument("path", metavar="PATH", help="a model_dir or a model.ckpt-N prefix")
    inspect.add_argument("--json", action="store_true", help="print the inspection as JSON")
    inspect.add_argument("--verbose", action="store_true", help="let TensorFlow print its own log lines")
    convert = commands.add_parser(
        "convert-checkpoint", help="turn a canned Estimator's model.ckpt-N into model.keras + a TF2 checkpoint"
    )
    convert.add_argument("path", metavar="MODEL_DIR", help="a model_dir (its latest checkpoint) or a prefix")
    convert.add_argument(
        "--out", metavar="DIR", help="a new directory to write; default: into MODEL_DIR, legacy files kept"
    )
    convert.add_argument("--verbose", action="store_true", help="let TensorFlow print its own log lines")
    return parser


def _collect(paths: list[str], exclusions: Exclusions, parser: argparse.ArgumentParser) -> list[SourceFile]:
    files = []
    for path in paths:
        if not os.path.lexists(path):
            parser.error(f"{path}: no such file or directory")
        files.extend(discover(path, exclusions))
    return files


def _settle_options(args: argparse.Namespace) -> Exclusions:
    """Fill in target and exact from [tool.migrate] where no flag gave them; the exclusions in force."""
    config = find_config(args.paths)
    args.target = args.target or config.target or "keras"
    args.exact = args.exact if args.exact is not None else bool(config.exact)
    if args.exclude is not None:
        return Exclusions(tuple(args.exclude), Path.cwd())
    return Exclusions(config.exclude, config.base)


def _diff(result: FileResult) -> str:
    name = result.file.relative
    return "".join(
        difflib.unified_diff(
            result.old_code.splitlines(keepends=True),
            result.new_code.splitlines(keepends=True),
            fromfile=f"a/{name}",
            tofile=f"b/{name}",
        )
    )


def _write_out(out: Path, files: list[SourceFile], results: dict[Path, FileResult]) -> None:
    """The rewritten tree under `out`: changed files rewritten, modules that do not parse marked (or, with
    nothing to mark, left out: not copied as if migrated), every other regular file copied."""
    for file in files:
        destination = out / file.relative
        result = results.get(file.path)
        if file.path.is_symlink() or (result is not None and result.status == "error" and not result.writes):
            continue
        if result is not None and result.writes:
            atomic_write(destination, encode_source(result.new_code, result.encoding), mode_from=file.path)
        else:
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(file.path, destination)


def run(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command in ("inspect-checkpoint", "convert-checkpoint"):
        return _checkpoint_command(args)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.command == "rewrite" and args.diff and args.output_format != "text":
        parser.error("--diff prints the diff on stdout: use it with --output-format text")
    try:
        exclusions = _settle_options(args)
    except ConfigError as error:
        print(f"migrate: error: {error}", file=sys.stderr)
        return EXIT_ABNORMAL
    files = _collect(args.paths, exclusions, parser)
    sources = [file for file in files if file.is_migratable]
    results = process_all(sources, args.target, args.jobs, args.exact)

    rewriting = args.command == "rewrite" and not (args.diff or args.check)
    checking = args.command == "rewrite" and args.check
    for result in results:
        print_findings(result, args.output_format, everything=args.command == "scan", checking=checking)
        if args.command == "rewrite" and args.diff and result.writes:
            sys.stdout.write(_diff(result))
        if rewriting and args.out is None and result.writes and result.new_code != result.old_code:
            atomic_write(result.file.path, encode_source(result.new_code, result.encoding))
    if rewriting and args.out is not None:
        _write_out(args.out, files, {result.file.path: result for result in results})
    if args.report is not None:
        write_report(args.report, results, args.target)

    if not args.quiet:
        verb = "rewritten" if rewriting else "would change"
        print(f"migrate: {summary_line(results, verb)}", file=sys.stderr)
    failed = any(result.status == "error" for result in results)
    would_change = args.command == "rewrite" and args.check and any(r.status == "changed" for r in results)
    return EXIT_FINDINGS if failed or would_change else EXIT_OK


def _checkpoint_command(args: argparse.Namespace) -> int:
    if not args.verbose:
        quiet_tensorflow()  # unless ESTIMATOR_MIGRATE_VERBOSE is set
    from estimator_migrate.compat.legacy_checkpoint import CheckpointError
    from migrate.checkpoints import convert_command, inspect_command

    try:
        if args.command == "inspect-checkpoint":
            return inspect_command(args.path, args.json)
        return convert_command(args.path, args.out)
    except CheckpointError as error:
        print(f"migrate: error: {error}", file=sys.stderr)
        return EXIT_FINDINGS


def main() -> None:
    try:
        code = run()
    except KeyboardInterrupt:
        print("migrate: interrupted", file=sys.stderr)
        code = EXIT_ABNORMAL
    except Exception as error:  # abnormal termination: say so in one line, exit 2
        print(f"migrate: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        code = EXIT_ABNORMAL
    sys.exit(code)
