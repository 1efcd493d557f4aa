"""Runtime pieces migrated programs use: canned-Estimator builders and legacy-checkpoint loading."""

from .load import LoadResult, load_legacy_checkpoint  # noqa: F401
