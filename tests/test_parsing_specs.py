"""tf.estimator.classifier_parse_example_spec / regressor_parse_example_spec -> compat.parsing_specs
(codemods/rules/parse_example_specs.py): tests/legacy/parse_spec_program.py prints its specs (labels, weights
by name and by column, TF1 columns, dtypes and defaults, the error of a label named like a feature) under
TensorFlow 2.15's tf.estimator, and its rewrite prints the same lines under TensorFlow 2.21."""

from __future__ import annotations

import pytest

from tests.conftest import MODERN_PYTHON, ROOT, migrate_file, run

pytestmark = [pytest.mark.legacy]
PROGRAM = ROOT / "tests" / "legacy" / "parse_spec_program.py"


def test_the_migrated_specs_are_the_estimators(legacy_python, tmp_path):
    expected = run([legacy_python, PROGRAM]).stdout
    migrated = migrate_file(PROGRAM, tmp_path, "keras")
    source = migrated.read_text()
    assert "estimator." not in source and source.count("= parsing_specs.") + source.count("    parsing_specs.") == 5
    assert expected.count("\n") == 5 and run([MODERN_PYTHON, migrated]).stdout == expected
