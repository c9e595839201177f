"""Schedule files and their pictures: what `schedsim simulate` records beyond SWF's fields
(partitions, run segments, named processors), read back by `schedsim plot`, and the
Gantt chart's placement, queue length and utilization."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedsim.cli import main
from schedsim.engine import simulate
from schedsim.errors import InputError
from schedsim.gantt import ROUNDING, parse_time, place, queue_and_busy, schedule_figure, window_of
from schedsim.jobs import Job
from schedsim.machine import Machine
from schedsim.policies.registry import make_policy
from schedsim.schedule import Schedule
from schedsim.schedule_file import parse_ranges, processor_ranges, read_schedule, schedule_swf

DATA = Path(__file__).parent / "data"


def job(number: int, submit: float, runtime: float, procs: int) -> Job:
    return Job(id=number, submit=submit, runtime=runtime, procs=procs, estimate=runtime)


def two_partition_schedule() -> Schedule:
    """Four processors as 2 + 2: job 1 runs, is suspended and resumes on other processors;
    job 2 runs in partition 2; job 3 waits for job 1's first segment."""
    machine = Machine(4, partitions=(2, 2))
    jobs = [job(1, 0, 20, 2), job(2, 0, 5, 1), job(3, 5, 5, 2)]
    for index, item in enumerate(jobs):
        item.index = index
    return Schedule(machine, jobs, start=[0.0, 0.0, 10.0], end=[30.0, 5.0, 15.0],
                    procs=[2, 1, 2], partition=[0, 1, 0],
                    processors={1: (2,)},
                    split={0: [(0.0, 10.0, (0, 1)), (15.0, 25.0, (0, 1))]})


def write(schedule: Schedule, path: Path) -> Path:
    path.write_text(schedule_swf(schedule, "toy.swf", "toy"))
    return path


def test_a_schedule_file_records_partitions_segments_and_processors(tmp_path: Path) -> None:
    path = write(two_partition_schedule(), tmp_path / "s.swf")
    text = path.read_text()
    assert "; Partitions: 2 2" in text
    assert "; Run: 1 partition=1 segments=0:10,15:25 processors=0-1|0-1" in text
    assert "; Run: 2 partition=2 segments=0:5 processors=2" in text
    data = read_schedule(path)
    assert data.partitions == (2, 2) and data.machine == 4
    assert list(data.partition) == [0, 1, 0]
    assert data.segments(0) == [(0.0, 10.0, (0, 1)), (15.0, 25.0, (0, 1))]
    assert data.segments(2) == [(10.0, 15.0, ())]  # no Run line: one segment, unnamed


def test_a_plain_run_writes_no_extra_lines(tmp_path: Path) -> None:
    machine = Machine(4)
    jobs = [job(1, 0, 5, 2), job(2, 1, 5, 4)]
    schedule = simulate(jobs, machine, make_policy("easy", {}, machine))
    text = write(schedule, tmp_path / "s.swf").read_text()
    assert "Run:" not in text and "Partitions" not in text


@given(st.sets(st.integers(0, 300), max_size=40))
def test_processor_ranges_read_back(numbers: set[int]) -> None:
    text = processor_ranges(numbers)
    assert parse_ranges(text, "x") == tuple(sorted(numbers))


def test_placement_known_answer(tmp_path: Path) -> None:
    data = read_schedule(write(two_partition_schedule(), tmp_path / "s.swf"))
    placed = place(data, (0.0, 40.0))
    by_job = {}
    for segment in placed:
        by_job.setdefault(int(data.ids[segment.job]), []).append(
            (segment.start, segment.end, segment.processors, segment.suspended))
    assert by_job[1] == [(0.0, 10.0, (0, 1), True), (15.0, 25.0, (0, 1), True)]
    assert by_job[2] == [(0.0, 5.0, (2,), False)]
    assert by_job[3] == [(10.0, 15.0, (0, 1), False)]  # partition 1's free pair


def test_queue_and_busy_known_answer(tmp_path: Path) -> None:
    data = read_schedule(write(two_partition_schedule(), tmp_path / "s.swf"))
    times, waiting, busy = queue_and_busy(data, (0.0, 30.0))
    at = dict(zip(times.tolist(), zip(waiting.tolist(), busy.tolist(), strict=True),
                  strict=True))
    assert at[0.0] == (0, 3)     # jobs 1 and 2 run
    assert at[5.0] == (1, 2)     # job 3 waits, job 2 done
    assert at[10.0] == (1, 2)    # job 1 suspended (waiting), job 3 runs
    assert at[15.0] == (0, 2)    # job 3 done, job 1 resumed
    assert at[25.0] == (0, 0)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["fcfs", "easy", "conservative"]))
def test_placed_rectangles_never_overlap(seed: int, policy: str) -> None:
    """Property: on any engine schedule, the processors assigned for the picture are never
    given to two segments at once, and every segment gets its job's processor count."""
    rng = random.Random(seed)
    machine = Machine(16)
    jobs = [job(i + 1, rng.uniform(0, 200), rng.uniform(1, 60), rng.randint(1, 16))
            for i in range(25)]
    jobs.sort(key=lambda j: j.submit)
    schedule = simulate(jobs, machine, make_policy(policy, {}, machine))
    data = _data_of(schedule)
    placed = place(data, window_of(data, None, None))
    # SWF's rounding: an end may read a few microseconds after the start it makes room for
    events = sorted([(s.start, 1, s) for s in placed]
                    + [(s.end - ROUNDING, 0, s) for s in placed], key=lambda e: (e[0], e[1]))
    busy: set[int] = set()
    for _, kind, segment in events:
        if kind == 0:
            busy -= set(segment.processors)
        else:
            assert not busy & set(segment.processors)
            assert len(segment.processors) == int(data.procs[segment.job])
            busy |= set(segment.processors)


def _data_of(schedule: Schedule):  # type: ignore[no-untyped-def]
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        return read_schedule(write(schedule, Path(directory) / "s.swf"))


def test_a_scojo_run_records_and_draws_its_suspensions(tmp_path: Path) -> None:
    """Scojo-PECT's calendar suspends jobs: `schedsim simulate` writes their segments and
    the picture joins those that follow each other without a gap."""
    workload, out = tmp_path / "w.swf", tmp_path / "scojo.swf"
    assert main(["generate", "lublin99", "--jobs", "300", "--seed", "1", "--out",
                 str(workload)]) == 0
    assert main(["simulate", str(workload), "--policy", "scojo-conservative", "--procs", "128",
                 "--out", str(out)]) == 0
    data = read_schedule(out)
    assert sum(len(runs) > 1 for runs in data.runs.values()) > 5
    placed = place(data, window_of(data, None, None))
    suspended = [p for p in placed if p.suspended]
    assert suspended
    for runs in data.runs.values():  # busy time is what the segments add up to
        assert all(end >= start for start, end, _ in runs)


def test_plot_writes_a_deterministic_png(tmp_path: Path) -> None:
    out = write(two_partition_schedule(), tmp_path / "s.swf")
    first, second = tmp_path / "a.png", tmp_path / "b.png"
    for picture in (first, second):
        assert main(["plot", str(out), "--out", str(picture), "--start", "0",
                     "--end", "40s"]) == 0
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_figure_shows_partitions_and_the_suspension(tmp_path: Path) -> None:
    data = read_schedule(write(two_partition_schedule(), tmp_path / "s.swf"))
    fig = schedule_figure(data, (0.0, 30.0))
    gantt = fig.axes[0]
    texts = [t.get_text() for t in gantt.texts]
    assert any("partition 2" in t for t in texts)
    assert "1 suspended jobs hatched" in gantt.get_title()
    assert any(line.get_ydata()[0] == 2 for line in gantt.get_lines())  # the partition edge


@pytest.mark.parametrize("args, message", [
    (["--start", "soon"], "--start='soon'"),
    (["--start", "50", "--end", "10"], "is empty"),
    (["--start", "100d", "--end", "101d"], "no job runs in the window"),
    (["--procs", "0"], "--procs=0"),
])
def test_plot_rejects_bad_windows_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture,
                                               args: list[str], message: str) -> None:
    out = write(two_partition_schedule(), tmp_path / "s.swf")
    code, error = run_cli(["plot", str(out), "--out", str(tmp_path / "p.png"), *args], capsys)
    assert code == 2 and message in error
    assert not (tmp_path / "p.png").exists()


def test_plot_rejects_what_is_not_a_schedule(tmp_path: Path,
                                             capsys: pytest.CaptureFixture) -> None:
    code, error = run_cli(["plot", str(tmp_path / "none.swf"), "--out",
                           str(tmp_path / "p.png")], capsys)
    assert code == 2 and "no such file" in error
    workload = tmp_path / "w.swf"
    workload.write_text("; MaxProcs: 4\n1 0 -1 -1 -1 -1 -1 2 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    code, error = run_cli(["plot", str(workload), "--out", str(tmp_path / "p.png")], capsys)
    assert code == 2 and "not a schedule" in error
    code, error = run_cli(["plot", str(workload), "--out", str(tmp_path / "p.txt")], capsys)
    assert code == 2 and "ending in .png" in error


def test_an_infeasible_schedule_is_an_error(tmp_path: Path,
                                            capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "bad.swf"
    path.write_text("; MaxProcs: 4\n"
                    "1 0 0 10 3 -1 -1 3 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
                    "2 0 0 10 3 -1 -1 3 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    code, error = run_cli(["plot", str(path), "--out", str(tmp_path / "p.png")], capsys)
    assert code == 2 and "more processors than the machine has" in error


def test_parse_time_units() -> None:
    assert parse_time("7d", "--x") == 7 * 86400.0
    assert parse_time("36h", "--x") == 36 * 3600.0
    assert parse_time("90", "--x") == 90.0
    with pytest.raises(InputError):
        parse_time("7 days", "--x")


def test_a_window_of_a_long_log_places_only_its_jobs(tmp_path: Path) -> None:
    """Jobs far outside the window are not placed (a week of a long log stays cheap)."""
    machine = Machine(8)
    jobs = [job(i + 1, 100.0 * i, 50.0, 2) for i in range(2000)]
    schedule = simulate(jobs, machine, make_policy("fcfs", {}, machine))
    data = read_schedule(write(schedule, tmp_path / "long.swf"))
    placed = place(data, (50_000.0, 51_000.0))
    assert {int(data.ids[p.job]) for p in placed} == set(range(501, 511))
    assert np.isfinite(data.end).all()


def run_cli(args: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str]:
    """Exit code and stderr of ``schedsim ARGS``: an error is one line, no traceback."""
    code = main(args)
    error = capsys.readouterr().err
    assert "Traceback" not in error and len(error.strip().splitlines()) <= 1, error
    return code, error
