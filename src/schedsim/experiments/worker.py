"""One process that imports the package once and forks a child for every workflow step.

A reproduction runs about two thousand short steps (a point's simulations, a table, a
figure). Run as fresh processes, each pays Python's start-up and the imports of numpy,
pandas, pyarrow, numba and the package, which is most of a small step's time
(docs/performance-pipeline.md). A local ``snakemake`` therefore starts one worker for
the run (the Snakefile's ``onstart``) and exports its socket as ``SCHEDSIM_WORKER``.
``python -m schedsim.experiments <command> ...`` with that variable set hands its
arguments, working directory, environment and standard streams to the worker and waits;
the worker forks a child, which runs exactly what the command would run in a process of
its own (:func:`schedsim.experiments.cli.main` with the same arguments) and writes to the
same log; the command exits with the child's status. The child is a copy of the worker
taken before the step: nothing a step does reaches the worker or a later step.

A signal to the command (Snakemake cancelling a job) is passed on to the child; a
command that disappears (killed) gets its child ended. The worker ends with the
Snakemake process that started it (and on SIGTERM from its ``onsuccess``/``onerror``).
Each step's CPU time and peak memory, which Snakemake's ``benchmark:`` files cannot see
in another process tree, end the step's log (:mod:`schedsim.experiments.usage`);
``python -m schedsim.experiments benchmarks`` reads them from there.

No fallback: with ``SCHEDSIM_WORKER`` set and no worker answering on it, the command
fails with exit code 2 and says so; without the variable it runs in its own process, as
it does on a cluster node.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import gc
import importlib
import json
import os
import pkgutil
import random
import selectors
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schedsim.experiments.client import FORWARDED, HEADER, SOCKET_VARIABLE, pass_on

AVAILABLE = sys.platform.startswith("linux") and hasattr(os, "pidfd_open")
"""The worker needs Linux (pidfds, PR_SET_PDEATHSIG); elsewhere steps run as before."""

# Imported before any child is forked: the heavy libraries, then every module of the
# package (plugins and ``__main__`` modules excepted: they run or load on demand).
LIBRARIES = ("numpy", "pandas", "pyarrow", "pyarrow.parquet", "numba", "matplotlib.figure",
             "matplotlib.backends.backend_agg")


# -------------------------------------------------------------------------- the worker


@dataclass
class _Step:
    connection: socket.socket
    pidfd: int = -1
    pid: int = 0


@dataclass
class Worker:
    """The forking server at the socket *path*: one connection and one pidfd per running
    step."""

    path: str
    steps: dict[int, _Step] = field(default_factory=dict)
    kernels: frozenset[tuple[str, int, int]] = frozenset()

    def load_kernels(self) -> None:
        """Load what the compiled-code cache holds now, if it changed since the last time
        (a step compiled a kernel): the next children start with it in memory."""
        from schedsim.kernel import cache  # (this module compiles nothing itself)

        state = _cache_state()
        if state != self.kernels:
            self.kernels = state
            cache.load_cached_kernels()

    def serve(self, listener: socket.socket, parent: int) -> None:
        """Fork a child per request on *listener* until a SIGTERM or the end of the
        process of the pidfd *parent*."""
        self.load_kernels()
        selector = selectors.DefaultSelector()
        selector.register(listener, selectors.EVENT_READ, "accept")
        selector.register(parent, selectors.EVENT_READ, "parent")
        stopping = []
        signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
        signal.signal(signal.SIGINT, lambda *_: stopping.append(True))
        try:
            while not stopping:
                for key, _ in selector.select(timeout=1.0):
                    if key.data == "accept":
                        with contextlib.suppress(OSError, ValueError):  # a client gone
                            self._start(listener, selector)
                    elif key.data == "parent":
                        stopping.append(True)
                    elif key.data[0] == "ended":
                        self._finish(key.data[1], selector)
                    else:  # the command's connection closed: the command is gone
                        selector.unregister(key.fileobj)
                        self._abandon(key.data[1])
        finally:
            for step in self.steps.values():
                pass_on(step.pid, signal.SIGTERM)
            listener.close()
            Path(self.path).unlink(missing_ok=True)

    def _start(self, listener: socket.socket, selector: selectors.BaseSelector) -> None:
        connection, _ = listener.accept()
        try:
            request, fds = _request(connection)
        except (OSError, ValueError, struct.error):
            connection.close()
            raise ValueError("an incomplete request") from None
        sys.stdout.flush()
        sys.stderr.flush()
        inherited = [key.fd for key in selector.get_map().values()]
        # the package and its libraries, imported here, are never traversed by a child's
        # garbage collections (nor copied on write by them)
        gc.freeze()
        pid = os.fork()
        if pid == 0:
            for fd in [*inherited, connection.fileno()]:
                os.close(fd)
            _child(request, fds)
        for fd in fds:
            os.close(fd)
        step = _Step(connection, os.pidfd_open(pid), pid)
        self.steps[pid] = step
        selector.register(step.pidfd, selectors.EVENT_READ, ("ended", pid))
        selector.register(connection, selectors.EVENT_READ, ("gone", pid))
        connection.sendall(json.dumps({"pid": pid}).encode() + b"\n")

    def _finish(self, pid: int, selector: selectors.BaseSelector) -> None:
        step = self.steps.pop(pid)
        selector.unregister(step.pidfd)
        if _registered(selector, step):
            selector.unregister(step.connection)
        os.close(step.pidfd)
        _, wait_status, usage = os.wait4(pid, 0)
        status = (128 + os.WTERMSIG(wait_status) if os.WIFSIGNALED(wait_status)
                  else os.WEXITSTATUS(wait_status))
        with contextlib.suppress(OSError):
            step.connection.sendall(json.dumps({"status": status, "usage": {
                "user": usage.ru_utime, "system": usage.ru_stime,
                "rss": usage.ru_maxrss / 1024}}).encode() + b"\n")
        step.connection.close()
        self.load_kernels()

    def _abandon(self, pid: int) -> None:
        pass_on(pid, signal.SIGTERM)


def _request(connection: socket.socket) -> tuple[dict[str, Any], list[int]]:
    """A command's request (argv, cwd, env) and its three standard streams."""
    message, fds, _flags, _address = socket.recv_fds(connection, 1 << 20, 3)
    if len(fds) != 3:
        for fd in fds:
            os.close(fd)
        raise ValueError("a request without its three standard streams")
    try:
        size = HEADER.unpack_from(message)[0]
        while len(message) < HEADER.size + size:
            more = connection.recv(1 << 20)
            if not more:
                raise ValueError("a request cut short")
            message += more
        return json.loads(message[HEADER.size:]), fds
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise


def _registered(selector: selectors.BaseSelector, step: _Step) -> bool:
    try:
        selector.get_key(step.connection)
    except KeyError:
        return False
    return True


def _end_with_worker() -> None:
    """Have the kernel send SIGTERM to this child when the worker ends (prctl
    PR_SET_PDEATHSIG): a step never outlives the worker that reports its status."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)


def _child(request: dict, fds: Sequence[int]) -> None:
    """In the forked child: become the command's process and run it; never returns."""
    status = 1
    try:
        _end_with_worker()
        for signum in (*FORWARDED, signal.SIGCHLD):  # as in a fresh interpreter
            signal.signal(signum, signal.default_int_handler if signum == signal.SIGINT
                          else signal.SIG_DFL)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        os.environ.pop(SOCKET_VARIABLE, None)
        random.seed()  # as a new interpreter does; the worker's state is shared otherwise
        from schedsim.experiments.cli import main

        sys.argv = ["python -m schedsim.experiments", *request["argv"]]
        status = main(request["argv"])
    except SystemExit as exit_:
        status = exit_.code if isinstance(exit_.code, int) else (exit_.code is not None)
        if isinstance(exit_.code, str):
            print(exit_.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
        status = 1
    finally:
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(int(status))


def preload() -> None:
    """Import the libraries and every module of the package (the children's imports),
    and set up numba's compiler target, which its first compiled call in a process
    otherwise does (about 0.3 s)."""
    for name in LIBRARIES:
        importlib.import_module(name)
    import schedsim

    for module in pkgutil.walk_packages(schedsim.__path__, "schedsim."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    from numba.core.registry import cpu_target

    cpu_target.target_context.refresh()


def _cache_state() -> frozenset[tuple[str, int, int]]:
    """The index files of the compiled-code cache, with their sizes and times."""
    from schedsim.kernel import cache

    return frozenset((entry.name, entry.stat().st_size, entry.stat().st_mtime_ns)
                     for entry in os.scandir(cache.cache_dir()) if entry.name.endswith(".nbi"))


@dataclass
class Started:
    """A worker started for one workflow run: its process and its private directory."""

    process: subprocess.Popen[bytes]
    directory: Path

    @property
    def socket(self) -> str:
        return str(self.directory / "socket")

    def stop(self) -> None:
        """End the worker (its running steps with it) and remove its directory."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)


def start(python: str, log: Path, timeout: float = 60.0) -> Started:
    """Start a worker with the interpreter *python* (the one the steps' ``python``
    names), ending with this process, its output in *log*; return once it listens."""
    directory = Path(tempfile.mkdtemp(prefix="schedsim-worker-"))
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as output:
        process = subprocess.Popen(
            [python, "-m", "schedsim.experiments.worker", "--socket",
             str(directory / "socket"), "--parent", str(os.getpid())],
            stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
            start_new_session=True)  # a Ctrl-C reaches the steps, which pass it on
    started = Started(process, directory)
    deadline = time.monotonic() + timeout
    while not os.path.exists(started.socket):
        if process.poll() is not None or time.monotonic() > deadline:
            started.stop()
            raise RuntimeError(f"the step worker did not start (see {log})")
        time.sleep(0.01)
    return started


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m schedsim.experiments.worker",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--socket", required=True, help="the socket to listen on (new)")
    parser.add_argument("--parent", type=int, default=os.getppid(),
                        help="the worker ends when this process ends")
    args = parser.parse_args(argv)
    parent = os.pidfd_open(args.parent)  # first: an end during the imports counts
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o177)
    try:
        listener.bind(args.socket + ".new")
    finally:
        os.umask(old_umask)
    listener.listen(64)  # requests wait here while the imports run
    os.rename(args.socket + ".new", args.socket)  # the path appears once it listens
    preload()
    Worker(args.socket).serve(listener, parent)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
