"""Write the expected outputs of one fixture case from the current codemods (review the diff after!).

Usage: python -m tests.codemods.regenerate CASE [CASE ...]
"""

import sys
from pathlib import Path

from codemods.transformer import migrate_source

FIXTURES = Path(__file__).parent / "fixtures"

for case in sys.argv[1:]:
    source = (FIXTURES / case / "input.py").read_text()
    for target in ("keras", "loop"):
        code = migrate_source(source, target).code
        path = FIXTURES / case / f"{target}.py"
        if code != source:
            path.write_text(code)
        else:
            path.unlink(missing_ok=True)
        print(f"{case}/{target}: {'unchanged' if code == source else 'written'}")
