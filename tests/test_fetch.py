"""Fetching real logs, against a local HTTP server on 127.0.0.1 (no internet needed)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from schedsim.errors import InputError
from schedsim.traces import TraceLog, TraceSettings, fetch, find, reachable

SWF = b"; MaxProcs: 8\n1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"
DIGEST = hashlib.sha256(SWF).hexdigest()


class Handler(BaseHTTPRequestHandler):
    """/log.swf: the file; /slow: answers after 3 s; /cut: promises more than it sends."""

    def do_HEAD(self) -> None:
        self.do_GET(body=False)

    def do_GET(self, body: bool = True) -> None:
        if self.path == "/slow":
            time.sleep(3)
        if self.path in ("/log.swf", "/slow"):
            self.send_response(200)
            self.send_header("Content-Length", str(len(SWF)))
            self.end_headers()
            if body:
                self.wfile.write(SWF)
        elif self.path == "/cut":
            self.send_response(200)
            self.send_header("Content-Length", str(10 * len(SWF)))
            self.end_headers()
            if body:
                self.wfile.write(SWF[:20])
                self.wfile.flush()
                self.close_connection = True
        else:
            self.send_error(404, "Not Found")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def test_download_with_the_right_checksum(server: str, tmp_path: Path) -> None:
    out = tmp_path / "log.swf"
    fetch(f"{server}/log.swf", out, DIGEST, timeout=5, retries=0)
    assert out.read_bytes() == SWF


def test_a_wrong_checksum_names_both_digests_and_writes_nothing(server: str,
                                                                tmp_path: Path) -> None:
    out = tmp_path / "log.swf"
    with pytest.raises(InputError, match=f"SHA-256 {DIGEST} does not match the expected 0+"):
        fetch(f"{server}/log.swf", out, "0" * 64, timeout=5, retries=0)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("path", "message"), [
    ("/missing", "HTTP 404"),
    ("/slow", "timed out"),
    ("/cut", ""),
])
def test_failures_give_one_line_and_leave_no_partial_file(server: str, tmp_path: Path,
                                                         path: str, message: str) -> None:
    out = tmp_path / "log.swf"
    result = subprocess.run([sys.executable, "-m", "schedsim.traces", "fetch", "--url",
                             f"{server}{path}", "--out", str(out), "--timeout", "1",
                             "--retries", "1"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("schedsim traces fetch: error: cannot fetch")
    assert message in lines[0] and "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_reachable_says_why_not(server: str) -> None:
    assert reachable(f"{server}/log.swf", 5) is None
    assert "404" in str(reachable(f"{server}/missing", 5))
    assert reachable("http://127.0.0.1:9/x", 2) is not None


def test_a_log_in_a_search_directory_is_used_and_verified(tmp_path: Path) -> None:
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "log.swf").write_bytes(SWF)
    settings = TraceSettings({}, ("shared",))
    log = TraceLog("X", "log.swf", "http://127.0.0.1:9/log.swf", DIGEST, 8)
    assert find(log, settings, tmp_path) == (tmp_path / "shared" / "log.swf").resolve()
    wrong = TraceLog("X", "log.swf", "http://127.0.0.1:9/log.swf", "f" * 64, 8)
    with pytest.raises(InputError, match=f"log.swf: SHA-256 {DIGEST} does not match"):
        find(wrong, settings, tmp_path)
    assert find(TraceLog("Y", "other.swf", "", None, 8), settings, tmp_path) is None
