"""SWF reading, cleaning, writing, and the error message of every malformed input."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedsim.errors import InputError
from schedsim.workloads.load import load_workload
from schedsim.workloads.swf import N_FIELDS, read_swf, write_swf

DATA = Path(__file__).parent / "data"
GOOD = "1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1"


def test_reads_all_fields_and_header() -> None:
    log = read_swf(DATA / "small.swf")
    assert len(log.records) == 6
    assert log.max_procs() == 8
    assert log.header_value("Computer") == "hand-written fixture"
    first = log.records[0]
    assert (first.job, first.submit, first.run, first.alloc_procs, first.req_procs,
            first.req_time, first.user) == (1, 0, 100, 4, 4, 200, 1)
    assert len(first) == N_FIELDS


def test_cleaning_rules_are_applied_and_counted() -> None:
    loaded = load_workload(DATA / "small.swf")
    jobs, report = loaded.jobs, loaded.report
    assert report is not None and loaded.machine.procs == 8
    assert [j.id for j in jobs] == [1, 2, 4]
    assert report.dropped_runtime == 1            # job 3: run time 0
    assert report.dropped_procs_too_large == 1    # job 5: 16 > 8
    assert report.dropped_procs_nonpositive == 1  # job 6: fields 5 and 8 unknown
    by_id = {j.id: j for j in jobs}
    assert by_id[2].procs == 8                    # field 8 preferred
    assert by_id[4].procs == 2                    # field 8 missing -> field 5
    assert by_id[2].estimate == 50                # 40 < run time 50: raised
    assert by_id[4].estimate == 30                # missing: run time
    assert report.estimate_raised == 2
    assert report.kept == 3


def test_exact_estimates() -> None:
    loaded = load_workload(DATA / "small.swf", estimates="exact")
    jobs, report = loaded.jobs, loaded.report
    assert report is not None
    assert all(j.estimate == j.runtime for j in jobs)
    assert report.estimate_exact == 3


def test_round_trip(tmp_path: Path) -> None:
    log = read_swf(DATA / "small.swf")
    out = tmp_path / "copy.swf"
    write_swf(out, log)
    again = read_swf(out)
    assert again.records == log.records
    assert again.header == log.header


def test_gzip_is_read_directly(tmp_path: Path) -> None:
    target = tmp_path / "small.swf.gz"
    target.write_bytes(gzip.compress((DATA / "small.swf").read_bytes()))
    assert read_swf(target).records == read_swf(DATA / "small.swf").records


@pytest.mark.parametrize(("line", "message"), [
    (GOOD.replace(" 100 ", " abc ", 1), "field 4 (run time): 'abc' is not a number"),
    (GOOD + " 7", "expected 18 fields, found 19"),
    (" ".join(GOOD.split()[:17]), "expected 18 fields, found 17"),
    (GOOD.replace(" 4 -1 -1 4 ", " -5 -1 -1 4 ", 1),
     "field 5 (allocated processors): -5 is negative"),
    (GOOD.replace(" 4 200 ", " -3 200 ", 1), "field 8 (requested processors): -3 is negative"),
    (GOOD.replace(" 4 -1 -1 4 ", " 2.5 -1 -1 4 ", 1),
     "field 5 (allocated processors): '2.5' is not an integer"),
    (GOOD.replace(" 100 ", " nan ", 1), "field 4 (run time): 'nan' is not a finite number"),
])
def test_malformed_lines_name_file_line_and_field(tmp_path: Path, line: str,
                                                  message: str) -> None:
    path = tmp_path / "bad.swf"
    path.write_text(f"; MaxProcs: 8\n{GOOD}\n{line}\n")
    with pytest.raises(InputError) as err:
        read_swf(path)
    assert str(err.value) == f"{path}:3: {message}" or str(err.value).startswith(
        f"{path}:3: {message}")


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"absent\.swf: no such file"):
        read_swf(tmp_path / "absent.swf")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.integers(-3, 10**6).map(str),
                          st.floats(allow_nan=True, allow_infinity=True).map(repr),
                          st.sampled_from(["abc", "1e400", "-1", "-1.0", "2.5", "nan", "inf"])),
                min_size=18, max_size=18))
def test_fast_record_parsing_equals_the_field_by_field_checks(parts: list[str]) -> None:
    from schedsim.workloads.swf import _parse_record_checked, parse_record

    try:
        expected = _parse_record_checked(parts, "f:1")
    except InputError as err:
        with pytest.raises(InputError) as caught:
            parse_record(parts, "f:1")
        assert str(caught.value) == str(err)
        return
    assert parse_record(parts, "f:1") == expected


def test_reading_pauses_the_collector_and_restores_it(tmp_path: Path) -> None:
    import gc

    from schedsim.gcpause import gc_paused
    from schedsim.workloads.load import load_workload

    path = tmp_path / "w.swf"
    path.write_text("; MaxProcs: 4\n1 0 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 1 -1 -1 -1\n")
    assert gc.isenabled()
    assert len(load_workload(path).jobs) == 1
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # a collector that was off stays off
    finally:
        gc.enable()


def test_a_command_process_freezes_what_readers_built(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import gc

    from schedsim import gcpause

    def built_then_frozen() -> int:
        gc.unfreeze()
        with gcpause.gc_paused():
            kept = [[index] for index in range(1000)]  # noqa: F841
        count = gc.get_freeze_count()
        gc.unfreeze()
        return count

    monkeypatch.setattr(gcpause, "_freezing", False)
    assert built_then_frozen() == 0  # a library caller's objects stay collectable
    gcpause.freeze_what_is_built()  # what `schedsim.experiments` does before a command
    assert built_then_frozen() >= 1000
