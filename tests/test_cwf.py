"""CWF: writer/reader round trip, gzip, SWF lines, and malformed-line errors."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from schedsim.errors import InputError
from schedsim.jobs import BATCH, DEDICATED, Job, RuntimeChange
from schedsim.workloads.cwf import format_cwf, iter_lines, read_cwf, write_cwf

JOBS = [
    Job(id=1, submit=0.0, runtime=100.0, procs=64, estimate=120.0, user=3, queue=1),
    Job(id=2, submit=10.0, runtime=50.5, procs=32, estimate=50.5, kind=DEDICATED,
        requested_start=400.0),
    Job(id=3, submit=30.0, runtime=7.0, procs=320, estimate=7.0),
]
CHANGES = [RuntimeChange(time=20.0, job_id=1, delta=30.0),
           RuntimeChange(time=30.0, job_id=2, delta=-10.0)]


def fields_of(job: Job) -> tuple:
    return (job.id, job.submit, job.runtime, job.procs, job.estimate, job.kind,
            job.requested_start, job.user, job.group, job.app, job.queue, job.partition)


def test_format_sorts_by_time_stably_and_writes_21_fields() -> None:
    text = format_cwf(JOBS, CHANGES, ["Version: 2"])
    assert text.startswith("; Version: 2\n")
    rows = list(iter_lines(text))
    assert [(r[0], r[1], r[19]) for r in rows] == [
        ("1", "0", "S"), ("2", "10", "S"), ("1", "20", "ET"), ("3", "30", "S"),
        ("2", "30", "RT"),  # equal times: submissions first
    ]
    assert all(len(r) == 21 for r in rows)
    assert rows[1][3] == "50.5" and rows[1][18] == "400" and rows[0][18] == "-1"
    assert rows[2][2:19] == ["-1"] * 17 and rows[2][20] == "30" and rows[4][20] == "10"


@pytest.mark.parametrize("name", ["w.cwf", "w.cwf.gz"])
def test_round_trip(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    write_cwf(path, JOBS, CHANGES, ["Version: 2", "; Note: test"])
    jobs, changes, header = read_cwf(path)
    assert [fields_of(j) for j in jobs] == [fields_of(j) for j in JOBS]
    assert changes == CHANGES
    assert header.lines == [" Version: 2", " Note: test"] and header.numbers == [1, 2]
    assert jobs[1].kind == DEDICATED and jobs[0].kind == BATCH


def test_gzip_detected_by_content(tmp_path: Path) -> None:
    path = tmp_path / "no-suffix"
    path.write_bytes(gzip.compress(format_cwf(JOBS, CHANGES).encode()))
    assert len(read_cwf(path)[0]) == 3


def test_plain_swf_lines_are_batch_jobs(tmp_path: Path) -> None:
    path = tmp_path / "a.swf"
    path.write_text("; MaxNodes: 128\n"
                    "    1    5362 -1       6   4 -1 -1 -1 -1 -1 1 -1 -1 -1 0 -1 -1 -1\n\n")
    (job,), changes, header = read_cwf(path)
    assert (job.procs, job.runtime, job.estimate, job.kind, job.queue) == (4, 6, 6, BATCH, 0)
    assert changes == [] and header.lines == [" MaxNodes: 128"]


GOOD = "1 0 -1 100 64 -1 -1 64 100 -1 1 -1 -1 -1 -1 -1 -1 -1 -1 S -1"


def command(job: int, time: int, request: str, amount: str) -> str:
    return f"{job} {time} " + "-1 " * 17 + f"{request} {amount}"


@pytest.mark.parametrize(("lines", "where", "message"), [
    ([GOOD, "2 5 -1 10 32"], "2:", "expected 21 fields (CWF) or 18 (SWF), found 5"),
    ([GOOD.replace(" 100 64", " abc 64", 1)], "1: field 4 (run time)", "'abc' is not a number"),
    ([GOOD.replace("1 0", "1.5 0", 1)], "1: field 1 (job number)", "not an integer"),
    ([GOOD.replace(" 100 64", " -5 64", 1)], "1: field 4 (run time)", "negative"),
    ([GOOD.replace(" S ", " X ")], "1: field 20 (request type)", "not one of S, ET, EP, RT, RP"),
    ([GOOD.replace("-1 S", "-7 S")], "1: field 19 (requested start time)",
     "before the submit time"),
    ([GOOD, GOOD], "2: field 1 (job number)", "job 1 is submitted twice"),
    ([GOOD, command(2, 5, "ET", "10")], "2: field 1 (job number)", "no earlier S line"),
    ([GOOD, command(1, 5, "EP", "32")], "2: field 20 (request type)", "not supported"),
    ([GOOD, command(1, 5, "RT", "0")], "2: field 21 (amount)", "must be > 0"),
    ([GOOD.replace("1 0 -1", "1 50 -1", 1), command(1, 5, "ET", "3")],
     "2: field 2 (submit time)", "before job 1's submit time 50"),
    (["; header", GOOD.replace(" 64 -1 -1 64", " 0 -1 -1 -1")], "2: field 8",
     "no processor count"),
])
def test_malformed_lines_name_file_line_and_field(
    tmp_path: Path, lines: list[str], where: str, message: str
) -> None:
    path = tmp_path / "bad.cwf"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as err:
        read_cwf(path)
    text = str(err.value)
    assert text.startswith(f"{path}:{where}") and message in text and "\n" not in text


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"missing\.cwf: no such file"):
        read_cwf(tmp_path / "missing.cwf")


def test_header_lookups(tmp_path: Path) -> None:
    path = tmp_path / "h.cwf"
    write_cwf(path, JOBS, [], ["Version: 2", "MaxNodes: 320", "MaxProcs: 320 (all)",
                               "AllocationUnit: 32"])
    header = read_cwf(path)[2]
    assert header.header_value("maxnodes") == "320"
    assert (header.max_procs(), header.allocation_unit()) == (320, 32)
    assert header.header_value("Queues") is None
