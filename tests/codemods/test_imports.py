"""codemods.imports writes what LibCST's AddImportsVisitor writes, for the imports the rewrite asks for."""

import libcst as cst
import pytest
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor

from codemods.imports import NeededImport, add_imports, remove_unused_imports

MODULES = {
    "docstring": '"""Trains."""\nimport tensorflow as tf\n\nx = 1\n',
    "no-imports": "x = 1\n",
    "empty": "",
    "comment-after-block": "import tensorflow as tf\n# the model\nx = 1\n",
    "no-blank-line": "import tensorflow as tf\nx = 1\n",
    "existing-from": "import os\nfrom estimator_migrate.compat import resume\nfrom estimator_migrate.compat import canned as c\n\nx = 1\n",
    "star": "from estimator_migrate.compat import *\n\nx = 1\n",
    "relative": "from . import compat\nfrom .compat import resume\n\nx = 1\n",
    "aliased-tensorflow": "import tensorflow.compat.v1 as tf\nimport tensorflow as tf2\n\ntf.x()\n",
    "import-after-code": "x = 1\nimport os\n",
    "parenthesized": "from estimator_migrate.compat import (\n    resume,\n)\n\nx = 1\n",
}
NEEDS = {
    "plain": [NeededImport("tf_keras"), NeededImport("os"), NeededImport("math")],
    "from": [
        NeededImport("estimator_migrate.compat", "resume"),
        NeededImport("estimator_migrate.compat", "estimator_hooks"),
        NeededImport("estimator_migrate.compat", "canned"),
    ],
    "aliased": [NeededImport("tensorflow", asname="tf2"), NeededImport("tensorflow", asname="tf3")],
    "mixed": [
        NeededImport("estimator_migrate.compat", "canned"),
        NeededImport("tf_keras"),
        NeededImport("tensorflow", asname="tf2"),
        NeededImport("time"),
    ],
    "none": [],
}


def with_libcst(source: str, needed: list[NeededImport]) -> str:
    context = CodemodContext()
    for imp in needed:
        AddImportsVisitor.add_needed_import(context, imp.module, imp.obj, imp.asname)
    return AddImportsVisitor(context).transform_module(cst.parse_module(source)).code


@pytest.mark.parametrize("needs", NEEDS)
@pytest.mark.parametrize("module", MODULES)
def test_same_output_as_libcst(module, needs):
    source, needed = MODULES[module], NEEDS[needs]
    assert add_imports(cst.parse_module(source), needed).code == with_libcst(source, needed)


def test_new_names_join_an_existing_from_import_sorted():
    code = add_imports(cst.parse_module(MODULES["existing-from"]), NEEDS["from"]).code
    assert code.splitlines()[1] == "from estimator_migrate.compat import canned, estimator_hooks, resume"


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
