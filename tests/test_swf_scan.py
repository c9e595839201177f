"""The compiled SWF scan (schedsim.workloads.swf_scan) against the line-by-line reader: the
same header, records, line numbers and value types, or the same error, on any text."""

from __future__ import annotations

import gzip
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_fuzz import workload_files

from schedsim.errors import InputError
from schedsim.inputs import read_input
from schedsim.workloads import swf, swf_scan
from schedsim.workloads.swf_kernels import scan_block
from schedsim.workloads.swf_scan import NarrowColumns

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
    types, or error message, of a file; the scan of the file read a piece at a time gives
    the same, whatever the size of its pieces."""
    raw = read_input(path)
    expected, got = read_both(raw, str(path), extra_fields)
    for piece_bytes in (1, 7, 64, swf_scan.PIECE_BYTES):
        with mock.patch.object(swf_scan, "PIECE_BYTES", piece_bytes):
            in_pieces = _outcome(lambda: swf.table_records(swf.read_swf_file(path, extra_fields)))
        assert _same(in_pieces, got), (piece_bytes, in_pieces, got)
    return expected, got


def read_both(raw: bytes, path: str, extra_fields: int = 0) -> tuple[object, object]:
    expected, got = (_outcome(lambda reader=reader: reader(raw, path, extra_fields))
                     for reader in (swf.read_swf_lines, _records_of_the_table))
    return expected, got


def _outcome(read: Callable[[], swf.SwfLog]) -> object:
    """The header, records, line numbers and value types a reader gives, or its error."""
    try:
        log = read()
    except InputError as err:
        return str(err)
    return (log.header, log.records, log.line_numbers, log.header_line_numbers,
            [[type(v) for v in r] for r in log.records])


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
    block, slow = np.empty((1, 1)), np.empty((4, 4), np.int64)
    at, line, rows, _, slow_fields = scan_block(
        np.frombuffer(text.encode(), np.uint8), 0, len(text), 0, block, np.empty(1, np.int64),
        np.empty(1, np.int64), np.empty((1, 3), np.int64), slow)
    assert rows == 1 and line == 1 and at == len(text) + 1
    if len(text.lstrip("-").replace(".", "")) > 15:
        assert slow_fields == 1 and math.isnan(block[0, 0])
    else:
        value = block[0, 0]
        assert slow_fields == 0 and value == float(text)
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


NARROW_VALUES = st.one_of(
    st.sampled_from([-1.0, 0.0, -0.0, 1.0, 127.0, 128.0, -129.0, 32767.0, 32768.0,
                     2.0**31 - 1, 2.0**31, 2.0**53, 0.5, 1e-7]),
    st.integers(-1, 2**40).map(float),
    st.floats(-1, 1e12, allow_nan=False),
)


@settings(max_examples=200, deadline=None)
@given(blocks=st.lists(st.lists(st.lists(NARROW_VALUES, min_size=3, max_size=3), min_size=1,
                                max_size=6), max_size=5),
       repeated=st.booleans())
def test_narrow_columns_hold_every_value_exactly(blocks: list[list[list[float]]],
                                                 repeated: bool) -> None:
    """Columns added block by block, widened as blocks need it, give back every value
    bit for bit (the sign of zero too), each in the narrowest type that holds them."""
    if repeated:  # a column with one value on every row, whatever the blocks
        blocks = [[[7.0, *row[1:]] for row in block] for block in blocks]
    rows = [row for block in blocks for row in block]
    columns = NarrowColumns(3, len(rows))
    for block in blocks:
        columns.add(np.ascontiguousarray(np.array(block).T), len(block))
    got = columns.columns()
    for field, column in enumerate(got):
        expected = np.array([row[field] for row in rows])
        assert column.shape == expected.shape
        assert np.array_equal(column.astype(np.float64), expected)
        assert np.array_equal(np.signbit(column), np.signbit(expected))
        if len(rows) > 1 and (expected == expected[0]).all() \
                and (np.signbit(expected) == np.signbit(expected[0])).all():
            assert column.strides == (0,)  # one value: no memory per row
        elif len(rows) > 1:
            whole = (expected == np.floor(expected)) & ~((expected == 0) & np.signbit(expected))
            size = max(np.abs(expected).max(), 1) if whole.all() else math.inf
            width = next((t for t, top in ((np.int8, 127), (np.int16, 32767),
                                           (np.int32, 2**31 - 1)) if size <= top), np.float64)
            if expected.min() >= -1:  # the SWF range: -1 and up
                assert column.dtype == width, (column.dtype, expected)


def test_lublin_lines_take_15_bytes_each() -> None:
    """The columns of lublin99 lines (two blocks): ids, submit and run times int32,
    processors int16, the queue int8, every other field one repeated value."""
    line = "{0} {1} -1 {2} {3} -1 -1 -1 -1 -1 1 -1 -1 -1 {4} -1 -1 -1"
    text = "; MaxNodes: 128\n" + "\n".join(
        line.format(job, job * 20_000, 100_000 + job, 1 + job % 128, job % 2)
        for job in range(1, 70_001)) + "\n"
    table = swf.read_swf_table(text.encode(), "l.swf")
    fields = table.columns.fields
    stored = {i: f.dtype for i, f in enumerate(fields) if f.strides != (0,)}
    assert stored == {0: np.int32, 1: np.int32, 3: np.int32, 4: np.int16, 14: np.int8}
    assert sum(fields[i].nbytes for i in stored) == 15 * 70_000
    assert table.line_numbers.dtype == np.int32 and table.line_numbers[0] == 2


def test_the_scan_goes_on_where_a_call_runs_out_of_room() -> None:
    """More header lines and more fields Python converts (exponents) than one call of the
    scan has room for: the next call goes on from the same line, and the file reads as
    the line reader reads it."""
    parts = []
    for number in range(1, 3_001):
        parts.append(f"; header {number}")
        parts.append(f"{number} {number * 3} -1 10 4 -1 -1 4 2e1 -1 1 1e0 -1 -1 1 -1 -1 -1")
    raw = ("\n".join(parts) + "\n").encode()
    expected, got = read_both(raw, "rooms.swf")
    assert isinstance(got, tuple) and len(got[0]) == 3_000 and _same(got, expected)
    assert swf_scan.scan_columns(raw, (18,), (0,), 2.0**53) is not None  # the scan decided


def test_a_file_the_scan_decides_is_never_held_whole(tmp_path: Path) -> None:
    """``read_swf_file`` reads pieces of at most ``PIECE_BYTES`` (here 256) bytes: the
    whole file is read only for the line reader, where the scan does not decide."""
    path = tmp_path / "w.swf"
    path.write_text("; MaxProcs: 8\n" + f"{LINE}\n" * 1_000)
    reads: list[int] = []
    real_pieces = swf_scan.line_pieces

    def pieces(stream: object) -> Iterator[tuple[np.ndarray, bool]]:
        for piece, last in real_pieces(stream):  # type: ignore[arg-type]
            reads.append(piece.shape[0])
            yield piece, last

    with mock.patch.object(swf_scan, "PIECE_BYTES", 256), \
            mock.patch.object(swf_scan, "line_pieces", pieces), \
            mock.patch.object(swf, "read_input", side_effect=AssertionError("read whole")):
        table = swf.read_swf_file(path)
    assert len(table.columns) == 1_000 and len(reads) > 100 and max(reads) <= 256
    path.write_text("; MaxProcs: 8\n" + f"{LINE}\r\n" * 999 + f"{LINE}\r")  # a lone CR
    with mock.patch.object(swf_scan, "PIECE_BYTES", 256):
        assert len(swf.read_swf_file(path).columns) == 1_000  # the line reader's
