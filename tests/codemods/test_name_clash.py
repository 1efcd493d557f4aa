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
