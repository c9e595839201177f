"""Audit Scojo-PECT with slack (Jin 2009, sec. 4.3-4.4) on full-size workloads: the plans
each class keeps, the "due" jobs judged from them, and the start bound.

    python scripts/audit_scojo_plans.py       # W1: every seed, G1 and G2, both fair starts
    python scripts/audit_scojo_plans.py --seeds 71 --jobs 2000 --nontype-selection first_fit
    python scripts/audit_scojo_plans.py --compiled-only   # the start bound only, fast

Each run is the Python reference policy (``compiled: false``) in the engine, watched
from outside through the selectors' own calls: a class's plan is what its selector last
committed (``select``; a slack-based non-type backfilling's ``search_backfill``), and a
job that arrived since holds the slot its admission gave it (``admit``). Counted per run:

* due starts: waiting medium and long jobs started in another class's slice;
* not due: those whose slot in their class's plan was not now (must be 0);
* beyond the bound: jobs that started after submit + F_slack (FST - submit) in their
  class's time (must be 0; every run with exact estimates also fails on one itself);
* the least margin, min over the jobs of that bound minus the start (s);
* compiled = reference: whether the compiled run (``compiled: true``, the default, which
  checks the bound itself) gives the reference's starts and ends, so that the counts
  hold for it too (must be "yes").

With ``--compiled-only`` only the compiled runs are made (about a second each against
a minute or two for the reference): the start bound as every such run checks it (a run
that breaks it stops with the error that names the first late job), and the run's
fairness counts (sec. 5.4); due starts are not watched.

Workloads: typeless Lublin99 (``aarr`` 10.23, ``arar`` 1: the SLACK family's W1) with
exact estimates, the seeds of ``config/config.yaml``'s ``slack`` section. Exit code 1
when a count that must be 0 is not, or a compiled run differs.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from schedsim.engine import EngineView, Start, simulate
from schedsim.jobs import Job
from schedsim.machine import Machine
from schedsim.policies.registry import make_policy
from schedsim.policies.scojo import MEDIUM
from schedsim.policies.slack import slack_factor
from schedsim.schedule import Schedule
from schedsim.workloads.lublin import generate_lublin

REPO = Path(__file__).resolve().parents[1]
TOLERANCE = 1e-6  # seconds, as the policy's own check


@dataclass
class Audit:
    """The counts of one run (module docstring)."""

    jobs: int = 0
    due_starts: int = 0
    not_due: int = 0
    beyond_bound: int = 0
    least_margin: float = math.inf
    schedule: Schedule | None = field(default=None, repr=False)  # the reference run's


def w1_jobs(count: int, seed: int) -> list[Job]:
    """The SLACK family's W1 workload with exact estimates."""
    return [Job(j.job_id, float(j.submit), float(j.runtime), j.nodes, float(j.runtime))
            for j in generate_lublin(count, seed, typed=False, nodes=128, aarr=10.23,
                                     arar=1.0)]


def audit(jobs: list[Job], machine: Machine, params: dict[str, Any]) -> Audit:
    """One run of ``scojo-slack`` with ``params``, watched (module docstring)."""
    policy = make_policy("scojo-slack", {**params, "compiled": False}, machine)
    plans: list[dict[int, float]] = [{}, {}, {}]  # per class: job index -> slot
    for klass, selector in enumerate(policy.selectors):
        _watch_selector(selector, plans[klass])
    result = Audit(jobs=len(jobs))
    schedule = policy.schedule

    def watched(view: EngineView) -> list:  # type: ignore[type-arg]
        piece = policy.slice_at(view.now)
        decisions = schedule(view)
        for decision in decisions:
            if not isinstance(decision, Start):
                continue
            d = policy.klass(decision.job)
            if d != piece.klass and d >= MEDIUM:
                result.due_starts += 1
                if plans[d][decision.job.index] > policy.clock[d]:
                    result.not_due += 1
        return decisions

    policy.schedule = watched  # type: ignore[method-assign]
    result.schedule = simulate(jobs, machine, policy, check=True)
    for index, job in enumerate(jobs):
        selector = policy.selectors[policy.klass(job)]
        submitted, fair = selector.submitted[index], selector.fair_start[index]
        bound = submitted + slack_factor(fair - submitted, selector.settings) * (fair - submitted)
        margin = bound - policy.started[index]
        result.least_margin = min(result.least_margin, margin)
        if margin < -TOLERANCE:
            result.beyond_bound += 1
    return result


def _watch_selector(selector: Any, plan: dict[int, float]) -> None:
    """Record in ``plan`` every slot ``selector`` commits: admissions, selections (the
    class's whole plan) and slack-based non-type backfillings."""
    admit, select, backfill = selector.admit, selector.select, selector.search_backfill

    def admitted(job: Job, *args: Any) -> float:
        plan[job.index] = slot = admit(job, *args)
        return slot

    def selected(*args: Any) -> dict[int, float]:
        placement = select(*args)
        plan.clear()
        plan.update(placement)
        return placement

    def backfilled(*args: Any) -> Any:
        best = backfill(*args)
        if best is not None:
            plan.update(best.placement)
        return best

    for name, wrapper in (("admit", admitted), ("select", selected),
                          ("search_backfill", backfilled)):
        setattr(selector, name, wrapper)


def compiled_agrees(jobs: list[Job], machine: Machine, params: dict[str, Any],
                    reference: Schedule) -> bool:
    """Whether the compiled run of ``scojo-slack`` with ``params`` has the reference run's
    starts and ends (NaN-aware, exact)."""
    policy = make_policy("scojo-slack", {**params, "compiled": True}, machine)
    compiled = simulate(jobs, machine, policy, check=True)
    return all(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True) for a, b in
               ((compiled.start, reference.start), (compiled.end, reference.end)))


REFERENCE_HEADER = ("| seed | goal | fst | jobs | due starts | not due | beyond the bound | "
                    "least margin (s) | compiled = reference | s |",
                    "|---:|---|---|---:|---:|---:|---:|---:|---|---:|")
BOUND_HEADER = ("| seed | goal | fst | jobs | start bound | unfair | preferential | s |",
                "|---:|---|---|---:|---|---:|---:|---:|")


def reference_row(jobs: list[Job], machine: Machine, params: dict[str, Any]
                  ) -> tuple[str, bool]:
    """The cells of one watched run (``audit``) and its compiled twin
    (``compiled_agrees``); and whether every count that must be 0 is and they agree."""
    got = audit(jobs, machine, params)
    assert got.schedule is not None
    agrees = compiled_agrees(jobs, machine, params, got.schedule)
    cells = (f"{got.due_starts} | {got.not_due} | {got.beyond_bound} | "
             f"{got.least_margin:.1f} | {'yes' if agrees else 'no'}")
    return cells, got.not_due == 0 and got.beyond_bound == 0 and agrees


def bound_row(jobs: list[Job], machine: Machine, params: dict[str, Any]) -> tuple[str, bool]:
    """The ``--compiled-only`` cells of one run: the start bound's verdict (the run's own
    count, ``past_bound``), unfair and preferential jobs; and whether the bound held."""
    policy = make_policy("scojo-slack", {**params, "compiled": True}, machine)
    counts = simulate(jobs, machine, policy, check=True).statistics
    late = int(counts["past_bound"])
    verdict = "held" if late == 0 else f"broken: {late} job(s) past the bound"
    return f"{verdict} | {counts['unfair']:.0f} | {counts['preferential']:.0f}", late == 0


def config_seeds() -> list[int]:
    section = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["slack"]
    return [int(seed) for seed in section["seeds"]["values"]]


def main(argv: list[str] | None = None, out: Callable[[str], None] = print) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=10_000)
    parser.add_argument("--seeds", type=int, nargs="+", default=None,
                        help="default: the slack section's seeds in config/config.yaml")
    parser.add_argument("--goals", nargs="+", default=["G1", "G2"], choices=["G1", "G2"])
    parser.add_argument("--fst", nargs="+", default=["fcfs", "conservative"],
                        choices=["fcfs", "conservative"])
    parser.add_argument("--nontype-selection", default="slack",
                        choices=["slack", "first_fit"])
    parser.add_argument("--compiled-only", action="store_true",
                        help="the compiled runs' start bound only (module docstring)")
    args = parser.parse_args(argv)
    machine = Machine(128)
    row = bound_row if args.compiled_only else reference_row
    for line in BOUND_HEADER if args.compiled_only else REFERENCE_HEADER:
        out(line)
    failed = False
    for seed in args.seeds or config_seeds():
        jobs = w1_jobs(args.jobs, seed)
        for goal in args.goals:
            for fst in args.fst:
                began = time.perf_counter()
                cells, passed = row(jobs, machine, {
                    "goal": goal, "fst": fst, "nontype_selection": args.nontype_selection})
                failed = failed or not passed
                out(f"| {seed} | {goal} | {fst} | {len(jobs)} | {cells} | "
                    f"{time.perf_counter() - began:.1f} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
