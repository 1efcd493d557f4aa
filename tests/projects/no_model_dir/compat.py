"""Python 2 and 3 from one code base, as this project once needed."""
import json


def json_line(values):
    """One line of JSON, the same text under Python 2 and 3 (keys sorted)."""
    return json.dumps(values, sort_keys=True)
