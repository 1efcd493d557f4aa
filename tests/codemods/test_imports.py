"""codemods.imports puts the imports the rewrite asks for where isort and ruff would (ruff's `I` rules are the
judge), and removes the ones it left unused."""

import ast
import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest

from codemods.imports import NeededImport, add_imports, remove_unused_imports

RUFF = Path(sys.executable).parent / "ruff"

MODULES = {
    "docstring": '"""Trains."""\nimport tensorflow as tf\n\nx = 1\n',
    "no-imports": "x = 1\n",
    "empty": "",
    "comment-after-block": "import tensorflow as tf\n\n# the model\nx = 1\n",
    "no-blank-line": "import tensorflow as tf\nx = 1\n",
    "sections": "import os\nimport sys\n\nimport numpy as np\nimport tensorflow as tf\n\nimport data\n\nx = 1\n",
    "future-and-third-party": "from __future__ import print_function\n\nimport tensorflow as tf\n\nx = 1\n",
    "commented-groups": "# Standard\nimport sys\n\n# Third party\nimport tensorflow as tf\nfrom absl import flags\n\nx = 1\n",
    "existing-from": "import os\n\nfrom estimator_migrate.compat import resume\nfrom estimator_migrate.compat import canned as c\n\nx = 1\n",
    "star": "from estimator_migrate.compat import *\n\nx = 1\n",
    "relative": "import tensorflow as tf\n\nfrom . import compat\nfrom .compat import resume\n\nx = 1\n",
    "aliased-tensorflow": "import tensorflow as tf2\nimport tensorflow.compat.v1 as tf\n\ntf.x()\n",
    "parenthesized": "from estimator_migrate.compat import (\n    resume,\n)\n\nx = 1\n",
}
NEEDS = {
    "plain": [NeededImport("tf_keras"), NeededImport("os"), NeededImport("math")],
    "from": [
        NeededImport("estimator_migrate.compat", "resume"),
        NeededImport("estimator_migrate.compat", "estimator_hooks"),
        NeededImport("estimator_migrate.compat", "canned"),
    ],
    "long-from": [NeededImport("estimator_migrate.compat", name) for name in
                  ("canned", "estimator_hooks", "estimator_training", "kept_checkpoints", "resume", "timed_backup")],
    "aliased": [NeededImport("tensorflow", asname="tf2"), NeededImport("tensorflow", asname="tf3")],
    "mixed": [
        NeededImport("estimator_migrate.compat", "canned"),
        NeededImport("tf_keras"),
        NeededImport("tensorflow", asname="tf2"),
        NeededImport("time"),
    ],
    "none": [],
}


def ruff_import_findings(sources: dict[str, str], directory: Path) -> set[str]:
    """The names of `sources` (name -> code) in which ruff's isort rules find something, ruff's defaults
    (a module of `directory` is first party)."""
    for name, code in sources.items():
        (directory / f"{name}.py").write_text(code)
    (directory / "data.py").write_text("")
    completed = subprocess.run(
        [RUFF, "check", "--isolated", "--no-cache", "--select", "I", "--output-format", "concise",
         *(f"{name}.py" for name in sources)],
        cwd=directory, capture_output=True, text=True,
    )
    return {line.split(".py:")[0] for line in completed.stdout.splitlines() if ".py:" in line}


def imported(code: str) -> set[tuple]:
    return {(node.module, alias.name, alias.asname) if isinstance(node, ast.ImportFrom) else (alias.name, alias.asname)
            for node in ast.walk(ast.parse(code)) if isinstance(node, (ast.Import, ast.ImportFrom))
            for alias in node.names}


def test_added_imports_are_where_isort_puts_them(tmp_path):
    outputs = {f"{module}__{needs}": add_imports(cst.parse_module(MODULES[module]), NEEDS[needs]).code
               for module in MODULES for needs in NEEDS}
    sorted_inputs = set(MODULES) - ruff_import_findings(MODULES, tmp_path)
    assert {"sections", "commented-groups", "future-and-third-party", "relative"} <= sorted_inputs
    unsorted = ruff_import_findings({k: v for k, v in outputs.items() if k.split("__")[0] in sorted_inputs}, tmp_path)
    assert unsorted == set()
    for name, code in outputs.items():  # everything asked for is imported, nothing of the program's lost
        module, needs = name.split("__")
        for need in NEEDS[needs]:
            if need.obj is not None:
                assert (need.module, need.obj, None) in imported(code) or "import *" in code
            else:
                assert (need.module, need.asname) in imported(code)
        assert imported(MODULES[module]) <= imported(code)


def test_each_import_goes_to_its_section():
    code = add_imports(cst.parse_module(MODULES["sections"]), NEEDS["mixed"] + NEEDS["plain"]).code
    assert code == (
        "import math\nimport os\nimport sys\nimport time\n\nimport numpy as np\nimport tensorflow as tf\n"
        "import tensorflow as tf2\nimport tf_keras\nfrom estimator_migrate.compat import canned\n\nimport data\n"
        "\nx = 1\n"
    )


def test_a_missing_section_is_a_group_of_its_own_after_the_future_imports():
    code = add_imports(cst.parse_module(MODULES["future-and-third-party"]), [NeededImport("time")]).code
    assert code == "from __future__ import print_function\n\nimport time\n\nimport tensorflow as tf\n\nx = 1\n"


def test_new_names_join_an_existing_from_import_sorted():
    code = add_imports(cst.parse_module(MODULES["existing-from"]), NEEDS["from"]).code
    assert code.splitlines()[2] == "from estimator_migrate.compat import canned, estimator_hooks, resume"


def test_a_long_from_import_is_wrapped_one_name_a_line():
    code = add_imports(cst.parse_module(MODULES["no-blank-line"]), NEEDS["long-from"]).code
    assert "from estimator_migrate.compat import (\n    canned,\n    estimator_hooks,\n" in code
    assert code.endswith("    timed_backup,\n)\n\nx = 1\n")


def without_unused(original: str, rewritten: str) -> str:
    return remove_unused_imports(cst.parse_module(original), cst.parse_module(rewritten)).code


@pytest.mark.parametrize(
    "original, rewritten, expected",
    [
        (  # the rewrite replaced the only use
            "from tensorflow import estimator\nimport os\n\nest = estimator.DNNClassifier(os.sep)\n",
            "from tensorflow import estimator\nimport os\n\nest = canned.dnn(os.sep)\n",
            "import os\n\nest = canned.dnn(os.sep)\n",
        ),
        (  # unused before the rewrite too: the program's business
            "import tensorflow_addons\nfrom tensorflow import estimator\n\nestimator.DNNClassifier()\n",
            "import tensorflow_addons\nfrom tensorflow import estimator\n\ncanned.dnn()\n",
            "import tensorflow_addons\n\ncanned.dnn()\n",
        ),
        (  # a comment above a removed import stays
            "# the estimator API\nfrom tensorflow import estimator\nx = estimator.X()\n",
            "# the estimator API\nfrom tensorflow import estimator\nx = canned.X()\n",
            "# the estimator API\nx = canned.X()\n",
        ),
        (  # still used (code the rewrite kept)
            "from tensorflow import estimator\nestimator.X()\n",
            "from tensorflow import estimator\n# TODO(migrate): kept\nestimator.X()\n",
            "from tensorflow import estimator\n# TODO(migrate): kept\nestimator.X()\n",
        ),
    ],
    ids=["replaced", "unused-before", "comment", "still-used"],
)
def test_imports_the_rewrite_left_unused_go(original, rewritten, expected):
    assert without_unused(original, rewritten) == expected


@pytest.mark.parametrize(
    "imports, kept",
    [
        ("from tensorflow import estimator, feature_column\n", "from tensorflow import feature_column\n"),
        ("from tensorflow import feature_column, estimator\n", "from tensorflow import feature_column\n"),
        (
            "from tensorflow import (\n    feature_column,\n    estimator,\n)\n",
            "from tensorflow import (\n    feature_column,\n)\n",
        ),
        ("import tensorflow_estimator as tfe, os\n", "import os\n"),
    ],
)
def test_only_the_unused_names_of_an_import_go(imports, kept):
    original = imports + "\nx = estimator.X(feature_column, tfe, os)\n"
    rewritten = imports + "\nx = canned.X(feature_column, os)\n"
    assert without_unused(original, rewritten) == kept + "\nx = canned.X(feature_column, os)\n"
