"""What a long run says: one line when numba compiles (the first goal-oriented run
compiles for about a minute), and jobs done off a terminal too."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from numba import njit

from schedsim import progress
from schedsim.cli import main


def test_a_compilation_is_announced_once() -> None:
    @njit(cache=False)
    def twice(x: int) -> int:
        return 2 * x

    @njit(cache=False)
    def thrice(x: int) -> int:
        return 3 * x

    out = io.StringIO()
    with progress.compile_notice("schedsim simulate", out):
        assert twice(2) == 4 and thrice(2) == 6
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("schedsim simulate: compiling the numba "
                                                   "code of test_progress (once after")
    out = io.StringIO()
    with progress.compile_notice("schedsim simulate", out):
        assert twice(3) == 6  # compiled already: nothing to say
    assert out.getvalue() == ""


def test_progress_off_a_terminal_is_a_line_now_and_then() -> None:
    out = io.StringIO()
    with progress.Progress(2500, "schedsim simulate", interval=0.0, stream=out) as tick:
        for _ in range(2500):
            tick()
    assert out.getvalue().splitlines() == [
        "schedsim simulate: 1,000 of 2,500 jobs done (40%)",
        "schedsim simulate: 2,000 of 2,500 jobs done (80%)",
        "schedsim simulate: 2,500 of 2,500 jobs done (100%)"]


def test_simulate_reports_progress_off_a_terminal(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    workload = tmp_path / "w.swf"
    assert main(["generate", "lublin99", "--jobs", "2000", "--seed", "1", "--out",
                 str(workload)]) == 0
    monkeypatch.setattr(progress, "INTERVAL", 0.0)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["simulate", str(workload), "--policy", "LOS", "--out",
                     str(tmp_path / "s.swf")]) == 0
    assert "schedsim simulate: 2,000 of 2,000 jobs done (100%)" in err.getvalue()
