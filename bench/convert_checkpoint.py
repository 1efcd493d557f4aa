"""Benchmark: `migrate convert-checkpoint` on a >= 1 GiB Estimator checkpoint against `cp -r` of it.

    .venv/bin/python bench/convert_checkpoint.py [WORK_DIR]

Builds the checkpoint once with the real Estimator (bench/make_large_checkpoint.py, legacy env), warms the
page cache, then in one run times `cp -r MODEL_DIR` and `migrate convert-checkpoint MODEL_DIR --out`,
each under /usr/bin/time for its peak RSS. Prints both ratios against the goals of issue 4: conversion
time <= 1.3x cp, peak RSS <= largest tensor + 0.5 GiB.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LEGACY_PYTHON = ROOT / ".venv-legacy" / "bin" / "python"
MIGRATE = ROOT / ".venv" / "bin" / "migrate"
GIB = 1024**3
ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}


def timed(command: list) -> tuple[float, int]:
    """Wall seconds and peak RSS in bytes of one real process, as /usr/bin/time measures them."""
    with tempfile.NamedTemporaryFile("r") as report:
        subprocess.run(["/usr/bin/time", "-o", report.name, "-f", "%e %M", *map(str, command)],
                       check=True, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        seconds, kilobytes = report.read().split()
    return float(seconds), int(kilobytes) * 1024


def largest_tensor(model_dir: Path) -> int:
    sys.path.insert(0, str(ROOT))
    from estimator_migrate.compat.legacy_checkpoint import LegacyCheckpoint

    checkpoint = LegacyCheckpoint(model_dir)
    return max(checkpoint.nbytes(name) for name in checkpoint.shapes)


def main() -> None:
    work = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "runs" / "bench_convert")
    model_dir = work / "model"
    if not (model_dir / "checkpoint").exists():
        shutil.rmtree(model_dir, ignore_errors=True)
        subprocess.run([LEGACY_PYTHON, ROOT / "bench" / "make_large_checkpoint.py", model_dir], check=True, env=ENV)
    size = sum(p.stat().st_size for p in model_dir.iterdir())
    for path in model_dir.iterdir():  # warm the page cache so that both contenders read from memory
        with open(path, "rb") as handle:
            while handle.read(1 << 24):
                pass
    for leftover in ("copy", "converted"):
        shutil.rmtree(work / leftover, ignore_errors=True)

    cp_seconds, cp_rss = timed(["cp", "-r", model_dir, work / "copy"])
    convert_seconds, convert_rss = timed([MIGRATE, "convert-checkpoint", model_dir, "--out", work / "converted"])
    largest = largest_tensor(model_dir)
    written = sum(p.stat().st_size for p in (work / "converted").iterdir())
    shutil.rmtree(work / "copy")
    shutil.rmtree(work / "converted")

    budget = largest + GIB // 2
    print(f"checkpoint: {size / GIB:.2f} GiB, largest tensor {largest / GIB:.2f} GiB; converted output {written / GIB:.2f} GiB")
    print(f"cp -r:               {cp_seconds:6.2f} s, peak RSS {cp_rss / GIB:.2f} GiB")
    print(f"convert-checkpoint:  {convert_seconds:6.2f} s, peak RSS {convert_rss / GIB:.2f} GiB")
    print(f"time ratio convert/cp: {convert_seconds / max(cp_seconds, 0.01):.1f}x (goal <= 1.3x)")
    print(f"peak RSS / (largest tensor + 0.5 GiB): {convert_rss / budget:.2f}x (goal <= 1.0x)")


if __name__ == "__main__":
    main()
