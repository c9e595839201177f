"""The compiled hyperexp reader (schedsim.workloads.hyperexp_scan, through
``hyperexp.read_hyperexp_swf``) against the line-by-line reader
(``hyperexp.parse_hyperexp_swf``): the same jobs, bit for bit and type for type, or the
same error, on generated files and on any text."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedsim.errors import InputError
from schedsim.jobs import Job
from schedsim.params import parse_params
from schedsim.workloads import hyperexp
from schedsim.workloads.hyperexp_scan import hyperexp_columns
from schedsim.workloads.swf import open_text
from schedsim.workloads.swf_scan import read_bytes


def exact(jobs: list[Job]) -> list[tuple]:
    """Every field of every job, floats by their bits (``-0.0`` and ``0.0`` differ)."""
    out = []
    for job in jobs:
        row = []
        for name in Job.__slots__:
            value = getattr(job, name)
            row.append((type(value).__name__,
                        value.hex() if isinstance(value, float) else value))
        out.append(tuple(row))
    return out


def line_reader(path: Path) -> list[tuple] | str:
    """The reference: the reader as it was, one line at a time (jobs, or the error)."""
    try:
        return exact(hyperexp.parse_hyperexp_swf("".join(open_text(path)), str(path)))
    except InputError as err:
        return str(err)


def fast_reader(path: Path) -> list[tuple] | str:
    try:
        return exact(hyperexp.read_hyperexp_swf(path))
    except InputError as err:
        return str(err)


def _write(tmp_path: Path, jobs: int, seed: int, **given_params: object) -> Path:
    params = parse_params(hyperexp.PARAMS, given_params, "test")
    path = tmp_path / f"h{seed}.swf"
    path.write_text(hyperexp.generate(jobs, seed, params), encoding="ascii")
    return path


@pytest.mark.parametrize(("seed", "params"), [
    (1, {}),
    (2, {"utilization": 0.1}),
    (3, {"utilization": 0.01, "cv_arrival": 5.0}),  # submits past 15 digits: float()
    (4, {"cv_demand": 20.0, "demand_mean": 1e6}),  # long run times
    (5, {"pmax": 64, "cv_demand": 1.0, "util_basis": "bpus"}),
    (6, {"utilization": 2.0, "demand_mean": 1e-3}),  # run times of a few nanoseconds
])
def test_generated_files_read_the_same(tmp_path: Path, seed: int, params: dict) -> None:
    path = _write(tmp_path, 3000, seed, **params)
    assert hyperexp_columns(read_bytes(path)) is not None  # the compiled path decided
    fast = fast_reader(path)
    assert isinstance(fast, list) and len(fast) == 3000
    assert fast == line_reader(path)


def test_generated_gzip_file_reads_the_same(tmp_path: Path) -> None:
    import gzip

    plain = _write(tmp_path, 500, 7)
    packed = tmp_path / "h7.swf.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert fast_reader(packed) == line_reader(plain)


@pytest.mark.parametrize(("text", "why"), [
    ("1 0.5 -1 2.0 3 -1 -1 3. 2.0 -1 1 -1 -1 -1 -1 -1 -1 -1\n", "int() rejects '3.'"),
    ("1 0.5 -1 2.0 3 -1 -1 1e1 2.0 -1 1 -1 -1 -1 -1 -1 -1 -1\n", "int() rejects '1e1'"),
    ("1 0.5 -1 2.0 3 -1 -1 1_0 2.0 -1 1 -1 -1 -1 -1 -1 -1 -1\n", "underscores"),
    ("1 0.5 -1 2.0 3 -1 -1 1234567890123456 2.0 -1 1 -1 -1 -1 -1 -1 -1 -1\n", "16 digits"),
    ("1 0.5 -1 2.0 3 -1 -1\x0c3 2.0 -1 1 -1 -1 -1 -1 -1 -1 -1\n", "form feed: a line break"),
    ("1 0.5 -1 2.0 3 -1 -1 3 2.0 -1 1 -1 -1 -1 -1 -1 -1 -1\r", "a lone carriage return"),
    ("1 0.5 -1 2.0 3 -1 -1 3 2.0 -1 1 -1 -1 -1 -1 -1 -1 \u00a0-1\n", "outside ASCII"),
    ("1 0.5 -1 2.0 3 -1 -1 0 2.0 -1 1 -1 -1 -1 -1 -1 -1 -1\n", "Pmax 0: the error"),
    ("1 0.5 -1 -2.0 3 -1 -1 3 2.0 -1 1 -1 -1 -1 -1 -1 -1 -1\n", "negative run time"),
    ("1 0.5 -1 nan 3 -1 -1 3 2.0 -1 1 -1 -1 -1 -1 -1 -1 -1\n", "NaN run time"),
    ("1 0.5 -1 2..0 3 -1 -1 3 2.0 -1 1 -1 -1 -1 -1 -1 -1 -1\n", "float() rejects it"),
    ("1 0.5 -1 2.0 3 -1 -1 3 2.0 -1 1 -1 -1 -1 -1 -1 -1\n", "17 fields"),
])
def test_line_reader_decides_what_the_scan_does_not_model(tmp_path: Path, text: str,
                                                          why: str) -> None:
    path = tmp_path / "x.swf"
    path.write_bytes(text.encode("utf-8"))
    assert hyperexp_columns(read_bytes(path)) is None, why
    assert fast_reader(path) == line_reader(path)


def test_spellings_float_reads_are_kept_bit_for_bit(tmp_path: Path) -> None:
    lines = [f"{i + 1} {submit} -1 {run} 2 -1 -1 2 x -1 1 -1 -1 -1 -1 -1 -1 -1"
             for i, (submit, run) in enumerate([
                 ("-0.0", "0"), ("+1.5", ".5"), ("1e3", "2.5E-1"), ("inf", "inf"),
                 ("1234567890.1234567", "0.30000000000000004"), ("1_000.5", "7.")])]
    path = tmp_path / "x.swf"
    path.write_text("; Conversion: x\n\n" + "\r\n".join(lines) + "\n", encoding="ascii")
    assert hyperexp_columns(read_bytes(path)) is not None
    fast = fast_reader(path)
    assert fast == line_reader(path) and fast[0][1] == ("float", (-0.0).hex())


TOKENS = st.one_of(
    st.integers(-3, 10**6).map(str),
    st.integers(10**14, 10**17).map(str),  # past the compiled 15 digits
    st.floats(-2, 1e7, allow_nan=False).map(repr),
    st.floats(0, 1e9, allow_nan=False).map(lambda v: f"{v:.9f}"),
    st.sampled_from(["-1", "+3", "0", "-0", "007", "5.", ".5", "-0.5", "1e3", "1E-2", "1_000",
                     "inf", "nan", "x", ".", "-", "+", "12.3.4", "\u00e9", "3\x0c4"]),
)
BLANKS = st.sampled_from([" ", "  ", "\t", " \t ", "\x0b", "\x0c"])
PMAX = st.integers(1, 64).map(str)
TIMES = st.floats(0, 1e6, allow_nan=False).map(lambda v: f"{v:.9f}")
#: A well-formed line's fields 1 and 8 (integers) and 2 and 4 (times); the others, which
#: the reader does not convert, anything without a line break.
CLEAN = {0: PMAX, 7: PMAX, 1: TIMES, 3: TIMES}
OTHER = st.sampled_from(["-1", "1", "x", "2.5", "1e3", "-7"])


@st.composite
def hyperexp_texts(draw: st.DrawFn) -> str:
    """Header, blank, well-formed job lines, and job lines of 17 to 19 fields of any
    spelling, with any blanks."""
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["clean", "clean", "clean", "job", "header", "blank"]))
        if kind == "header":
            lines.append(draw(st.sampled_from(["; MaxProcs: 64", ";Note  ", "  ; x: 1"])))
        elif kind == "blank":
            lines.append(draw(st.sampled_from(["", "   ", "\t"])))
        elif kind == "clean":
            tokens = [draw(CLEAN.get(i, OTHER)) for i in range(18)]
            separators = [draw(st.sampled_from([" ", "  ", "\t"])) for _ in tokens[1:]]
            lines.append(draw(st.sampled_from(["", " "])) + tokens[0]
                         + "".join(s + t for s, t in zip(separators, tokens[1:], strict=True)))
        else:
            count = draw(st.sampled_from([18, 18, 18, 18, 17, 19]))
            tokens = [draw(TOKENS) for _ in range(count)]
            separators = [draw(st.sampled_from([" ", " ", " ", "\t"])) for _ in tokens[1:]]
            if draw(st.booleans()):
                separators[draw(st.integers(0, len(separators) - 1))] = draw(BLANKS)
            text = tokens[0] + "".join(s + t for s, t in zip(separators, tokens[1:],
                                                             strict=True))
            lines.append(draw(st.sampled_from(["", " ", "\t"])) + text
                         + draw(st.sampled_from(["", " ", "\r"])))
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    return ending.join(lines) + draw(st.sampled_from(["", ending]))


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=hyperexp_texts())
def test_any_text_same_jobs_or_same_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "h.swf"
    path.write_bytes(text.encode("utf-8"))
    assert fast_reader(path) == line_reader(path)
