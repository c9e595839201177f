"""Atomic file writes: a temporary file beside the target, then a rename.

A reader (or an interrupted run) never sees a half-written file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


def stage_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to a new temporary file beside ``path``; return it (not renamed)."""
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    directory.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
    except BaseException:
        os.unlink(tmp)
        raise
    return Path(tmp)


def stage_text(path: str | Path, text: str | Iterable[str]) -> Path:
    """:func:`stage_bytes` of ``text`` in UTF-8; ``text`` may come in pieces (consumed one
    at a time, so a large file is never whole in memory)."""
    if isinstance(text, str):
        return stage_bytes(path, text.encode("utf-8"))
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    directory.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            for piece in text:
                handle.write(piece.encode("utf-8"))
    except BaseException:
        os.unlink(tmp)
        raise
    return Path(tmp)


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory."""
    tmp = stage_bytes(path, data)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    write_bytes_atomic(path, text.encode("utf-8"))
