"""`experimental_export_all_saved_models` is kept with a TODO naming the serving export that replaces it
(codemods/rules/export_all_saved_models.py): a migrated estimator has no such method."""

from __future__ import annotations

from codemods.transformer import migrate_source

PROGRAM = """\
import tensorflow as tf


def export(model, base_dir, receivers):
    return model.experimental_export_all_saved_models(export_dir_base=base_dir, input_receiver_fn_map=receivers)
"""


def test_the_call_stays_with_a_todo_naming_the_serving_export():
    migrated = migrate_source(PROGRAM)
    assert PROGRAM.splitlines()[-1] in migrated.code.splitlines()  # the call as written
    assert "# TODO(migrate): export-all-saved-models: experimental_export_all_saved_models: not migrated" in migrated.code
    assert "estimator_training.export_saved_model(model, export_dir_base" in migrated.code
    assert [(f.rule, f.migrated) for f in migrated.findings] == [("export-all-saved-models", False)]
    assert migrate_source(migrated.code).code == migrated.code
