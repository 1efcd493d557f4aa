"""A module binding a name the migrated code imports is left as it is, with a finding where it binds it
(fixture noop_name_clash checks the code is unchanged)."""

from codemods.transformer import migrate_source
from tests.codemods.test_fixtures import FIXTURES


def test_a_name_the_migration_imports_is_reported_where_the_module_binds_it():
    result = migrate_source((FIXTURES / "noop_name_clash" / "input.py").read_text(), "loop")
    assert not result.changed
    assert [(f.rule, f.line, f.col, f.migrated) for f in result.findings] == [("name-clash", 4, 0, False)]
    assert "`canned`" in result.findings[0].message and "compat.canned" in result.findings[0].message


def test_names_bound_by_the_migration_itself_do_not_clash():
    source = (FIXTURES / "estimator_evaluated" / "input.py").read_text()
    once = migrate_source(source, "keras")
    assert once.changed and "from estimator_migrate.compat import" in once.code
    assert migrate_source(once.code, "keras").findings == []


def test_variables_the_migration_names_after_an_estimator_called_estimator_are_not_its_imports():
    """`estimator = DNNClassifier(...)` + train_and_evaluate: its evaluation callback was `estimator_evaluation`,
    the name of the compat module the callback's class comes from (the program then failed with
    UnboundLocalError)."""
    import ast

    source = (FIXTURES / "train_and_evaluate" / "input.py").read_text()
    assert "classifier = " in source
    for target in ("keras", "loop"):
        code = migrate_source(source.replace("classifier", "estimator"), target).code
        tree = ast.parse(code)
        imported = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                    for alias in node.names}
        bound = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
        assert "estimator_evaluation" in imported and "estimator_periodic_evaluation" in bound, target
        assert not imported & bound, target
