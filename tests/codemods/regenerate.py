"""Write the expected outputs of one fixture case from the current codemods (review the diff after!).

Usage: python -m tests.codemods.regenerate [--exact] CASE [CASE ...]
(--exact also writes keras_exact.py / loop_exact.py; cases that have them keep them up to date.)
"""

import sys

from codemods.transformer import migrate_source
from tests.codemods.test_fixtures import FIXTURES, expected_name, variants

arguments = sys.argv[1:]
with_exact = "--exact" in arguments
for case in [argument for argument in arguments if argument != "--exact"]:
    source = (FIXTURES / case / "input.py").read_text()
    wanted = variants(case) + ([(case, t, True) for t in ("keras", "loop")] if with_exact else [])
    for _, target, exact in sorted(set(wanted)):
        code = migrate_source(source, target, exact).code
        path = FIXTURES / case / expected_name(target, exact)
        if code != source:
            path.write_text(code)
        else:
            path.unlink(missing_ok=True)
        print(f"{case}/{path.name}: {'unchanged' if code == source else 'written'}")
