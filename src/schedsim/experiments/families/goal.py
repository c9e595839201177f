"""GOAL family: goal-oriented scheduling on 2-partition machines (the GOAL paper,
001_f96e77119ff6d35b.txt).

Prasitsupparote & Vasupongayya, "Impact of Multi-partition Systems on Goal-oriented
Parallel Computer Job Scheduling Policies". Targets (docs/reproduction.md, GOAL):

* GOAL-F3: idea 1 against idea 2 of the goal-oriented policy, per month, 64+64 nodes;
* GOAL-F4: best-fit FCFS-backfill, best-fit LXF-backfill and the goal-oriented
  policy (idea 2), per month, 64+64 (Fig. 4 a-d, per partition Fig. 5);
* GOAL-T2: jobs and mean node-hours per partition and policy (Table 2), from GOAL-F4;
* GOAL-F6: the three policies on 32+64 (Fig. 6, per partition Fig. 7);
* GOAL-F8: maximum wait against the node limit 2000 ... 128000, January 2004, 32+64;
* GOAL-T1: our months' workload beside the paper's Table 1 (informational);
* GOAL-F3L, GOAL-F4L, GOAL-F6L: the secondary synthetic workload (``lublin-month``,
  one month per seed), where seeds give intervals.

The paper's IA-64 log is not public: the HPC2N log's months June 2003 - March 2004
stand in for it, read month by month (``trace.months``, one replication per month;
:mod:`schedsim.workloads.months`). Claims pair the policies by month (or seed)
(:mod:`~schedsim.experiments.families.goal_claims`); their rules' parameters are
``goal.claims`` in the config. Figures: :mod:`~schedsim.experiments.families.goal_figures`.
Choices the paper leaves open: docs/deviations-goal.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from schedsim.experiments.family import (
    Family,
    Variant,
    axis_schemas,
    derived_function,
    options_schema,
)
from schedsim.experiments.spec import TargetSpec
from schedsim.tables import SEEDS_SUFFIX

if TYPE_CHECKING:
    import pandas as pd


FAMILY_NAME = "goal"
F3, F4, T2, F6, F8, T1 = "GOAL-F3", "GOAL-F4", "GOAL-T2", "GOAL-F6", "GOAL-F8", "GOAL-T1"
F3L, F4L, F6L = "GOAL-F3L", "GOAL-F4L", "GOAL-F6L"
FCFS, LXF, GOAL, IDEA1 = ("bf-fcfs-backfill", "bf-lxf-backfill", "goal-oriented",
                          "goal-oriented-idea1")
PARTITION_METRICS = ("jobs", "node_hours", "max_wait", "mean_wait", "mean_bsld")
METRICS = ("max_wait", "AWT", "BSLD", "long_waits", "jobs",
           *(f"p{p}_{m}" for p in (1, 2) for m in PARTITION_METRICS),
           "month", "month_jobs", "demand", "job_nodehours_mean", "job_nodehours_median",
           "job_nodehours_max", "search_searches", "search_mean_nodes", "search_stopped_share")

# The paper's Table 1 (IA-64, modified): demand, jobs, node-hours per job (mean, median,
# max), by month.
PAPER_TABLE1: dict[str, tuple[float, int, float, float, float]] = {
    "2003-06": (0.80, 2191, 33.78, 0.8, 768.0), "2003-07": (0.74, 1400, 50.12, 1.1, 768.0),
    "2003-08": (0.70, 3221, 20.61, 0.0, 768.0), "2003-09": (0.67, 3057, 20.08, 0.1, 768.0),
    "2003-10": (0.70, 4149, 15.96, 0.3, 768.0), "2003-11": (0.68, 3443, 18.13, 0.7, 768.0),
    "2003-12": (0.73, 3521, 19.73, 1.0, 1151.0), "2004-01": (0.70, 3156, 21.11, 5.1, 1536.0),
    "2004-02": (0.71, 3969, 15.97, 0.3, 1536.0), "2004-03": (0.72, 3466, 19.77, 0.0, 1536.0),
}
# The paper's Table 2: per month, for FCFS-backfill, LXF-backfill, goal-oriented, the jobs
# on partitions 1 and 2, then the mean node-hours per job on partitions 1 and 2.
PAPER_TABLE2: dict[str, tuple[tuple[int, int, float, float], ...]] = {
    "2003-06": ((1268, 923, 29.3, 39.9), (1078, 1113, 34.4, 33.1), (1281, 910, 29.1, 40.3)),
    "2003-07": ((879, 521, 39.2, 68.4), (905, 495, 38.4, 71.5), (795, 605, 42.9, 59.4)),
    "2003-08": ((2034, 1187, 15.9, 28.5), (1677, 1544, 19.8, 21.3), (2199, 1022, 14.9, 32.7)),
    "2003-09": ((1921, 1136, 16.3, 26.3), (2143, 914, 14.0, 34.3), (1607, 1450, 18.6, 21.6)),
    "2003-10": ((2801, 1348, 12.4, 23.1), (3044, 1105, 10.9, 29.8), (1935, 2214, 17.7, 14.3)),
    "2003-11": ((2545, 898, 12.7, 33.3), (2409, 1034, 13.7, 28.2), (1635, 1808, 18.4, 17.8)),
    "2003-12": ((2441, 1080, 14.6, 31.2), (2405, 1116, 14.5, 30.9), (1581, 1940, 21.5, 18.2)),
    "2004-01": ((2241, 915, 16.8, 31.4), (2133, 1023, 17.1, 29.2), (1692, 1464, 21.4, 20.6)),
    "2004-02": ((2810, 1159, 11.4, 26.8), (2689, 1280, 11.8, 24.5), (1902, 2067, 16.3, 15.5)),
    "2004-03": ((2409, 1057, 14.5, 31.6), (2399, 1067, 14.8, 30.9), (1541, 1925, 21.6, 18.2)),
}
TABLE2_POLICIES = (FCFS, LXF, GOAL)


def paper_p1_share(policy: str) -> float:
    """The paper's share of jobs on partition 1, mean over its ten months (Table 2)."""
    column = TABLE2_POLICIES.index(policy)
    shares = [row[column][0] / (row[column][0] + row[column][1])
              for row in PAPER_TABLE2.values()]
    return sum(shares) / len(shares)


# ----------------------------------------------------------------------------- family


class GoalFamily(Family):
    """Config section ``goal``. Real-log targets read ``trace.months``; the synthetic
    targets use the section's workload (``lublin-month``), one variant named after the
    model, one month per seed. ``machine:`` of a target sets its partitions (64+64 or
    32+64)."""

    name = FAMILY_NAME
    variant_column = "workload"
    metrics = METRICS
    measure = "schedsim.experiments.families.goal_measure"
    claims_module = "schedsim.experiments.families.goal_claims"
    figures_module = "schedsim.experiments.families.goal_figures"
    axes = axis_schemas()
    options = options_schema()
    policy_families = ("goal",)

    def variants(self, section: Mapping[str, Any], values: Mapping[str, Any],
                 panel: str) -> list[Variant]:
        return [Variant(str(section["workload"]["model"]), {}, {"panel": panel})]


FAMILY = GoalFamily()


# ----------------------------------------------------------------------------- helpers


def show(policy: str, spec: TargetSpec | None = None) -> str:
    labels = {FCFS: "FCFS-backfill", LXF: "LXF-backfill", GOAL: "Tradeoff(Tw:avgX) idea 2",
              IDEA1: "Tradeoff(Tw:avgX) idea 1"}
    return spec.show(policy) if spec and policy in spec.policy_labels else labels.get(policy,
                                                                                        policy)


def month_label(value: float) -> str:
    """200306.0 -> '2003-06' (the ``month`` column of a month's rows)."""
    number = int(value)
    return f"{number // 100:04d}-{number % 100:02d}"


F4_METRICS = ("max_wait", "AWT", "BSLD", "long_waits")  # Fig. 4's (claims and figure)


# ----------------------------------------------------------------------------- tables


@derived_function("goal-workload-months")
def workload_months(spec: TargetSpec, tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """GOAL-T1: per month, our workload (jobs, demand, node-hours per job) beside Table 1."""
    import pandas as pd

    source = spec.sources[0]
    seeds = tables[f"{source}{SEEDS_SUFFIX}"]
    first = seeds[seeds["policy"] == seeds["policy"].iloc[0]].sort_values("seed")
    rows = []
    for _, row in first.iterrows():
        month = month_label(row["month"])
        paper = PAPER_TABLE1.get(month, (math.nan,) * 5)
        rows.append({"month": month, "jobs": int(row["month_jobs"]), "demand": row["demand"],
                     "nodehours_mean": row["job_nodehours_mean"],
                     "nodehours_median": row["job_nodehours_median"],
                     "nodehours_max": row["job_nodehours_max"],
                     "paper_jobs": paper[1], "paper_demand": paper[0],
                     "paper_nodehours_mean": paper[2], "paper_nodehours_median": paper[3],
                     "paper_nodehours_max": paper[4]})
    return pd.DataFrame(rows)


@derived_function("goal-partitions")
def partitions(spec: TargetSpec, tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """GOAL-T2: per month and policy, jobs and mean node-hours per partition, beside the
    paper's Table 2 (its IA-64 months)."""
    import pandas as pd

    source = spec.sources[0]
    seeds = tables[f"{source}{SEEDS_SUFFIX}"].sort_values(["seed"], kind="stable")
    rows = []
    for policy in [p for p in TABLE2_POLICIES if p in set(seeds["policy"])]:
        column = TABLE2_POLICIES.index(policy)
        for _, row in seeds[seeds["policy"] == policy].iterrows():
            month = month_label(row["month"])
            paper = PAPER_TABLE2.get(month, ((math.nan,) * 4,) * 3)[column]
            rows.append({"policy": policy, "month": month, "p1_jobs": int(row["p1_jobs"]),
                         "p2_jobs": int(row["p2_jobs"]),
                         "p1_share": row["p1_jobs"] / row["jobs"],
                         "p1_node_hours": row["p1_node_hours"],
                         "p2_node_hours": row["p2_node_hours"],
                         "paper_p1_jobs": paper[0], "paper_p2_jobs": paper[1],
                         "paper_p1_share": paper[0] / (paper[0] + paper[1]),
                         "paper_p1_node_hours": paper[2], "paper_p2_node_hours": paper[3]})
    return pd.DataFrame(rows)
