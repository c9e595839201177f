"""Runs on real Parallel Workloads Archive logs (skipped when ../shared/traces is absent)."""

from __future__ import annotations

import pytest

from schedsim.engine import simulate
from schedsim.machine import Machine
from schedsim.metrics import summarize, validate_schedule
from schedsim.policies.registry import make_policy
from schedsim.workloads.load import load_workload
from schedsim.workloads.swf import read_swf

from conftest import trace_path


@pytest.mark.trace
def test_kth_and_atlas_record_counts() -> None:
    assert len(read_swf(trace_path("KTH-SP2-1996-2.swf.gz")).records) == 28489
    atlas = read_swf(trace_path("LLNL-Atlas-2006-2.1-cln.swf.gz"))
    assert len(atlas.records) == 43778
    assert atlas.max_procs() == 9216


@pytest.mark.trace
@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_first_5000_kth_jobs_give_valid_schedules(policy: str) -> None:
    log = load_workload(trace_path("KTH-SP2-1996-2.swf.gz"))
    assert log.machine.procs == 100 and log.report is not None
    jobs, report = log.jobs[:5000], log.report
    machine = Machine(100)
    schedule = simulate(jobs, machine, make_policy(policy, {}, machine))
    validate_schedule(schedule)
    summary = summarize(schedule)
    assert summary.jobs == 5000
    assert 0 < summary.utilization <= 1
    assert report.dropped_runtime == 8
