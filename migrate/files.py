"""Reading source files strictly and writing files atomically (temp file + rename, mode bits kept)."""

from __future__ import annotations

import io
import os
import stat
import tempfile
import tokenize
from pathlib import Path


class BadSource(Exception):
    """A file that cannot be read as Python source; the message says why, in one line."""


def read_source(path: Path) -> tuple[str, str]:
    """The file's text and its encoding: UTF-8 ("utf-8-sig" when it begins with a BOM) or the one its PEP 263
    coding comment declares (`# -*- coding: latin-1 -*-`), as Python reads it; BadSource when unreadable, binary,
    or not in that encoding."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise BadSource(f"cannot read: {error.strerror or error}") from error
    if b"\0" in data:
        raise BadSource("binary file (contains NUL bytes)")
    try:
        encoding = tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    except SyntaxError as error:
        if "invalid or missing encoding declaration" not in str(error):  # an unknown coding, a BOM and another
            raise BadSource(str(error)) from error
        encoding = "utf-8"  # (its first lines are not UTF-8 and declare no coding: said below, with the byte)
    try:
        return data.decode(encoding), encoding
    except UnicodeDecodeError as error:
        byte = f"byte {error.start}: {data[error.start : error.start + 1]!r}"
        if not encoding.startswith("utf-8"):
            raise BadSource(f"not {encoding}, the coding it declares ({byte})") from error
        raise BadSource(f"not UTF-8 ({byte}): save it as UTF-8, or declare its coding in its first two lines "
                        "(# -*- coding: latin-1 -*-), as Python reads it") from error


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


def encode_source(text: str, encoding: str) -> bytes:
    """`text` in the encoding its file was read in (`read_source`): a BOM kept, a declared coding kept."""
    return text.encode(encoding)
