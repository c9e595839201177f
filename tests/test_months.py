"""The GOAL paper's monthly protocol: calendar months in the log's time zone, the
warm-up and tail, the dual-CPU node conversion and the monthly metrics."""

from __future__ import annotations

import math

import pytest

from schedsim.engine import simulate
from schedsim.jobs import Job
from schedsim.machine import Machine
from schedsim.policies.registry import make_policy
from schedsim.workloads.months import (
    DAY,
    dual_cpu_nodes,
    month_metrics,
    month_start,
    month_window,
)

HPC2N_START = 1027839845  # HPC2N-2002-2.1-cln: UnixStartTime (2002-07-28 07:04:05 UTC)


def test_month_starts_at_local_midnight() -> None:
    # 2003-06-01 00:00 in Stockholm is 2003-05-31 22:00 UTC (summer time, UTC+2):
    # unix 1054418400; 2004-01-01 00:00 is 2003-12-31 23:00 UTC (UTC+1): 1072911600.
    assert month_start(HPC2N_START, "Europe/Stockholm", 2003, 6) == 1054418400 - HPC2N_START
    assert month_start(HPC2N_START, "Europe/Stockholm", 2004, 1) == 1072911600 - HPC2N_START


def test_month_window_keeps_warm_up_and_tail_and_measures_the_month() -> None:
    start = month_start(0, "UTC", 1970, 2)  # 31 days
    end = month_start(0, "UTC", 1970, 3)
    submits = [start - 8 * DAY, start - 6 * DAY, start, end - 1, end, end + 30 * DAY,
               end + 32 * DAY]
    jobs = [Job(i, t, 10.0, 1, 10.0) for i, t in enumerate(submits)]
    window = month_window(jobs, 0, "UTC", 1970, 2)
    assert [j.id for j in window.jobs] == [1, 2, 3, 4, 5]
    assert window.measured == (1, 2) and window.label == "1970-02"


def test_dual_cpu_nodes_are_half_the_processors_capped() -> None:
    jobs = [Job(1, 0.0, 50.0, 1, 99.0), Job(2, 0.0, 50.0, 7, 99.0), Job(3, 0.0, 50.0, 240, 99.0)]
    nodes = dual_cpu_nodes(jobs)
    assert [j.procs for j in nodes] == [1, 4, 64]
    assert all(j.estimate == j.runtime for j in nodes)
    assert jobs[1].procs == 7  # copies


def test_month_metrics_over_the_measured_jobs_and_per_partition() -> None:
    submit, start = [0.0, 0.0, 0.0, 0.0], [0.0, 100.0, 2 * DAY, 5.0]
    runtime, nodes, partition = [3600.0, 5.0, 100.0, 7200.0], [2, 4, 1, 8], [0, 1, 0, 1]
    found = month_metrics(submit, start, runtime, nodes, partition, (0, 1, 2), 2)
    assert found["jobs"] == 3 and found["max_wait"] == 2 * DAY
    assert found["mean_wait"] == pytest.approx((100.0 + 2 * DAY) / 3)
    assert found["long_waits"] == 1  # more than 24 h
    assert found["mean_bsld"] == pytest.approx((1.0 + 10.5 + (2 * DAY + 100) / 100) / 3)
    assert found["p1_jobs"] == 2 and found["p2_jobs"] == 1
    assert found["p1_node_hours"] == pytest.approx((2 * 1.0 + 1 * 100 / 3600) / 2)
    assert found["p2_max_wait"] == 100.0


def test_a_month_stops_once_its_jobs_started() -> None:
    # The tail job would otherwise run to 10,000 s: the run stops when the month's jobs
    # (positions 0, 1) have started.
    jobs = [Job(1, 0.0, 10.0, 2, 10.0), Job(2, 5.0, 10.0, 2, 10.0), Job(3, 6.0, 1e4, 2, 1e4)]
    machine = Machine(4, partitions=(2, 2))
    schedule = simulate(jobs, machine, make_policy("bf-fcfs-backfill", {}, machine),
                        stop_when_started=(0, 1))
    assert schedule.stopped_at is not None and schedule.stopped_at < 1e4
    assert not math.isnan(schedule.start[1])


def test_a_lublin_month_is_deterministic_capped_and_at_the_offered_load() -> None:
    from schedsim.workloads.months import lublin_month
    from schedsim.workloads.scaling import offered_load

    month = lublin_month(3)
    again = lublin_month(3)
    assert [(j.submit, j.procs, j.runtime) for j in month.jobs] == \
        [(j.submit, j.procs, j.runtime) for j in again.jobs]
    assert month.start == 7 * DAY and month.end == 37 * DAY
    assert max(j.procs for j in month.jobs) <= 64
    assert all(j.estimate == j.runtime for j in month.jobs)
    measured = [month.jobs[i] for i in month.measured]
    assert measured and all(month.start <= j.submit < month.end for j in measured)
    assert month.jobs[-1].submit < month.end + 31 * DAY
    # the month itself sits near the series' offered load of 0.70 (Lublin's daily cycle
    # and burstiness leave it within a wide band)
    assert 0.4 < offered_load(measured, 128) < 1.0
    assert lublin_month(4).jobs[0].runtime != month.jobs[0].runtime or \
        lublin_month(4).jobs[1].submit != month.jobs[1].submit


# ----------------------------------------------------------------------------- month files


def _header(values: dict[str, str]):
    return values.get


def test_measured_window_is_read_from_the_header() -> None:
    from schedsim.workloads.months import measured_window

    assert measured_window(_header({}), "f.swf") is None
    assert measured_window(_header({"MeasuredFrom": "10", "MeasuredTo": "20.5"}),
                           "f.swf") == (10.0, 20.5)


@pytest.mark.parametrize("values, message", [
    ({"MeasuredFrom": "10"}, "both must be numbers"),
    ({"MeasuredFrom": "x", "MeasuredTo": "20"}, "both must be numbers"),
    ({"MeasuredFrom": "20", "MeasuredTo": "10"}, "must be below"),
])
def test_a_bad_measured_window_is_an_input_error(values: dict[str, str], message: str) -> None:
    from schedsim.errors import InputError
    from schedsim.workloads.months import measured_window

    with pytest.raises(InputError, match=message):
        measured_window(_header(values), "f.swf")


def test_a_log_without_a_clock_cannot_be_cut_into_months() -> None:
    from schedsim.errors import InputError
    from schedsim.workloads.months import log_clock

    with pytest.raises(InputError, match=r"f\.swf: header lacks UnixStartTime"):
        log_clock(_header({"UnixStartTime": "0"}), "f.swf")
    with pytest.raises(InputError, match="TimeZoneString 'Mars/Base'"):
        log_clock(_header({"UnixStartTime": "0", "TimeZoneString": "Mars/Base"}), "f.swf")
    assert log_clock(_header({"UnixStartTime": "5", "TimeZoneString": "UTC"}), "f") == (5.0,
                                                                                      "UTC")


def test_conversions() -> None:
    from schedsim.workloads.months import convert

    jobs = [Job(1, 0.0, 100.0, 3, 500.0), Job(2, 0.0, 100.0, 200, 500.0)]
    assert [(j.procs, j.estimate) for j in convert(jobs, "dual-cpu-nodes", 64)] == [
        (2, 100.0), (64, 100.0)]
    assert [j.procs for j in convert(jobs, "none", 64)] == [3, 64]
    assert convert(jobs, "none", None) == jobs
    with pytest.raises(ValueError, match="allowed values none, dual-cpu-nodes"):
        convert(jobs, "quad", None)


def test_a_month_file_runs_under_the_month_protocol(tmp_path) -> None:
    """A month written as SWF reads back with its measured jobs; the run stops once they
    started and measures only them (hand-computed: one 64-node partition pair)."""
    from schedsim.experiments.run import file_workload, simulate_once
    from schedsim.experiments.spec import MachineSpec, PointSpec
    from schedsim.workloads.months import MonthWindow, month_swf

    jobs = [Job(1, 0.0, 100.0, 64, 100.0), Job(2, 10.0, 50.0, 64, 50.0),
            Job(3, 20.0, 10.0, 64, 10.0), Job(4, 200.0, 1000.0, 1, 1000.0)]
    path = tmp_path / "month.swf"
    path.write_text(month_swf(MonthWindow("m", 10.0, 30.0, jobs, (1, 2)), 128))
    spec = PointSpec("goal", "T", "p", "pt", "v", "workload", {},
                     MachineSpec(128, 1, (64, 64)), "lublin-month", (1,))
    workload = file_workload(spec, str(path))
    assert workload.measured == (1, 2)
    assert workload.info["month_jobs"] == 2
    assert workload.info["demand"] == pytest.approx((64 * 50 + 64 * 10) / (128 * 20))
    from schedsim.experiments.families.goal_measure import MEASURE

    metrics = simulate_once(workload, Machine(128, 1, (64, 64)), "bf-fcfs-backfill", {},
                            measure=MEASURE)
    # Job 1 on partition 1 at 0; job 2 on partition 2 at 10; job 3 waits for job 2 (ends
    # at 60, before job 1 at 100) and starts at 60 on partition 2: waits 0 and 40.
    assert metrics["jobs"] == 2 and metrics["AWT"] == 20.0 and metrics["max_wait"] == 40.0
    assert metrics["p2_jobs"] == 2 and metrics["p1_jobs"] == 0
    assert metrics["BSLD"] == pytest.approx((1.0 + 50.0 / 10.0) / 2)


def test_the_lublin_month_model_writes_its_window() -> None:
    from schedsim.workloads.base import get_model

    text = get_model("lublin-month").run(1, 1, {"days": 1.0})
    header = [line for line in text.splitlines() if line.startswith(";")]
    assert "; MeasuredFrom: 604800" in header and "; MeasuredTo: 691200" in header
