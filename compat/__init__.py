"""Runtime pieces migrated programs use: canned-Estimator builders and legacy-checkpoint loading."""

from compat.load import LoadResult, load_legacy_checkpoint  # noqa: F401
