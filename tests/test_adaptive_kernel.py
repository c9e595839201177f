"""The compiled MAP/HAP/IHAP run (schedsim.policies.adaptive_kernel) against the engine:
the same schedule, start for start and end for end, under the same load draws."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedsim.engine import simulate
from schedsim.loadmodel import UniformLoads
from schedsim.policies.adaptive_kernel import simulate_adaptive
from schedsim.policies.registry import make_policy
from schedsim.workloads.hyperexp import PARAMS, generate_hyperexp_jobs, ihap_machine

MACHINE = ihap_machine()


def workload(jobs: int, seed: int, **params: float) -> list:
    return generate_hyperexp_jobs(jobs, seed, {**{p.name: p.default for p in PARAMS}, **params})


def both(name: str, params: dict, jobs: list, seed: int) -> tuple:
    reference = simulate(jobs, MACHINE, make_policy(name, params, MACHINE),
                         load_model=UniformLoads(MACHINE.procs, seed))
    compiled = simulate_adaptive(jobs, MACHINE, make_policy(name, params, MACHINE),
                                 UniformLoads(MACHINE.procs, seed))
    return reference, compiled


@pytest.mark.parametrize("name, params", [
    ("MAP", {}), ("HAP", {}), ("IHAP", {}), ("IHAP-FCFS", {}),
    ("MAP", {"capacity": "nominal"}), ("HAP", {"capacity": "nominal", "rounding": "nearest"}),
    ("IHAP", {"rounding": "nearest", "f": 1.0}), ("HAP", {"selection": "fpfs"}),
    ("IHAP", {"sized_job_waits": False}), ("MAP", {"sized_job_waits": False}),
])
def test_kernel_gives_the_engine_schedule(name: str, params: dict) -> None:
    jobs = workload(800, 3, utilization=0.8, cv_arrival=2.0)
    reference, (start, end, procs) = both(name, params, jobs, 11)
    assert np.array_equal(np.array(reference.start), start)
    assert np.array_equal(np.array(reference.end), end)
    assert np.array_equal(np.array(reference.procs), procs)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), utilization=st.sampled_from([0.2, 0.6, 0.95]),
       name=st.sampled_from(["MAP", "HAP", "IHAP", "IHAP-FCFS"]))
def test_kernel_equals_engine_on_random_workloads(seed: int, utilization: float,
                                                  name: str) -> None:
    jobs = workload(300, seed, utilization=utilization)
    reference, (start, end, _) = both(name, {}, jobs, seed + 1)
    assert np.array_equal(np.array(reference.start), start)
    assert np.array_equal(np.array(reference.end), end)


def test_kernel_refuses_jobs_without_work() -> None:
    from schedsim.jobs import Job

    with pytest.raises(ValueError, match="needs jobs with work"):
        simulate_adaptive([Job(1, 0.0, 5.0, 2, 5.0)], MACHINE,
                          make_policy("IHAP", {}, MACHINE), UniformLoads(MACHINE.procs, 1))
