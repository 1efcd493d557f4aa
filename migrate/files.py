"""Reading source files strictly and writing files atomically (temp file + rename, mode bits kept)."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

_BOM = b"\xef\xbb\xbf"


class BadSource(Exception):
    """A file that cannot be read as Python source; the message says why, in one line."""


def read_source(path: Path) -> tuple[str, bool]:
    """The file's text and whether it began with a UTF-8 BOM; BadSource when unreadable, binary or not UTF-8."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise BadSource(f"cannot read: {error.strerror or error}") from error
    if b"\0" in data:
        raise BadSource("binary file (contains NUL bytes)")
    bom = data.startswith(_BOM)
    try:
        return data[len(_BOM) if bom else 0 :].decode("utf-8"), bom
    except UnicodeDecodeError as error:
        raise BadSource(f"not UTF-8 (byte {error.start}: {data[error.start : error.start + 1]!r})") from error


def atomic_write(path: Path, data: bytes, mode_from: Path | None = None) -> None:
    """Write `data` to `path` through a temp file in the same directory, then rename over it.

    The file's permission bits are kept (or taken from `mode_from`); a crash leaves the old file or the
    new one, never a half-written one.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    source_of_mode = mode_from or path
    mode = stat.S_IMODE(source_of_mode.stat().st_mode) if source_of_mode.exists() else None
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".migrate-tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def encode_source(text: str, bom: bool) -> bytes:
    return (_BOM if bom else b"") + text.encode("utf-8")
