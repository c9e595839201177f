"""What a long run says while it works: numba compiling, and jobs done.

The compiled kernels are cached on disk, so only the first run after installing or
changing the package compiles them; the goal-oriented search takes about a minute to
compile, during which a run would otherwise print nothing. :func:`compile_notice` says
so, once, when numba starts compiling (numba announces each compilation that the cache
could not serve: ``numba.core.event``, kind ``numba:compile``). :class:`Progress`
reports jobs done: a bar on a terminal, a plain line now and then elsewhere (a log file,
a batch job's output).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO


@contextmanager
def compile_notice(prefix: str, stream: TextIO | None = None) -> Iterator[None]:
    """Inside the block, the first numba compilation prints one line on ``stream``
    (stderr by default) that says what is happening and that it happens once."""
    from numba.core import event

    out = stream if stream is not None else sys.stderr

    class _Notice(event.Listener):
        said = False

        def on_start(self, ev: Any) -> None:
            if self.said:
                return
            self.said = True
            function = getattr(getattr(ev.data.get("dispatcher"), "py_func", None),
                               "__module__", "schedsim")
            print(f"{prefix}: compiling the numba code of {function} (once after installing "
                  "or changing schedsim; up to about a minute, e.g. for goal-oriented); "
                  "later runs reuse it", file=out, flush=True)

        def on_end(self, ev: Any) -> None:
            pass

    with event.install_listener("numba:compile", _Notice()):
        yield


INTERVAL = 30.0  # seconds between two progress lines off a terminal


class Progress:
    """Jobs done out of ``total``: a tqdm bar on stderr after 2 s when stderr is a
    terminal, else one line every ``interval`` seconds (``INTERVAL``; the first after
    ``interval``).
    Use as a context manager; it returns the function to call once per job done."""

    def __init__(self, total: int, prefix: str, interval: float | None = None,
                 stream: TextIO | None = None) -> None:
        self.total = total
        self.prefix = prefix
        self.interval = INTERVAL if interval is None else interval
        self.stream = stream if stream is not None else sys.stderr
        self.bar: Any = None
        self.done = 0
        self.last = 0.0

    def __enter__(self) -> Callable[[], None]:
        self.last = time.monotonic()
        if self.stream.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=self.total, unit="job", delay=2.0, file=self.stream,
                            mininterval=0.5)
        return self.tick

    def tick(self) -> None:
        self.done += 1
        if self.done % 1000 and self.done != self.total:
            return
        if self.bar is not None:
            self.bar.update(self.done - self.bar.n)
            return
        now = time.monotonic()
        if now - self.last >= self.interval:
            self.last = now
            print(f"{self.prefix}: {self.done:,} of {self.total:,} jobs done "
                  f"({100 * self.done / max(self.total, 1):.0f}%)", file=self.stream,
                  flush=True)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()
