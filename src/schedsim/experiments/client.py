"""The command's side of the step worker (:mod:`schedsim.experiments.worker`): hand a
step to the worker and wait for its status.

Every workflow step starts ``python -m schedsim.experiments``; under the worker that
process only does this, so it imports nothing but what this needs (26 ms of CPU
a step instead of 49 with the worker's own imports).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import struct
import sys
from collections.abc import Sequence
from typing import Any

SOCKET_VARIABLE = "SCHEDSIM_WORKER"
"""The environment variable that names a running worker's socket."""
USAGE_LINE = "schedsim worker: {user:.3f} s user, {system:.3f} s system, {rss:.1f} MB peak RSS"
"""The last line of a step's standard error under the worker
(:mod:`schedsim.experiments.usage` reads it)."""
HEADER = struct.Struct("!I")
"""A request's length, before it."""
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)
"""The signals a command passes on to its step."""


def delegate(argv: Sequence[str], path: str) -> int:
    """Run ``python -m schedsim.experiments`` *argv* in a child of the worker at *path*
    with this process's working directory, environment and standard streams; the
    child's exit status (128 + N when it ended by signal N)."""
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        client.connect(path)
    except OSError as err:
        client.close()
        print(f"schedsim experiments: error: {SOCKET_VARIABLE}={path}: no worker answers "
              f"there ({err.strerror}); unset {SOCKET_VARIABLE} to run in this process",
              file=sys.stderr)
        return 2
    child: list[int] = []  # its pid, once the worker has said it
    early: list[int] = []  # signals that came before that

    def forward(signum: int, _frame: object) -> None:
        if child:
            pass_on(child[0], signum)
        else:
            early.append(signum)

    previous = {signum: signal.signal(signum, forward) for signum in FORWARDED}
    try:
        with client:
            request = json.dumps({"argv": list(argv), "cwd": os.getcwd(),
                                  "env": dict(os.environ)}).encode()
            socket.send_fds(client, [HEADER.pack(len(request)) + request], [0, 1, 2])
            reader = client.makefile("rb")
            child.append(_message(reader)["pid"])
            for signum in early:
                pass_on(child[0], signum)
            ended = _message(reader)
            print(USAGE_LINE.format(**ended["usage"]), file=sys.stderr)
            return int(ended["status"])
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def pass_on(pid: int, signum: int) -> None:
    """Signal ``pid`` unless it has ended."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signum)


def _message(reader: Any) -> dict[str, Any]:  # a binary file of the socket
    line = reader.readline()
    if not line:
        raise SystemExit("schedsim experiments: error: the worker ended during the step")
    return json.loads(line)
