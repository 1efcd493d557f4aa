"""Which modules are worth parsing, decided on their text: most of a real tree has nothing to migrate.

Every construct the rules act on is reached through a name containing "estimator" (tf.estimator,
tf.compat.v1.estimator, tensorflow_estimator, estimator.inputs.*), is a SessionRunHook subclass, or is an API
the unsupported-api rule flags (MonitoredTrainingSession, Saver, built-in hooks, ...: codemods/guidance.py). A
module that spells none of those names is handed back as it was read. This module imports no LibCST, so a
run over such modules never loads it.
"""

from __future__ import annotations

from codemods.guidance import GUIDANCE

_TOO_COMMON = {"run"}  # in nearly every module: no filter at all
# Substrings most of the names share: a module without one is cleared by one search for the group's names.
_STEMS = ("stimator", "Hook", "hook", "Saver", "Exporter", "Classifier", "Regressor")


def _spelled_by(path: str) -> str:
    """A word every use of the API `path` spells out: its name, or for a name too common to filter on
    (`learn_runner.run`) its module's, which the import or the attribute chain reaching it names."""
    parts = path.split(".")
    if parts[0] == "estimator":  # (tf.estimator.X, tf.compat.v1.estimator.X, an import from an estimator module:
        return "estimator"       # any use spells it; its own name may be a common word: `Head` is in `Header`)
    return parts[-2] if parts[-1] in _TOO_COMMON and len(parts) > 1 else parts[-1]


def names_worth_parsing() -> tuple[str, ...]:
    """The names: a module that contains one of them is parsed."""
    # ("tutorials": TF 1.x's MNIST reader, whose import stops a program on TensorFlow 2: rules/tutorial_datasets.py)
    return tuple(sorted({"estimator", "SessionRunHook", "tutorials", *(_spelled_by(path) for path in GUIDANCE)}))


def _by_stem(names: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(substring, the names holding it) pairs covering `names`; a name with no stem is its own substring (and
    its names are then empty: finding the substring is finding the name)."""
    groups: dict[str, list[str]] = {}
    for name in names:
        stem = next((stem for stem in _STEMS if stem in name), name)
        groups.setdefault(stem, []).append(name)
    return tuple((stem, () if group == [stem] else tuple(group)) for stem, group in groups.items())


# Searched with `in`, a substring at a time: faster than one regular expression of all the names.
_GROUPS = _by_stem(names_worth_parsing())


def may_need_migration(source: str) -> bool:
    """False when no rule can act on `source` (checked on the text, before parsing): TF2 code, plain Python."""
    return any(stem in source and (not names or any(name in source for name in names)) for stem, names in _GROUPS)
