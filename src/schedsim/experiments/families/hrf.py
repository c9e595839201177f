"""HRF family: moldable allocation (the HRF paper, 000_79ccd2f7a7fd721f.txt, sec. 4 and 6).

Targets (docs/reproduction.md, HRF section):

* HRF-T1: the worked example of sec. 4.1 (Table 1, Fig. 3), computed, not swept.
* HRF-F5: ATT, AWT, ART vs alpha at threshold 0.9 (Fig. 5 a-c).
* HRF-F6: the same vs threshold at alpha 1 (Fig. 6 a-c).
* HRF-F7: "combined" ATT, AWT, ART of the 8 policies: the mean over the alpha x
  threshold grid (Fig. 7 a-c, sec. 6.3).

Workload variants are the three loads (sec. 6.1.2: mean inter-arrival about
2000, 1000, 600 s). Each claim of the paper is one small function registered
with :func:`schedsim.claims.claim`, judged by one rule of :mod:`schedsim.verdicts`, in
:mod:`~schedsim.experiments.families.hrf_claims`; the figures the generic ones cannot
draw are in :mod:`~schedsim.experiments.families.hrf_figures`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from schedsim.experiments.family import (
    POSITIVE,
    Family,
    Variant,
    axis_schemas,
    example_function,
    options_schema,
)
from schedsim.experiments.spec import TargetSpec
from schedsim.tables import per_seed, seeds_of

if TYPE_CHECKING:
    import pandas as pd


FAMILY_NAME = "hrf"
T1, F5, F6, F7 = "HRF-T1", "HRF-F5", "HRF-F6", "HRF-F7"


class HrfFamily(Family):
    """Config section ``hrf``: one variant axis, ``load``, whose values are the named
    loads of ``options.loads`` (sec. 6.1.2: mean inter-arrival about 2000, 1000, 600 s)."""

    name = FAMILY_NAME
    claims_module = "schedsim.experiments.families.hrf_claims"
    figures_module = "schedsim.experiments.families.hrf_figures"
    variant_column = "load"
    axes = axis_schemas(load={"type": "string"})
    options = options_schema(("loads",), loads={
        "type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["name", "mean_interarrival"],
            "additionalProperties": False,
            "properties": {"name": {"type": "string", "pattern": "^[A-Za-z0-9.-]+$"},
                           "mean_interarrival": POSITIVE}}})
    policy_families = ("moldable",)

    def variants(self, section: Mapping[str, Any], values: Mapping[str, Any],
                 panel: str) -> list[Variant]:
        loads = section["options"]["loads"]
        wanted = values.get("load")
        if wanted is not None:
            names = set(wanted) if isinstance(wanted, list) else {wanted}
            unknown = names - {load["name"] for load in loads}
            if unknown:
                raise ValueError(f"hrf: unknown load(s) {', '.join(sorted(unknown))}")
            loads = [load for load in loads if load["name"] in names]
        procs = int(section["machine"]["procs"])
        return [Variant(load["name"], {"mean_interarrival": float(load["mean_interarrival"]),
                                       "procs": procs},
                        {"mean_interarrival": float(load["mean_interarrival"])})
                for load in loads]


FAMILY = HrfFamily()


# ----------------------------------------------------------------------------- HRF-T1

# HRF paper, sec. 4.1, Table 1: runtime (s) of J1..J3 on one and on two processors.
TABLE1_RUNTIMES = ((10.0, 5.0), (10.0, 7.0), (10.0, 9.0))
# Fig. 3: processors given to J1, J2, J3 by strategies A, B, C (five in all).
TABLE1_STRATEGIES = {"A": (2, 2, 1), "B": (2, 1, 2), "C": (1, 2, 2)}
TABLE1_PAPER_ATT = {"A": 9.0, "B": 9.67, "C": 11.0}
TABLE1_PROCS = 3
TABLE1_BUDGET = 5  # sec. 5: alpha = 5/3 on m = 3 processors


def table1_schedule(allocation: Sequence[int]) -> list[dict[str, float]]:
    """Schedule the three jobs of Table 1 with ``allocation`` on 3 processors.

    Jobs are taken in order J1, J2, J3 and each starts as soon as its processors
    are free without delaying an earlier one (EASY with exact runtimes), which
    is how Fig. 3 packs them; all arrive at 0.
    """
    from schedsim.engine import simulate
    from schedsim.jobs import Job
    from schedsim.machine import Machine
    from schedsim.policies.registry import make_policy

    jobs = [Job(id=i + 1, submit=0.0, runtime=TABLE1_RUNTIMES[i][procs - 1], procs=procs,
                estimate=TABLE1_RUNTIMES[i][procs - 1]) for i, procs in enumerate(allocation)]
    machine = Machine(TABLE1_PROCS)
    schedule = simulate(jobs, machine, make_policy("easy", {}, machine))
    return [{"job": f"J{job.id}", "procs": procs, "start": start, "end": end,
             "turnaround": end - job.submit}
            for job, start, end, procs in zip(jobs, schedule.start, schedule.end,
                                              schedule.procs, strict=True)]


def table1_att() -> dict[str, float]:
    """Average turnaround time of strategies A, B, C (paper: 9, 9.67, 11 s)."""
    return {name: sum(r["turnaround"] for r in table1_schedule(alloc)) / len(alloc)
            for name, alloc in TABLE1_STRATEGIES.items()}


def hrf_example_allocation(budget_includes_initial: bool = True) -> tuple[int, ...]:
    """HRF's allocation (Algorithm 1) of the Table 1 jobs: budget 5 on 3 processors.

    alpha = 5/3 and threshold = 2/3 (at most two processors a job, sec. 4.1).
    ``budget_includes_initial`` is deviation H1 (docs/deviations-hrf.md): the
    budget counts each job's first processor, which gives strategy A (2, 2, 1);
    the literal Algorithm 1 (alpha*m on top of the first processors) gives (2, 2, 2).
    """
    from schedsim.machine import Machine
    from schedsim.policies.moldable import HrfSettings, hrf_allocation

    settings = HrfSettings(alpha=TABLE1_BUDGET / TABLE1_PROCS, threshold=2 / TABLE1_PROCS,
                           budget_includes_initial=budget_includes_initial)
    return tuple(hrf_allocation(TABLE1_RUNTIMES, Machine(TABLE1_PROCS), settings))


def hrf_example_choice(budget_includes_initial: bool = True) -> str:
    """The strategy (A, B, C) HRF's allocation coincides with, or its sizes."""
    allocation = hrf_example_allocation(budget_includes_initial)
    for name, alloc in TABLE1_STRATEGIES.items():
        if allocation == alloc:
            return name
    return str(allocation)


@example_function("hrf-table1")
def example_table(spec: TargetSpec | None = None) -> pd.DataFrame:
    """The HRF-T1 table: one row per (strategy, job) with its schedule and the ATTs."""
    import pandas as pd

    target = spec.target if spec is not None else T1
    initial = bool((spec.args if spec is not None else {}).get("budget_includes_initial",
                                                               True))
    choice = hrf_example_choice(initial)
    allocation = hrf_example_allocation(initial)
    rows = []
    for name, alloc in TABLE1_STRATEGIES.items():
        schedule = table1_schedule(alloc)
        att = sum(r["turnaround"] for r in schedule) / len(schedule)
        for index, record in enumerate(schedule):
            rows.append({"target": target, "strategy": name, **record,
                         "runtime": record["end"] - record["start"], "ATT": att,
                         "paper_ATT": TABLE1_PAPER_ATT[name],
                         "hrf_procs": allocation[index], "hrf_choice": choice})
    return pd.DataFrame(rows)


def values(tables: Mapping[str, pd.DataFrame], target: str, metric: str,
           **where: Any) -> pd.Series:
    """``metric`` per seed at one point of ``target``."""
    return per_seed(seeds_of(tables, target), metric, where)


# HRF paper, sec. 6.3: combined ATT at middle load (Fig. 7b).
PAPER_MIDDLE_ATT = {"SbmGrdyFcfs": 81444.0, "SchFairFcfs": 30935.0, "SbmFairFcfs": 30400.0,
                    "HRFFcfs": 23617.0, "HRFBf": 13309.0}
