"""What the rewrite leaves alone stays byte for byte as it was: modules with nothing to migrate are not even
parsed when their text names no construct (codemods.prefilter.may_need_migration), and are handed back as they
were read when they are parsed but nothing in them is migrated."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest

from codemods.prefilter import may_need_migration, names_worth_parsing
from codemods.transformer import migrate_source
from tests.codemods.test_fixtures import FIXTURES


def test_a_module_with_nothing_to_migrate_comes_back_as_it_was_read():
    # Parsed (it names an estimator), nothing migrated; LibCST 1.8 alone would drop the space before the colon
    # of `except ValueError :` (Instagram/LibCST#1457).
    source = (
        "def fit(estimator, data):\n"
        "    try:\n"
        "        return estimator.fit(data)\n"
        "    except ValueError :\n"
        "        return None\n"
    )
    assert may_need_migration(source)
    for target in ("keras", "loop"):
        result = migrate_source(source, target)
        assert result.code == source and not result.changed and result.findings == []


@pytest.mark.parametrize(
    "source",
    [
        "def run(command):\n    return command.run()\n",  # `run` is in nearly every module: not a construct
        "import subprocess\nsubprocess.run(['ls'])\n",
    ],
)
def test_common_words_do_not_make_a_module_worth_parsing(source):
    assert not may_need_migration(source)


def test_learn_runner_is_still_found_by_its_module_name():
    source = "from tensorflow.contrib.learn.python.learn import learn_runner\nlearn_runner.run(experiment_fn)\n"
    assert may_need_migration(source)
    assert any("learn_runner" in finding.message or "contrib" in finding.message
               for finding in migrate_source(source).findings)


def test_every_fixture_with_something_to_migrate_passes_the_filter():
    """On its text, or (a module naming no construct, only TensorFlow 1.x's names: tf.contrib.slim's loop) as the
    one-file project the runner indexes first, whose TF1 names make each module naming TensorFlow worth parsing."""
    from migrate.discovery import SourceFile
    from migrate.runner import process_all

    inputs = sorted(FIXTURES.glob("*/input.py"))
    for path in inputs:
        source = path.read_text()
        if migrate_source(source).findings and not may_need_migration(source):
            file = SourceFile(path, path.parent, path.name, given=True)
            [result] = process_all([file], "keras", jobs=1)
            assert result.status == "changed", path.parent.name



def test_the_filter_takes_exactly_the_modules_naming_one_of_its_names():
    # It searches shared substrings first ("Hook", "stimator", ...); what it decides must be what searching every
    # name would, on each name alone, on modules that name none, and on modules with and without TensorFlow.
    names = names_worth_parsing()
    texts = [f"x = {name}\n" for name in names] + [f"x = {name[:-1]}\n" for name in names]
    texts += [path.read_text() for path in sorted(FIXTURES.glob("*/input.py"))]
    texts += [path.read_text(errors="replace") for path in sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))]
    decided = [may_need_migration(text) for text in texts]
    assert decided == [any(name in text for name in names) for text in texts]
    assert any(decided) and not all(decided)


def test_the_standard_librarys_modules_are_not_worth_parsing():
    """None of them uses TensorFlow: a name the filter looks for that is a common word's part (tf.estimator.Head in
    `Header`) made nine of them parsed and rewritten, in every tree holding them."""
    stdlib = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))
    parsed = [path.name for path in stdlib if may_need_migration(path.read_text(errors="replace"))]
    assert parsed == []
