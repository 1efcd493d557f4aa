"""A second rewrite of real code's outputs changes nothing: ../shared/corpus/files (public TF1 programs, read, never
copied into the repository), rewritten for both targets, with and without --exact, then its outputs rewritten again
the same way. (The fixtures' outputs: tests/codemods/test_fixtures.py; tests/corpus: tests/test_corpus.py.)"""

from __future__ import annotations

import shutil

import pytest

from migrate.discovery import discover
from migrate.runner import process_all
from tests.conftest import ROOT

CORPUS = ROOT.parent / "shared" / "corpus" / "files"

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not on this machine")]


@pytest.mark.parametrize(("target", "exact"), [("keras", False), ("loop", False), ("keras", True), ("loop", True)])
def test_rewriting_the_outputs_again_changes_nothing(target, exact, tmp_path):
    out = shutil.copytree(CORPUS, tmp_path / "out")
    # One job: a pool would fork this test worker, which may have imported TensorFlow (the fork crashes)
    first = process_all(discover(str(out)), target, 1, exact)
    for result in first:
        if result.writes:
            result.file.path.write_text(result.new_code, encoding=result.encoding)
    assert any(result.status == "changed" for result in first)
    again = process_all(discover(str(out)), target, 1, exact)
    changed = [result.file.relative for result in again if result.status == "changed"]
    assert changed == []
