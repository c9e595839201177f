"""``schedsim simulate`` on a plain SWF file held in columns (schedsim.workloads.columns):
the compiled run of the columns against the engine on the ``Job`` objects of the same
file: the same schedule file, metrics file, note and exit code, byte for byte."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedsim import cli
from schedsim.workloads.columns import formatted_rows
from schedsim.workloads.load import load_workload
from schedsim.workloads.swf import format_record


@st.composite
def swf_files(draw: st.DrawFn) -> str:
    """Job lines the cleaning rules touch: run time 0 or -1, processors 0 or wider than
    the machine (requested or only allocated), requested time missing or below the run
    time, decimal fields, a MaxProcs header or none."""
    lines = [draw(st.sampled_from(["; MaxProcs: 16", "; Note: none", "; MaxNodes: 12"]))]
    submit = 0
    for number in range(1, draw(st.integers(1, 25)) + 1):
        submit += draw(st.sampled_from([0, 3, 50, 400]))
        run = draw(st.sampled_from([0, -1, 5, 60, 333, 600, 1200]))
        alloc = draw(st.sampled_from([-1, 0, 1, 4, 16, 40]))
        requested = draw(st.sampled_from([-1, 0, 2, 8, 20]))
        estimate = draw(st.sampled_from(["-1", "30", "60", "600", "2000", "12.5"]))
        cpu = draw(st.sampled_from(["-1", "10.25", "3"]))
        lines.append(f"{number} {submit} -1 {run} {alloc} {cpu} -1 {requested} {estimate} "
                     f"-1 1 {number % 3} 1 -1 1 -1 -1 -1")
    return "\n".join(lines) + "\n"


def outputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, columns: bool,
            args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[object, ...]:
    if not columns:
        monkeypatch.setattr(cli, "_columns_run", lambda *a, **k: None)
    out, metrics = tmp_path / f"out{columns}.swf", tmp_path / f"m{columns}.json"
    code = cli.main(["simulate", *args, "--out", str(out), "--metrics", str(metrics)])
    monkeypatch.undo()
    # the first run after a change of the compiled code says that it compiles: not an output
    err = "".join(line for line in capsys.readouterr().err.splitlines(keepends=True)
                  if "compiling the numba code" not in line)
    read = (lambda p: p.read_bytes() if p.exists() else None)  # noqa: E731
    return code, read(out), read(metrics), err


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=swf_files(), policy=st.sampled_from(["fcfs", "easy", "conservative",
                                                 "scojo-conservative"]),
       estimates=st.sampled_from(["requested", "exact"]),
       extra=st.sampled_from([[], ["--procs", "24"], ["--unit", "2", "--procs", "16"]]))
def test_the_column_path_writes_what_the_line_path_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        text: str, policy: str, estimates: str, extra: list[str]) -> None:
    workload = tmp_path / "w.swf"
    workload.write_text(text)
    args = [str(workload), "--policy", policy, "--estimates", estimates, *extra]
    expected = outputs(tmp_path, monkeypatch, False, args, capsys)
    got = outputs(tmp_path, monkeypatch, True, args, capsys)
    assert got == expected


def test_only_plain_swf_files_are_held_in_columns(tmp_path: Path) -> None:
    line = "1 0 -1 10 4 -1 -1 4 20 -1 1 -1 -1 -1 -1 -1 -1 -1"
    cwf = tmp_path / "w.cwf"
    cwf.write_text(f"; MaxProcs: 8\n{line} -1 S -1\n")
    assert load_workload(cwf).columns is None
    one = tmp_path / "one.swf"
    one.write_text(f"; MaxProcs: 8\n{line}\n")
    loaded = load_workload(one)
    assert loaded.columns is not None and loaded.jobs[0].procs == 4


VALUES = st.one_of(
    st.integers(-1, 10**7).map(float),
    st.integers(-(2**63), 2**63).map(float),
    st.floats(-1, 1e9, allow_nan=False),
    st.floats(allow_nan=False),
    st.sampled_from([-0.0, 0.5, -1.25, 2.0**53, 2.0**53 + 2, 2.0**63, -(2.0**63), 1e25,
                     123.4567891, 0.0000004, 0.0000005, 2.5e-7, float("nan")]),
)


@settings(max_examples=300, deadline=None)
@given(rows=st.lists(st.lists(VALUES, min_size=18, max_size=18), max_size=5))
def test_the_compiled_lines_are_format_number_of_every_value(rows: list[list[float]]) -> None:
    """Integers below 2^63 are written by compiled code, every other value as
    ``format_number`` writes it: the text of ``format_record`` either way."""
    values = np.array(rows, dtype=np.float64).reshape(len(rows), 18)
    expected = "".join(format_record(row) + "\n" for row in rows)
    assert formatted_rows(values).decode("ascii") == expected
