"""Atomic file writes: a temporary file beside the target, then a rename.

A reader (or an interrupted run) never sees a half-written file. An output is written
only over a regular file or at a new path: a directory, a FIFO, a device or a socket
at the output path is an error (:func:`check_output`), never replaced. A symbolic link
is followed: the file it points to is written and the link stays. A new file gets the
mode the umask gives (``0666 & ~umask``, as the shell's ``>``), a replaced file keeps
its own. A temporary file is removed on any error and on any signal the process can
catch (:func:`on_signals_raise`).
"""

from __future__ import annotations

import os
import signal
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from schedsim.errors import InputError
from schedsim.inputs import file_kind


def target(path: str | Path) -> Path:
    """The file an output path writes: ``path``, or where its symbolic links lead."""
    return Path(os.path.realpath(path))


def check_output(path: str | Path) -> Path:
    """The file ``path`` writes (:func:`target`) if it may be written: a new path in an
    existing directory we may write, or a regular file we may write; else an
    InputError naming the path and what is wrong."""
    full = target(path)
    if not full.parent.is_dir():
        what = "is not a directory" if full.parent.exists() else "does not exist"
        raise InputError(f"output {path}: directory {full.parent} {what}")
    try:
        mode = full.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as err:
        raise InputError(f"output {path}: {err.strerror or err}") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise InputError(f"output {path} is a directory; give a file path")
    if mode is not None and not stat.S_ISREG(mode):
        raise InputError(f"output {path} is {file_kind(mode)}, not a regular file; outputs "
                         "are written only to regular files or new paths")
    if not os.access(full.parent, os.W_OK) or (mode is not None and not os.access(full, os.W_OK)):
        raise InputError(f"output {path}: not writable")
    return full


def _new_file_mode(existing: Path) -> int:
    try:
        return stat.S_IMODE(existing.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def stage_text(path: str | Path, text: str | Iterable[str | bytes]) -> Path:
    """Write ``text`` (UTF-8; it may come in pieces, consumed one at a time so that a large
    file is never whole in memory, and a piece may be bytes already encoded) to a new
    temporary file beside the file ``path`` writes; return it (not renamed:
    :func:`commit`)."""
    pieces = [text] if isinstance(text, str) else text
    return stage_pieces(path, (piece if isinstance(piece, bytes) else piece.encode("utf-8")
                               for piece in pieces))


def stage_bytes(path: str | Path, data: bytes) -> Path:
    """:func:`stage_text` of bytes."""
    return stage_pieces(path, [data])


def stage_pieces(path: str | Path, pieces: Iterable[bytes]) -> Path:
    full = target(path)
    full.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=full.parent, prefix=f".{full.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, _new_file_mode(full))
        with os.fdopen(fd, "wb") as handle:
            for piece in pieces:
                handle.write(piece)
    except BaseException:
        os.unlink(tmp)
        raise
    return Path(tmp)


def commit(staged: Path, path: str | Path) -> None:
    """Rename the staged file over the file ``path`` writes, checked again just before
    (:func:`check_output`); on any failure the staged file is removed."""
    try:
        os.replace(staged, check_output(path))
    except BaseException:
        staged.unlink(missing_ok=True)
        raise


def write_pieces_atomic(path: str | Path, pieces: Iterable[bytes]) -> None:
    """Write ``pieces`` to ``path`` through a temporary file in the same directory."""
    commit(stage_pieces(path, pieces), path)


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory."""
    write_pieces_atomic(path, [data])


def write_text_atomic(path: str | Path, text: str | Iterable[str | bytes]) -> None:
    """Write ``text`` (UTF-8, whole or in pieces) to ``path`` atomically."""
    commit(stage_text(path, text), path)


def write_all_or_none(texts: dict[str, str | Iterable[str | bytes]]) -> None:
    """Write every file atomically, all of them or (on an error, a signal included) none
    of them; a text may come in pieces (:func:`stage_text`)."""
    for path in texts:
        check_output(path)
    staged: list[tuple[str, Path]] = []
    try:
        for path, text in texts.items():
            staged.append((path, stage_text(path, text)))
        for path, temporary in staged:
            commit(temporary, path)
    except OSError as err:
        raise InputError(f"cannot write {err.filename or ''}: {err.strerror or err}") from None
    finally:
        for _, temporary in staged:
            temporary.unlink(missing_ok=True)


class Terminated(BaseException):
    """A signal asked the process to end (see :func:`on_signals_raise`)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


# Signals that end a process by default and that it can catch; SIGINT already raises
# KeyboardInterrupt, and Python ignores SIGPIPE (a write raises BrokenPipeError). SIGKILL
# cannot be caught: a temporary file it leaves is never taken for an output (its name
# starts with a dot and ends in .tmp).
ENDING_SIGNALS = tuple(getattr(signal, name) for name in (
    "SIGTERM", "SIGHUP", "SIGQUIT", "SIGALRM", "SIGUSR1", "SIGUSR2", "SIGXCPU", "SIGXFSZ")
    if hasattr(signal, name))


def _raise(signum: int, frame: Any) -> None:
    raise Terminated(signum)


@contextmanager
def on_signals_raise() -> Iterator[None]:
    """Inside the block, a signal that would end the process raises :class:`Terminated`
    instead, so that every ``finally`` and ``except BaseException`` runs (temporary files
    are removed); the handlers are restored after it."""
    previous: dict[int, Callable[..., Any] | int | None] = {}
    for signum in ENDING_SIGNALS:
        with suppress(ValueError, OSError):  # not the main thread, or not settable here
            previous[signum] = signal.signal(signum, _raise)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def run_stopping_on_signals(prefix: str, command: Callable[[], int]) -> int:
    """``command()`` with every ending signal raising :class:`Terminated`; a signal ends it
    with one line on stderr and exit code 128 + its number, no output half-written."""
    try:
        with on_signals_raise():
            return command()
    except Terminated as signal:
        print(f"{prefix}: {signal.name}: stopped; no output written", file=sys.stderr)
        return 128 + signal.signum
