"""Every input file is checked before it is read: a regular file we may read, in the
encoding the reader expects.

A FIFO, a device or a directory given as an input would hang the reader or fail deep
inside it; a file in UTF-16, with a byte-order mark or with NUL bytes would be reported
as a line with the wrong number of fields. :func:`check_input` and :func:`read_input`
name the file and what is wrong with it instead, as an :class:`InputError`.
"""

from __future__ import annotations

import gzip
import os
import stat
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from schedsim.errors import InputError

GZIP_MAGIC = b"\x1f\x8b"
_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def file_kind(mode: int) -> str:
    """What a file of this ``st_mode`` is, in words (``a FIFO (named pipe)``, ...)."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def check_input(path: str | Path) -> Path:
    """``path`` if it is a regular file (a symbolic link to one included) that we may
    read; else an InputError naming it and what it is."""
    path = Path(path)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as err:
        raise InputError(f"{path}: cannot read: {err.strerror or err}") from None
    if not stat.S_ISREG(mode):
        raise InputError(f"{path}: is {file_kind(mode)}, not a regular file; give a file")
    if not os.access(path, os.R_OK):
        raise InputError(f"{path}: cannot read: permission denied")
    return path


def read_input(path: str | Path) -> bytes:
    """The bytes of a checked input file (:func:`check_input`), decompressed when they
    are gzip data (whatever the file's name)."""
    path = check_input(path)
    with _read_errors(path), open(path, "rb") as handle:
        data = handle.read()
        if _is_gzip(data[:2], path):
            data = gzip.decompress(data)
    return data


@contextmanager
def opened_input(path: str | Path) -> Iterator[BinaryIO]:
    """:func:`read_input` as a stream, for a reader that holds a piece of a large file at
    a time: the same checks, the same decompression and the same errors, raised by the
    reads as they happen."""
    path = check_input(path)
    with _read_errors(path), open(path, "rb") as handle:
        if _is_gzip(handle.peek(2)[:2], path):
            with gzip.GzipFile(fileobj=handle) as stream:
                yield stream  # type: ignore[misc]
        else:
            yield handle


def _is_gzip(start: bytes, path: Path) -> bool:
    """Whether a file that starts with ``start`` is gzip data; a name ending in .gz on
    other data is an error."""
    if start.startswith(GZIP_MAGIC):
        return True
    if path.suffix == ".gz":
        raise InputError(f"{path}: the name ends in .gz but the file is not gzip data")
    return False


@contextmanager
def _read_errors(path: Path) -> Iterator[None]:
    """A failed read or decompression of ``path`` as an InputError naming it."""
    try:
        yield
    except OSError as err:
        if isinstance(err, gzip.BadGzipFile):
            raise InputError(f"{path}: truncated or corrupt gzip file") from None
        raise InputError(f"{path}: cannot read: {err.strerror or err}") from None
    except (EOFError, zlib.error):
        raise InputError(f"{path}: truncated or corrupt gzip file") from None


def check_text(data: bytes, path: str | Path, what: str) -> None:
    """Refuse bytes that are not plain text of the kind ``what`` (e.g. ``SWF (ASCII)``):
    a byte-order mark, UTF-16 or UTF-32, a NUL byte (binary data)."""
    if data.startswith(_UTF8_BOM):
        raise InputError(f"{path}: starts with a UTF-8 byte-order mark; {what} files have "
                         "none: save the file without it")
    if data.startswith(_UTF16_BOMS) or _alternate_nuls(data[:64]):
        raise InputError(f"{path}: is UTF-16 or UTF-32 text; {what} files are ASCII: convert "
                         "it (e.g. iconv -f UTF-16 -t ASCII)")
    nul = data.find(0)
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise InputError(f"{path}:{line}: a NUL byte: binary data, not {what} text")


def _alternate_nuls(sample: bytes) -> bool:
    """ASCII text in UTF-16 without a byte-order mark: every other byte is NUL."""
    even, odd = sample[0::2], sample[1::2]
    return len(odd) > 0 and (odd.count(0) == len(odd)) != (even.count(0) == len(even))
