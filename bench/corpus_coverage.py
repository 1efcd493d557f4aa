"""Benchmark: how much of real TF1 training code `migrate rewrite` migrates, counted by the shared counter.

    PYTHONPATH=. .venv/bin/python bench/corpus_coverage.py [CORPUS_DIR]   # ~20 s; default ../shared/corpus/files

The counter (../shared/tools/corpus_coverage.py) is not ours: it finds TF1 fault-tolerance constructs with its
own patterns in each input file and its rewritten output, and calls each migrated, flagged (a TODO(migrate)
near it) or silent. Anchor: the issue's goal, half of the constructs migrated; printed as the ratio of the share
migrated to it, with the counter's other figures. The corpus is read where it is, never copied into the repo.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COUNTER = ROOT.parent / "shared" / "tools" / "corpus_coverage.py"
GOAL = 0.5


def main() -> None:
    corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "corpus" / "files"
    if not COUNTER.exists() or not corpus.exists():
        sys.exit(f"needs {COUNTER} and {corpus} (the shared measurement material)")
    migrate = Path(sys.executable).parent / "migrate"
    completed = subprocess.run([sys.executable, COUNTER, migrate, corpus, "--goal", str(GOAL)],
                               capture_output=True, text=True)
    summary = completed.stdout.strip().splitlines()
    for line in summary[-4:]:
        print(line)
    found = re.search(r"constructs: (\d+); migrated: (\d+)", completed.stdout)
    if found is None:
        sys.exit(f"the counter printed no figures:\n{completed.stdout[-2000:]}{completed.stderr[-2000:]}")
    constructs, migrated = map(int, found.groups())
    share = migrated / constructs
    print(f"migrated share {share:.0%} / goal {GOAL:.0%}: {share / GOAL:.2f}x")


if __name__ == "__main__":
    main()
