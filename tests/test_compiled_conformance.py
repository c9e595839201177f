"""Every policy with a compiled path gives the reference's schedule: the compiled path
(``compiled: true``, the default) against the Python policy under the Python engine
(``compiled: false``), start for start, end for end, segment for segment, processor for
processor, with the same statistics, on fixed and on hypothesis-generated workloads
(several partitions, suspensions and background loads included), and for jobs with work
under every execution model of the machine (equal split and pooled).

A policy whose settings have ``compiled`` must have a case here: the first test fails
for a compiled path nobody compares, the second for a case of jobs with work that leaves
out an execution model.
"""

from __future__ import annotations

import contextlib
import copy
import random
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedsim.engine import simulate
from schedsim.jobs import Job
from schedsim.loadmodel import UniformLoads
from schedsim.machine import EXECUTION_MODELS, Machine
from schedsim.policies.registry import all_policies, make_policy
from schedsim.schedule import Schedule, SimulationError
from schedsim.workloads.hyperexp import PARAMS, generate_hyperexp_jobs, ihap_machine
from schedsim.workloads.lublin import generate_lublin


# -- workloads ---------------------------------------------------------------------------
@st.composite
def rigid_jobs(draw: st.DrawFn, widest: int = 16, positive: bool = False) -> list[Job]:
    """Bursts and gaps, estimates exact, over and under the run time, zero run times
    (``positive``: every job at least 1 s and ending by its estimate)."""
    out, submit = [], 0.0
    for number in range(1, draw(st.integers(1, 40)) + 1):
        submit += draw(st.sampled_from([0, 0, 1, 5, 30, 200]))
        runtime = float(draw(st.sampled_from([0, 1, 10, 25, 60, 300])))
        estimate = draw(st.sampled_from([runtime, runtime, 2 * runtime + 5, runtime / 2]))
        if positive:
            runtime, estimate = max(runtime, 1.0), max(estimate, runtime, 1.0)
        out.append(Job(number, submit, runtime, draw(st.integers(1, widest)), estimate))
    return out


@st.composite
def sliced_jobs(draw: st.DrawFn) -> list[Job]:
    """For Scojo-PECT's calendar: arrivals on and between slice boundaries, every class,
    exact and inexact estimates, zero-length jobs, several jobs at one instant."""
    out, submit = [], 0.0
    for number in range(1, draw(st.integers(1, 30)) + 1):
        submit += draw(st.sampled_from([0, 0, 10, 60, 300, 480, 600, 900, 1_080, 3_600]))
        runtime = float(draw(st.sampled_from([0, 50, 200, 599, 900, 2_000, 5_000, 12_000])))
        estimate = runtime * draw(st.sampled_from([1.0, 1.0, 2.0, 0.5]))
        out.append(Job(number, submit, runtime, draw(st.integers(1, 8)), estimate))
    return out


@st.composite
def exact_jobs(draw: st.DrawFn, widest: int) -> list[Job]:
    """The GOAL paper's setting: exact run times, jobs up to ``widest`` nodes."""
    out, submit = [], 0.0
    for number in range(1, draw(st.integers(1, 25)) + 1):
        submit += draw(st.sampled_from([0, 0, 3, 20, 100]))
        runtime = float(draw(st.sampled_from([1, 10, 40, 120, 500])))
        out.append(Job(number, submit, runtime, draw(st.integers(1, widest)), runtime))
    return out


@st.composite
def hyperexp_jobs(draw: st.DrawFn) -> tuple[list[Job], int]:
    """The IHAP paper's workload (jobs with work), and the seed of the loads."""
    params = {p.name: p.default for p in PARAMS}
    params.update(utilization=draw(st.sampled_from([0.5, 0.8, 0.95])),
                  cv_arrival=draw(st.sampled_from([1.0, 3.0])))
    seed = draw(st.integers(1, 10_000))
    return generate_hyperexp_jobs(draw(st.integers(1, 120)), seed, params), seed


def lublin_jobs(count: int, nodes: int, seed: int, inexact: bool = False) -> list[Job]:
    """Typeless Lublin99 jobs at a high load (the SLACK thesis's W1): long queues, every
    Scojo-PECT class, many suspensions; estimates exact, or (``inexact``) off by a factor
    of 2 either way for two jobs in three."""
    factors = (1.0, 2.0, 0.5)
    return [Job(j.job_id, float(j.submit), float(j.runtime), j.nodes,
                float(j.runtime) * (factors[j.job_id % 3] if inexact else 1.0))
            for j in generate_lublin(count, seed, typed=False, nodes=nodes, aarr=10.23,
                                     arar=1.0)]


# -- the cases -----------------------------------------------------------------------------
Fixed = tuple[list[Job], Machine, int | None, dict[str, Any]]


@dataclass(frozen=True)
class Case:
    """How to compare one policy: machines, generated workloads (with the load seed, or
    None for a dedicated machine), parameters, fixed workloads (each with its machine,
    load seed and parameters), and whether the compiled path is a whole run
    (``simulate_compiled``) or a compiled search inside the engine."""

    machines: tuple[Machine, ...]
    workloads: Callable[[Machine], st.SearchStrategy[tuple[list[Job], int | None]]]
    params: st.SearchStrategy[dict[str, Any]]
    fixed: Callable[[], list[Fixed]]
    whole_run: bool = True
    with_work: bool = False  # jobs with work: every execution model must be compared


def _no_load(strategy: st.SearchStrategy[list[Job]]) -> st.SearchStrategy[
        tuple[list[Job], int | None]]:
    return strategy.map(lambda jobs: (jobs, None))


def _rigid(positive: bool = False) -> Case:
    return Case((Machine(16), Machine(24), Machine(32, unit=4)),
                lambda machine: _no_load(rigid_jobs(16, positive)), st.just({}),
                lambda: [(lublin_jobs(2_000, 128, 5, inexact=not positive), Machine(128),
                          None, {})])


SCOJO = st.fixed_dictionaries({
    "nontype": st.sampled_from(["all", "short", "none"]),
    "short_slice": st.sampled_from([600.0, 300.0]),
    "medium_share": st.sampled_from([0.3, 0.5])})
SLACK = st.fixed_dictionaries({
    "goal": st.sampled_from(["G1", "G2"]),
    "fst": st.sampled_from(["fcfs", "conservative"]),
    "lookahead": st.integers(1, 6),
    "slack_up": st.sampled_from([1.0, 1.5]),
    "max_nodes": st.sampled_from([3, 5000])})
NONTYPE_SELECTION = st.fixed_dictionaries({
    "nontype_selection": st.sampled_from(["slack", "first_fit"])})
ADAPTIVE = st.fixed_dictionaries({
    "capacity": st.sampled_from(["available", "nominal"]),
    "rounding": st.sampled_from(["as_printed", "nearest"]),
    "f": st.sampled_from([0.5, 1.0]),
    "sized_job_waits": st.booleans(),
    "selection": st.sampled_from(["", "fcfs", "fpfs"])})
BPU_ADAPTIVE = st.tuples(ADAPTIVE, st.sampled_from(["processors", "bpus"])).map(
    lambda both: {**both[0], "pmax_unit": both[1]})
GOAL = st.fixed_dictionaries({
    "node_limit": st.sampled_from([1, 7, 50, 4000]),
    "tree": st.sampled_from(["idea2", "idea1"]),
    "idea1_order": st.sampled_from(["partition_first", "best_fit_first"]),
    "branching": st.sampled_from(["fcfs", "lxf"]),
    "objective": st.sampled_from(["tradeoff", "hierarchical"]),
    "bound": st.sampled_from(["history", "fcfs_leaf", "fixed"]),
    "omega": st.sampled_from([0.0, 600.0])})


def _adaptive(params: st.SearchStrategy[dict[str, Any]], bpus: bool) -> Case:
    """MAP, HAP, IHAP: the paper's machine under background load and a small dedicated
    one of mixed speeds, each under every execution model; fixed, the paper's workload
    under each model (with Pmax in BPUs too for the policies that size in BPUs)."""
    loaded = ihap_machine()
    bases = (loaded, Machine(6, speeds=(1.0, 1.5, 2.0, 0.5, 1.0, 3.0)))
    machines = tuple(replace(m, execution=e) for m in bases for e in EXECUTION_MODELS)

    def fixed() -> list[Fixed]:
        jobs = generate_hyperexp_jobs(600, 3, {**{p.name: p.default for p in PARAMS},
                                               "utilization": 0.8})
        chosen = [{}, {"pmax_unit": "bpus"}] if bpus else [{}]
        return [(jobs, replace(loaded, execution=e), 11, c)
                for e in EXECUTION_MODELS for c in chosen]
    return Case(machines, lambda machine: hyperexp_jobs().map(
                    lambda case: (case[0], case[1] if machine.procs == loaded.procs else None)),
                params, fixed, with_work=True)


def _goal() -> Case:
    machines = (Machine(16, partitions=(8, 8)), Machine(24, partitions=(8, 16)),
                Machine(12, partitions=(4, 4, 4)))
    return Case(machines, lambda machine: _no_load(exact_jobs(max(machine.partitions))), GOAL,
                lambda: [([Job(j.id, j.submit, j.runtime, min(j.procs, 64), j.runtime)
                           for j in lublin_jobs(300, 128, 9)],
                          Machine(128, partitions=(64, 64)), None, {})],
                whole_run=False)


CASES: dict[str, Case] = {
    "fcfs": _rigid(), "easy": _rigid(),
    # conservative backfilling assumes jobs of positive length ending by their estimates
    # (as cleaned logs are): otherwise the policy itself overcommits
    "conservative": _rigid(positive=True),
    "slack-backfill": Case((Machine(8),), lambda machine: _no_load(sliced_jobs()), SLACK,
                           lambda: [(lublin_jobs(1_000, 128, 3), Machine(128), None, {})]),
    "scojo-conservative": Case((Machine(8),), lambda machine: _no_load(sliced_jobs()),
                               SCOJO, lambda: [(lublin_jobs(1_000, 128, 4), Machine(128), None,
                                                {})]),
    "scojo-slack": Case((Machine(8),), lambda machine: _no_load(sliced_jobs()),
                        st.tuples(SCOJO, SLACK, NONTYPE_SELECTION).map(
                            lambda parts: {**parts[0], **parts[1], **parts[2]}),
                        lambda: [(lublin_jobs(800, 128, 6), Machine(128), None, {})]),
    "MAP": _adaptive(ADAPTIVE, bpus=False), "HAP": _adaptive(BPU_ADAPTIVE, bpus=True),
    "IHAP": _adaptive(BPU_ADAPTIVE, bpus=True), "IHAP-FCFS": _adaptive(BPU_ADAPTIVE, bpus=True),
    "goal-oriented": _goal(), "goal-oriented-idea1": _goal(),
}


def compiled_policies() -> list[str]:
    """Registered policies whose settings have the ``compiled`` switch."""
    return sorted(name for name, entry in all_policies().items()
                  if "compiled" in {f.name for f in fields(entry.settings_cls)})


def test_every_policy_with_a_compiled_path_has_a_case() -> None:
    assert compiled_policies() == sorted(CASES)


@pytest.mark.parametrize("name", sorted(name for name, case in CASES.items() if case.with_work))
def test_jobs_with_work_are_compared_under_every_execution_model(name: str) -> None:
    """A compiled path that runs jobs with work is compared under equal split and pooled,
    on generated and on fixed workloads."""
    case = CASES[name]
    assert {m.execution for m in case.machines if m.speeds} == set(EXECUTION_MODELS)
    assert {machine.execution for _, machine, _, _ in case.fixed()} == set(EXECUTION_MODELS)


# -- the comparison --------------------------------------------------------------------------
def run(name: str, params: dict[str, Any], jobs: list[Job], machine: Machine,
        load_seed: int | None, compiled: bool) -> Schedule | str:
    """The schedule, or the message of the ``SimulationError`` the run ends with."""
    policy = make_policy(name, {**params, "compiled": compiled}, machine)
    load = UniformLoads(machine.procs, load_seed) if load_seed is not None else None
    try:
        return simulate([copy.copy(job) for job in jobs], machine, policy, load_model=load,
                        check=True)
    except SimulationError as err:
        return str(err)


def assert_same(reference: Schedule | str, compiled: Schedule | str) -> None:
    if isinstance(reference, str) or isinstance(compiled, str):
        assert compiled == reference
        return
    assert compiled.start == reference.start
    assert compiled.end == reference.end
    assert compiled.procs == reference.procs
    assert compiled.partition == reference.partition
    assert compiled.split == reference.split
    assert compiled.processors == reference.processors
    assert compiled.statistics == reference.statistics


def compare(name: str, params: dict[str, Any], jobs: list[Job], machine: Machine,
            load_seed: int | None) -> None:
    if CASES[name].whole_run:  # the compiled path must really run, not the engine
        policy = make_policy(name, params, machine)
        load = UniformLoads(machine.procs, load_seed) if load_seed is not None else None
        # a run the policy cannot complete ends in an error, the same for both (below)
        with contextlib.suppress(SimulationError):
            assert policy.simulate_compiled([copy.copy(job) for job in jobs], load) is not None
    assert_same(run(name, params, jobs, machine, load_seed, False),
                run(name, params, jobs, machine, load_seed, True))


@pytest.mark.parametrize("name", sorted(CASES))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_compiled_equals_the_reference_on_generated_workloads(name: str,
                                                              data: st.DataObject) -> None:
    case = CASES[name]
    machine = data.draw(st.sampled_from(case.machines))
    jobs, load_seed = data.draw(case.workloads(machine))
    compare(name, data.draw(case.params), jobs, machine, load_seed)


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_equals_the_reference_on_a_fixed_workload(name: str) -> None:
    for jobs, machine, load_seed, params in CASES[name].fixed():
        compare(name, params, jobs, machine, load_seed)


@pytest.mark.parametrize("params", [{"nontype_selection": "first_fit"},
                                    {"goal": "G2", "fst": "conservative"}])
def test_scojo_slack_equals_the_reference_under_its_other_readings(
        params: dict[str, Any]) -> None:
    """The fixed Lublin99 workload of Scojo-PECT with slack under first-fit non-type
    backfilling and under G2 with the conservative fair start (the default: above)."""
    for jobs, machine, load_seed, fixed_params in CASES["scojo-slack"].fixed():
        compare("scojo-slack", {**fixed_params, **params}, jobs, machine, load_seed)


@pytest.mark.parametrize("name", ["MAP", "HAP", "IHAP"])
@pytest.mark.parametrize("machine", [Machine(2, speeds=(1.0, 1.0)),
                                     Machine(4, speeds=(1.0, 2.0, 1.0, 1.5))])
def test_loads_that_often_leave_a_rate_as_it_was(name: str, machine: Machine) -> None:
    """Single-processor jobs under loads of 0 or 10% only: a redraw often leaves a running
    job's rate unchanged, so the completion entry pushed at its start must stay current
    when the loop drops the stale entries of the jobs it re-timed (on the cases above
    nearly every running job is re-timed at every redraw)."""
    draw = random.Random(1)
    jobs, submit = [], 0.0
    for number in range(1, 200):
        submit += draw.choice([1.0, 5.0, 20.0])
        work = draw.choice([10.0, 50.0, 200.0])
        jobs.append(Job(number, submit, work, 1, work, work=work))

    def coarse() -> UniformLoads:
        return UniformLoads(machine.procs, 5, max_percent=10, step_percent=10)

    assert make_policy(name, {}, machine).simulate_compiled(
        [copy.copy(job) for job in jobs], coarse()) is not None  # the compiled path runs
    assert_same(*(simulate([copy.copy(job) for job in jobs], machine,
                           make_policy(name, {"compiled": compiled}, machine),
                           load_model=coarse(), check=True) for compiled in (False, True)))


def test_a_subclass_or_an_unmodelled_run_goes_through_the_engine() -> None:
    """No compiled path for a subclass (its decisions differ) or for input the compiled
    engine does not model; the engine runs them."""
    from schedsim.policies.backfill import EASY
    from schedsim.policies.registry import get_policy

    class Watched(EASY):
        pass

    jobs = [Job(1, 0.0, 10.0, 2, 10.0), Job(2, 1.0, 5.0, 4, 5.0)]
    settings_ = get_policy("easy").settings({})
    assert Watched(settings_, Machine(4)).simulate_compiled(jobs) is None
    assert make_policy("easy", {}, Machine(4, partitions=(2, 2))).simulate_compiled(jobs) is None
    wide = [Job(1, 0.0, 10.0, 9, 10.0)]
    assert make_policy("scojo-slack", {}, Machine(8)).simulate_compiled(wide) is None
    worked = [Job(1, 0.0, 10.0, 2, 10.0, work=20.0)]
    assert make_policy("slack-backfill", {}, Machine(8)).simulate_compiled(worked) is None
    assert make_policy("IHAP", {}, Machine(8)).simulate_compiled(jobs) is None


def test_the_compiled_loop_refuses_a_decision_the_engine_refuses() -> None:
    """A refused decision ends the run with the engine's error, never a schedule."""
    from schedsim.kernel.whole import Outcome, check

    outcome = Outcome(np.zeros(1), np.zeros(1), np.zeros(1, np.int64), np.zeros(1, np.int64),
                      np.zeros(1, np.int8), 3, 0)
    with pytest.raises(SimulationError, match="job 7 gets a processor count"):
        check(outcome, [7])
