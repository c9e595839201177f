"""A fuzzer for the SWF/CWF readers and ``schedsim simulate``.

Every input ends either in a valid schedule (exit 0, every kept job once, no start
before submit) or in exit code 2 with one line on stderr; never a traceback, never
another exit code. Inputs: random bytes, valid lines with a field mutated, extreme
numbers, other encodings and line endings, SWF and CWF.

CI runs a short fuzz; ``SCHEDSIM_FUZZ_EXAMPLES=100000 python -m pytest
tests/test_fuzz.py`` is the long run recorded in docs/reliability.md.
"""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedsim.cli import main
from schedsim.workloads.swf import read_swf

EXAMPLES = int(os.environ.get("SCHEDSIM_FUZZ_EXAMPLES", "300"))
SWF_LINE = ["1", "0", "-1", "100", "4", "-1", "-1", "4", "200", "-1", "1", "1", "1", "-1",
            "1", "-1", "-1", "-1"]
CWF_TAIL = ["-1", "S", "-1"]
TOKENS = st.one_of(
    st.sampled_from(["0", "-1", "-2", "1", "1.5", "1e300", "-1e300", "1e-300", "nan", "inf",
                     "-inf", "9007199254740993", "0x10", "1_000", "", "S", "ET", "RT", "EP",
                     "RP", ";", "+5", "٣", "1e15", "-0", "00", "4294967296"]),
    st.integers(-10**20, 10**20).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(max_size=6),
)
HEADERS = st.sampled_from(["", "; MaxProcs: 8\n", "; MaxProcs: abc\n", "; MaxProcs: 0\n",
                           "; MaxNodes: 4\n", "; MaxProcs: 99999999999999999999\n",
                           "; AllocationUnit: 2\n", "; UnixStartTime: x\n"])


@st.composite
def job_lines(draw: st.DrawFn, cwf: bool) -> str:
    """A job line, valid or with some fields mutated, dropped or added."""
    fields = [*SWF_LINE, *(CWF_TAIL if cwf else [])]
    fields[0] = str(draw(st.integers(1, 6)))
    fields[1] = str(draw(st.integers(0, 500)))
    for _ in range(draw(st.integers(0, 3))):
        fields[draw(st.integers(0, len(fields) - 1))] = draw(TOKENS)
    if draw(st.booleans()) and draw(st.integers(0, 9)) == 0:
        del fields[draw(st.integers(0, len(fields) - 1))]
    if draw(st.integers(0, 19)) == 0:
        fields.append(draw(TOKENS))
    return " ".join(fields)


@st.composite
def workload_files(draw: st.DrawFn) -> tuple[str, bytes]:
    """(suffix, bytes) of a workload file."""
    suffix = draw(st.sampled_from([".swf", ".cwf"]))
    if draw(st.integers(0, 9)) == 0:
        return suffix, draw(st.binary(max_size=300))
    lines = draw(st.lists(job_lines(suffix == ".cwf"), max_size=8))
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    text = draw(HEADERS) + newline.join(lines) + (newline if lines else "")
    encoding = draw(st.sampled_from(["utf-8", "utf-16", "latin-1"]))
    return suffix, text.encode(encoding, errors="replace")


def run(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(argv)
    return code, err.getvalue()


@settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 1000,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(workload=workload_files(), policy=st.sampled_from(["fcfs", "easy", "conservative"]),
       procs=st.sampled_from([None, "4", "8"]))
def test_simulate_ends_in_a_schedule_or_one_line(tmp_path_factory: object, workload: tuple[
        str, bytes], policy: str, procs: str | None) -> None:
    directory = Path(tmp_path_factory.mktemp("fuzz"))  # type: ignore[attr-defined]
    suffix, data = workload
    path = directory / f"w{suffix}"
    path.write_bytes(data)
    out = directory / "s.swf"
    argv = ["simulate", str(path), "--policy", policy, "--out", str(out),
            "--metrics", str(directory / "m.json"), *(["--procs", procs] if procs else [])]
    code, err = run(argv)
    assert code in (0, 2), (code, err)
    if code == 2:
        # a cold compiled-code cache adds its one notice (progress.compile_notice) first
        lines = [line for line in err.strip().splitlines()
                 if "compiling the numba code of" not in line]
        assert len(lines) == 1 and "Traceback" not in err, err
        assert not out.exists()
        return
    log = read_swf(out)
    ids = [r.job for r in log.records]
    assert len(ids) == len(set(ids))
    assert all(r.wait >= 0 and r.run >= 0 for r in log.records)


BOUNDARY = ["-1", "-1.0", "-0.5", "0", "-0.0", "0.5", ".5", "5.", "2e0", "64", "1_0", "nan",
            "1e400", "-inf", "9007199254740993", "1e15", "S"]
BOUNDARY_TOKENS = st.sampled_from(BOUNDARY)


@st.composite
def near_plain_lines(draw: st.DrawFn) -> str:
    """A job line (CWF or SWF) with one to three fields replaced, mostly by numbers at
    the edges of what a field allows."""
    fields = [*SWF_LINE, *(CWF_TAIL if draw(st.booleans()) else [])]
    for _ in range(draw(st.integers(1, 3))):
        fields[draw(st.integers(0, len(fields) - 1))] = draw(
            st.one_of(BOUNDARY_TOKENS, BOUNDARY_TOKENS, TOKENS))
    return " ".join(fields)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 1000)
@given(lines=st.lists(st.one_of(near_plain_lines(), job_lines(True), job_lines(False)),
                      min_size=1, max_size=6))
def test_cwf_plain_lines_read_as_the_field_reader_reads_them(lines: list[str]) -> None:
    """The CWF reader's fast way for plain lines (``cwf._plain_jobs``) gives the job, or the
    error, that the reader of one field at a time gives, line by line."""
    fast, fielded = read_both_ways(lines)
    assert fielded == fast


@settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 1000)
@given(lines=st.lists(st.one_of(near_plain_lines(), job_lines(True), job_lines(False)),
                      min_size=1, max_size=12))
def test_cwf_plain_lines_read_together_as_one_by_one(lines: list[str]) -> None:
    """The fast way reads the job lines of a file together (``cwf._plain_jobs``, its checks
    on arrays): each line's job, or None, is the one it gives for that line alone (the test
    above compares one line with the field reader), whatever the other lines hold."""
    from schedsim.workloads import cwf

    rows = [fields for fields in (line.split() for line in lines)
            if fields and cwf._submits(fields)]
    together = cwf._plain_jobs(rows)
    assert [repr(job) for job in together] == [repr(cwf._plain_jobs([row])[0]) for row in rows]


def test_cwf_plain_lines_with_one_field_at_an_edge() -> None:
    """As above, for every field of an SWF and a CWF line set to every edge value."""
    lines = []
    for base in (SWF_LINE, [*SWF_LINE, *CWF_TAIL], [*SWF_LINE[:18], "5", "S", "-1"]):
        for field in range(len(base)):
            lines += [" ".join(token if i == field else text for i, text in enumerate(base))
                      for token in BOUNDARY]
    fast, fielded = read_both_ways(lines)
    assert fielded == fast


def read_both_ways(lines: list[str]) -> tuple[list[object], list[object]]:
    """Each line read as a file of its own, with and without ``cwf._plain_jobs``: its jobs'
    fields, or the error."""
    from unittest import mock

    from schedsim.workloads import cwf

    def read(line: str) -> object:
        try:
            jobs, _, _ = cwf.parse_cwf(line.encode("ascii", errors="replace"), "w.cwf")
        except Exception as err:
            return type(err), str(err)
        return [tuple((name, repr(getattr(job, name))) for name in job.__slots__)
                for job in jobs]

    fast = [read(line) for line in lines]
    with mock.patch.object(cwf, "_plain_jobs", lambda rows: [None] * len(rows)):
        return fast, [read(line) for line in lines]
