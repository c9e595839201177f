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
