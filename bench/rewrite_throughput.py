"""Benchmark: `migrate rewrite --out` against `tf_upgrade_v2 --intree --outtree` on the same large tree.

    PYTHONPATH=. .venv/bin/python bench/rewrite_throughput.py [--copies 100] [--plain_copies 4]
    PYTHONPATH=. .venv/bin/python bench/rewrite_throughput.py --corpus ../shared/corpus/files --copies 10

Anchor: tf_upgrade_v2, which ships with the tensorflow package (here TF 2.21's, in .venv). The tree: every
Estimator program this repository has (the codemod fixtures' inputs, the example, the legacy test
programs) copied `--copies` times, plus Python files with no TensorFlow at all (the standard library's
top-level modules that tf_upgrade_v2 can parse, copied `--plain_copies` times), in nested package
directories. Each tool rewrites the
whole tree into a fresh output directory, wall time measured around the process (start-up included, as a
user sees it). `migrate` runs with one process (as tf_upgrade_v2 does) and with its default (one per core).
Prints files/s and the ratio of tf_upgrade_v2's time to migrate's (with `--repeat N`, of the median of N runs
of each, the tools taking turns: the machine's speed varies by a tenth between runs). With `--corpus DIR` the Estimator programs
are real ones instead: DIR's tree (e.g. ../shared/corpus/files, public TF1 code; read, never committed) copied
`--copies` times, the files tf_upgrade_v2 cannot parse (Python 2) left out so that both tools finish.
With `--no_construct_copies N` a second tree of the standard-library modules alone (N copies) measures what a
module with nothing to migrate costs.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def estimator_programs() -> list[Path]:
    programs = sorted((ROOT / "tests" / "codemods" / "fixtures").glob("*/input.py"))
    programs += [ROOT / "examples" / "digits_estimator.py", *sorted((ROOT / "tests" / "legacy").glob("*.py"))]
    return [p for p in programs if "tensorflow" in p.read_text()]


def plain_modules() -> list[Path]:
    """Top-level standard-library modules: real Python, no TensorFlow, and parseable by pasta.

    tf_upgrade_v2 parses with pasta, which fails on 20 of Python 3.11's 168 top-level modules (dataclasses,
    functools, ...: AnnotationError / NameError), and one such file aborts its whole run (exit 1, the rest
    of the tree not written). Those are left out so that both tools process the whole tree.
    """
    import pasta

    modules = []
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py")):
        text = path.read_text()
        try:
            pasta.parse(text)
        except Exception:
            continue
        if "tensorflow" not in text:
            modules.append(path)
    return modules


def corpus_programs(corpus: Path) -> list[Path]:
    """The Python files of a real tree that Python 3 (and so tf_upgrade_v2's parser) reads."""
    programs = []
    for path in sorted(corpus.rglob("*.py")):
        try:
            compile(path.read_bytes(), str(path), "exec")
        except (SyntaxError, ValueError):
            continue
        programs.append(path)
    return programs


def build_tree(root: Path, copies: int, plain_copies: int, corpus: Path | None = None) -> tuple[int, int]:
    programs, plain = (corpus_programs(corpus) if corpus else estimator_programs()), plain_modules()
    for copy in range(copies):
        package = root / f"project{copy // 10}" / f"trainer{copy}"
        package.mkdir(parents=True)
        for index, program in enumerate(programs):
            # a real tree keeps its layout (projects import their sibling modules)
            destination = package / (program.relative_to(corpus) if corpus else f"model_{index}.py")
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(program, destination)
    for copy in range(plain_copies):
        package = root / f"lib{copy}"
        package.mkdir(parents=True)
        for module in plain:
            shutil.copyfile(module, package / module.name)
    return copies * len(programs), plain_copies * len(plain)


def timed(command: list[str]) -> tuple[float, int]:
    start = time.perf_counter()
    completed = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start, completed.returncode


def compare(tree: Path, files: int, scratch: Path, jobs_one: bool = True, repeat: int = 1) -> None:
    """Rewrite `tree` with each tool into a fresh directory, `repeat` times in turn; print each one's median
    time and files/s, and the ratios of the medians."""
    runs = {"tf_upgrade_v2": [str(BIN / "tf_upgrade_v2"), "--intree", str(tree), "--outtree"]}
    if jobs_one:
        runs["migrate --jobs 1"] = [str(BIN / "migrate"), "rewrite", str(tree), "--jobs", "1", "--out"]
    runs["migrate (default jobs)"] = [str(BIN / "migrate"), "rewrite", str(tree), "--out"]
    times: dict[str, list[float]] = {name: [] for name in runs}
    outcome = {}
    for run in range(repeat):  # the tools in turn, so that a slow spell of the machine hits each of them
        for name, command in runs.items():
            out = scratch / f"{tree.name}_{name.replace(' ', '_')}_{run}"
            extra = ["--reportfile", str(scratch / "tf_upgrade_v2_report.txt")] if "upgrade" in name else []
            elapsed, code = timed([*command, str(out), *extra])
            times[name].append(elapsed)
            outcome[name] = f"exit {code}, {sum(1 for path in out.rglob('*.py'))} of {files} files written"
            shutil.rmtree(out, ignore_errors=True)
    seconds = {name: statistics.median(values) for name, values in times.items()}
    for name in runs:
        spread = f" (runs: {', '.join(f'{value:.1f}' for value in times[name])})" if repeat > 1 else ""
        print(f"  {name:24s} {seconds[name]:7.1f} s  {files / seconds[name]:7.1f} files/s  ({outcome[name]}){spread}")
    for name in runs:
        if name != "tf_upgrade_v2":
            print(f"tf_upgrade_v2 time / {name} time: {seconds['tf_upgrade_v2'] / seconds[name]:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--copies", type=int, default=100)
    parser.add_argument("--plain_copies", type=int, default=4)
    parser.add_argument("--corpus", type=Path, help="a tree of real TF1 code to copy instead of our programs")
    parser.add_argument("--no_construct_copies", type=int, default=0,
                        help="also a tree of the standard-library modules alone, copied N times (no construct)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each tool; the median is reported")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        tree = Path(scratch) / "tree"
        tf_files, plain_files = build_tree(tree, args.copies, args.plain_copies, args.corpus)
        kind = f"real files from {args.corpus}" if args.corpus else "Estimator programs"
        print(f"tree: {tf_files + plain_files} files ({tf_files} {kind}, {plain_files} without TensorFlow)")
        compare(tree, tf_files + plain_files, Path(scratch), repeat=args.repeat)
        if args.no_construct_copies:
            plain_tree = Path(scratch) / "no_construct"
            _, plain_files = build_tree(plain_tree, 0, args.no_construct_copies)
            print(f"tree: {plain_files} files without TensorFlow (the standard library's modules)")
            compare(plain_tree, plain_files, Path(scratch), jobs_one=False, repeat=args.repeat)


if __name__ == "__main__":
    main()
