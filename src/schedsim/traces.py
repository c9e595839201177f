"""Real logs as workflow inputs: found in a search directory, or fetched and verified.

The config names each log of the Parallel Workloads Archive by its archive file
name, URL, SHA-256 (where known) and machine size (``traces.logs``). A log is
looked for, in order, in the configured search directories and in the download
directory (``resources/traces``); a log found nowhere is fetched there (retries,
a timeout, the checksum verified, written atomically). A checksum that does not
match is an error naming the file and both digests.

    python -m schedsim.traces fetch --url URL --out FILE [--sha256 HEX]

is what the workflow's ``fetch_trace`` rule runs. Errors end with one line and
exit code 2.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedsim.atomic import commit, stage_bytes
from schedsim.errors import InputError

CHUNK = 1 << 20
DOWNLOAD_DIR = "resources/traces"


@dataclass(frozen=True)
class TraceLog:
    """One real log: its name in the config, archive file, URL, checksum, machine size."""

    name: str
    file: str
    url: str
    sha256: str | None
    procs: int

    @property
    def download_path(self) -> str:
        return f"{DOWNLOAD_DIR}/{self.file}"


@dataclass(frozen=True)
class TraceSettings:
    """``traces:`` of the config: the logs, where to look, how to fetch."""

    logs: Mapping[str, TraceLog]
    search: tuple[str, ...] = ()
    timeout: float = 60.0
    retries: int = 3

    @classmethod
    def of(cls, config: Mapping[str, Any]) -> TraceSettings:
        raw = config.get("traces") or {}
        logs = {name: TraceLog(name, entry["file"], entry["url"], entry.get("sha256"),
                               int(entry["procs"]))
                for name, entry in (raw.get("logs") or {}).items()}
        return cls(logs, tuple(raw.get("search") or ()), float(raw.get("timeout", 60.0)),
                   int(raw.get("retries", 3)))

    def log(self, name: str) -> TraceLog:
        if name not in self.logs:
            raise ValueError(f"no log {name!r} under traces.logs; known: "
                             f"{', '.join(self.logs) or '(none)'}")
        return self.logs[name]


def sha256_of(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def verify(path: str | Path, expected: str | None) -> None:
    """Raise InputError naming the file and both digests when the checksum differs."""
    if expected is None:
        return
    actual = sha256_of(path)
    if actual != expected.lower():
        raise InputError(f"{path}: SHA-256 {actual} does not match the expected {expected}")


def find(log: TraceLog, settings: TraceSettings, base: Path) -> Path | None:
    """The log's file, verified, or None: in a search directory (relative to ``base``),
    else in the download directory (relative to the working directory)."""
    candidates = [(base / d / log.file).resolve() for d in settings.search]
    for path in [*candidates, Path(log.download_path)]:
        if path.is_file():
            verify(path, log.sha256)
            return path
    return None


def reachable(url: str, timeout: float) -> str | None:
    """None when the URL answers a HEAD request, else why not (one line)."""
    request = urllib.request.Request(url, method="HEAD")
    try:
        with urllib.request.urlopen(request, timeout=timeout):
            return None
    except urllib.error.HTTPError as err:
        return f"{url}: HTTP {err.code} {err.reason}"
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        return f"{url}: {reason}"


def fetch(url: str, out: str | Path, sha256: str | None, timeout: float = 60.0,
          retries: int = 3, wait: float = 2.0) -> None:
    """Download ``url`` to ``out`` (atomically), verifying ``sha256``; InputError on failure.

    A failed attempt (connection, timeout, truncated body) is retried ``retries``
    times with a growing pause; an HTTP 4xx answer is not retried.
    """
    if not url.startswith(("http://", "https://")):
        raise InputError(f"{url}: only http(s) URLs are fetched")
    problem = ""
    for attempt in range(retries + 1):
        try:
            data = _download(url, timeout)
        except urllib.error.HTTPError as err:
            problem = f"{url}: HTTP {err.code} {err.reason}"
            if 400 <= err.code < 500:
                break
        except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as err:
            problem = f"{url}: {getattr(err, 'reason', None) or err or type(err).__name__}"
        else:
            staged = stage_bytes(out, data)
            try:
                verify(staged, sha256)
            except InputError:
                staged.unlink(missing_ok=True)
                raise InputError(f"{url}: SHA-256 {hashlib.sha256(data).hexdigest()} does "
                                 f"not match the expected {sha256}") from None
            commit(staged, out)
            return
        if attempt < retries:
            time.sleep(wait * (attempt + 1))
    raise InputError(f"cannot fetch {problem}")


def _download(url: str, timeout: float) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        length = response.headers.get("Content-Length")
        data = response.read()
    if length is not None and len(data) != int(length):
        raise ValueError(f"truncated download ({len(data)} of {length} bytes)")
    return data


def _from_config(args: argparse.Namespace) -> None:
    """``--url``, ``--sha256`` (and ``--out`` unless given) of ``--log`` in ``--config``."""
    from schedsim.experiments.configcheck import load_config_file

    if not args.config:
        raise InputError("--log needs --config, the config that names the log")
    try:
        log = TraceSettings.of(load_config_file(args.config)).log(args.log)
    except (KeyError, TypeError, ValueError) as err:
        raise InputError(f"{args.config}: {err}") from None
    args.url, args.sha256 = log.url, log.sha256
    args.out = args.out or log.download_path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m schedsim.traces",
                                     description="Fetch a real log, verified.")
    sub = parser.add_subparsers(dest="command", required=True)
    get = sub.add_parser("fetch", help="download a log to a file, checking its SHA-256")
    get.add_argument("--url", help="the log's URL (or --config with --log)")
    get.add_argument("--out", help="where to write it (with --log: resources/traces/<file>)")
    get.add_argument("--sha256", default=None)
    get.add_argument("--config", help="a workflow config whose traces.logs names the log")
    get.add_argument("--log", help="the log's name under traces.logs of --config")
    get.add_argument("--timeout", type=float, default=60.0)
    get.add_argument("--retries", type=int, default=3)
    args = parser.parse_args(argv)
    try:
        if args.log:
            _from_config(args)
        if not (args.url and args.out):
            raise InputError("give --url and --out, or --config and --log")
        fetch(args.url, args.out, args.sha256, args.timeout, args.retries)
    except InputError as err:
        print(f"schedsim traces fetch: error: {err}", file=sys.stderr)
        return 2
    print(f"{args.out}: fetched from {args.url}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
