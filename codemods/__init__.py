"""The rewrite of Estimator programs: LibCST codemods (codemods/transformer.py runs the rules of codemods/rules)."""

TARGETS = ("keras", "loop")  # what a rewrite migrates to: Model.fit + BackupAndRestore, or a custom loop
