"""The compiled SWF scan (schedsim.workloads.swf_scan) against the line-by-line reader: the
same header, records, line numbers and value types, or the same error, on any text."""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_fuzz import workload_files

from schedsim.errors import InputError
from schedsim.inputs import read_input
from schedsim.workloads import swf
from schedsim.workloads.swf_scan import _number

TOKENS = st.one_of(
    st.integers(-1, 10**6).map(str),
    st.integers(-1, 10**17).map(str),  # past the compiled 15 digits
    st.floats(0, 1e7, allow_nan=False).map(repr),
    st.floats(0, 1e4, allow_nan=False).map(lambda v: f"{v:.3f}"),
    st.sampled_from(["-1", "+3", "0", "-0", "007", "5.", ".5", "-0.5", "1e3", "1E-2", "2.5e1",
                     "1_000", "inf", "nan", "-2", "x", ".", "-", "+", "12.3.4",
                     "99999999999999999"]),
)
BLANKS = st.sampled_from([" ", "  ", "\t", " \t ", "\x0b", "\x0c"])


@st.composite
def swf_texts(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["job", "job", "job", "header", "blank"]))
        if kind == "header":
            lines.append(draw(st.sampled_from(["; MaxProcs: 64", ";Note  ", "  ; x: 1"])))
        elif kind == "blank":
            lines.append(draw(st.sampled_from(["", "   ", "\t"])))
        else:
            count = draw(st.sampled_from([18, 18, 18, 17, 19, 21]))
            tokens = [draw(TOKENS) for _ in range(count)]
            text = tokens[0]
            for token in tokens[1:]:
                text += draw(BLANKS) + token
            lines.append(draw(st.sampled_from(["", " ", "\t"])) + text
                         + draw(st.sampled_from(["", " ", "\r"])))
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    return ending.join(lines) + draw(st.sampled_from(["", ending]))


def both(path: Path, extra_fields: int = 0) -> tuple[object, object]:
    """(the line reader's, the compiled scan's) header, records, line numbers and value
    types, or error message, of a file."""
    raw = read_input(path)
    return read_both(raw, str(path), extra_fields)


def read_both(raw: bytes, path: str, extra_fields: int = 0) -> tuple[object, object]:
    out = []
    for reader in (swf.read_swf_lines, _records_of_the_table):
        try:
            log = reader(raw, path, extra_fields)
            out.append((log.header, log.records, log.line_numbers, log.header_line_numbers,
                        [[type(v) for v in r] for r in log.records]))
        except InputError as err:
            out.append(str(err))
    return out[0], out[1]


def _records_of_the_table(raw: bytes, path: str, extra_fields: int) -> swf.SwfLog:
    """``read_swf_table`` (the scan where it decides), as records."""
    return swf.table_records(swf.read_swf_table(raw, path, extra_fields))


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=swf_texts(), extra=st.sampled_from([0, 3]))
def test_the_scan_equals_the_line_by_line_reader(tmp_path: Path, text: str,
                                                 extra: int) -> None:
    path = tmp_path / "w.swf"
    path.write_bytes(text.encode("ascii"))
    expected, got = both(path, extra)
    assert _same(got, expected), (got, expected)


def _same(a: object, b: object) -> bool:
    """Equal, NaN-free values compared exactly (-0.0 and 0.0 by their sign too)."""
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if a[0] != b[0] or a[2:] != b[2:] or len(a[1]) != len(b[1]):  # type: ignore[index]
        return False
    for ra, rb in zip(a[1], b[1], strict=True):  # type: ignore[index]
        for va, vb in zip(ra, rb, strict=True):
            if va != vb or math.copysign(1, va) != math.copysign(1, vb):
                return False
    return True


LINE = "1 0 -1 10 4 -1 -1 4 20 -1 1 -1 -1 -1 -1 -1 -1 -1"


@pytest.mark.parametrize("data", [
    f"{LINE}\r{LINE}\n",  # a lone carriage return ends a line when Python reads text
    f"{LINE}\x1c\n",  # a blank to str.split
    f"{LINE} ; caf\u00e9\n",
    f"{LINE}\xa0\n",
])
def test_text_the_scan_does_not_model_goes_to_the_line_reader(tmp_path: Path,
                                                             data: str) -> None:
    path = tmp_path / "w.swf.gz"
    path.write_bytes(gzip.compress(data.encode("utf-8")))
    expected, got = both(path)
    assert got == expected


@given(digits=st.integers(0, 10**15 - 1), decimals=st.integers(0, 15),
       negative=st.booleans())
def test_a_decimal_token_is_pythons_float(digits: int, decimals: int, negative: bool) -> None:
    text = str(digits).rjust(decimals + 1, "0")
    if decimals:
        text = text[:-decimals] + "." + text[-decimals:]
    text = ("-" if negative else "") + text
    value, exact = _number(np.frombuffer(text.encode(), np.uint8), 0, len(text))
    if len(text.lstrip("-").replace(".", "")) > 15:
        assert not exact
    else:
        assert exact and value == float(text)
        assert math.copysign(1, value) == math.copysign(1, float(text))


def test_the_trace_records_are_the_line_readers(tmp_path: Path) -> None:
    """A few thousand lines of every shape the archive uses (decimals, -1, large ids)."""
    rows = []
    rng = np.random.default_rng(3)
    for number in range(1, 3_000):
        cpu = f"{rng.uniform(0, 1e5):.2f}" if number % 3 else "-1"
        rows.append(f"{number} {number * 7} {rng.integers(-1, 999)} {rng.integers(1, 9999)} "
                    f"{rng.integers(1, 128)} {cpu} -1 {rng.integers(1, 128)} 3600 -1 1 "
                    f"{rng.integers(1, 99)} 1 -1 1 -1 -1 -1")
    path = tmp_path / "t.swf"
    path.write_text("; MaxProcs: 128\n" + "\n".join(rows) + "\n")
    expected, got = both(path)
    assert isinstance(got, tuple) and _same(got, expected)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(workload=workload_files())
def test_the_scan_equals_the_line_reader_on_the_fuzz_corpus(workload: tuple[str, bytes]
                                                            ) -> None:
    """The inputs of the simulate fuzzer (tests/test_fuzz.py: random bytes, mutated SWF and
    CWF lines, other encodings and line endings), whole and line by line: the compiled
    scan decides a file only where the line reader gives the same values, and never
    accepts what the line reader refuses."""
    suffix, data = workload
    extra = 3 if suffix == ".cwf" else 0
    for text in [data, *data.splitlines(keepends=True)]:
        expected, got = read_both(text, f"w{suffix}", extra)
        assert _same(got, expected), (text, got, expected)


@pytest.mark.parametrize("token", ["1_000", "\u0663", "0x10", "1e3_0"])
def test_a_field_python_reads_but_swf_does_not_is_an_error(tmp_path: Path, token: str) -> None:
    fields = LINE.split()
    fields[3] = token.strip()
    path = tmp_path / "w.swf"
    path.write_bytes((" ".join(fields) + "\n").encode("utf-8"))
    expected, got = both(path)
    assert got == expected == f"{path}:1: field 4 (run time): {token.strip()!r} is not a number"
