"""The SLACK family: slack-based fair backfilling inside Scojo-PECT time slicing.

W. Jin, "Backfilling with Fairness and Slack for Parallel Job Scheduling", MSc thesis,
University of Windsor, 2009 (the thesis). 128 processors, 10,000 typeless ``lublin99``
jobs per workload, the thesis's alpha read as the arrival gamma's shape (``aarr``, with
``arar`` 1): 10.05 (W4, very heavy), 10.23 (W1, high), 10.33 (W2, normal), 10.43 and
10.73 (W3, light); eleven seeds (sec. 5.1, Table 2).

Policies: ``scojo-conservative`` (the thesis's "original" Scojo-PECT), ``scojo-slack``
(goals G1 and G2, the sweep parameter ``goal``), and the same ideas on a plain machine:
``conservative`` and ``slack-backfill``. Every run records the relative response time
(response / max(run time, tau), tau 10 s and 60 s) of long, medium, short and all jobs,
utilization, and for the slack policies sec. 5.4's unfair and preferential counts.

Targets: SLACK-F6 (the slack factor, eq. 5), SLACK-F9 (W1, both goals), SLACK-F11
(lookahead on W1 and W2), SLACK-F15 (SLACK_UP on W1), SLACK-T4 (utilization per
workload) and SLACK-F17 (every workload). Claims:
:mod:`~schedsim.experiments.families.slack_claims`; figures:
:mod:`~schedsim.experiments.families.slack_figures`. Open points:
docs/deviations-slack.md; results: docs/results-slack.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from schedsim.experiments.families.slack_measure import CLASSES, TAUS, WORKLOAD_SHARES
from schedsim.experiments.family import (
    POSITIVE,
    Family,
    Variant,
    axis_schemas,
    derived_function,
    example_function,
    options_schema,
)
from schedsim.experiments.spec import TargetSpec, fmt_value
from schedsim.policies.slack import SlackSettings, slack_factor
from schedsim.tables import SEEDS_SUFFIX, per_seed, seeds_of

if TYPE_CHECKING:
    import pandas as pd


FAMILY_NAME = "slack"
F6, F9, F11, F15, T4, F17 = ("SLACK-F6", "SLACK-F9", "SLACK-F11", "SLACK-F15", "SLACK-T4",
                             "SLACK-F17")
F23 = "SLACK-F23"
ORIGINAL, SLACK, PLAIN, PLAIN_SLACK = ("scojo-conservative", "scojo-slack", "conservative",
                                       "slack-backfill")
METRICS = (*(f"{prefix}_{c}" for prefix in TAUS for c in CLASSES), "utilization", "AWT",
           "ATT", "unfair", "preferential", "unfair_mean_s", "preferential_mean_s",
           "nodes_per_call", "bound_hits", "unfair_short", "unfair_medium", "unfair_long",
           "past_bound",
           *WORKLOAD_SHARES)
WORKLOAD_NAMES = {10.05: "W4", 10.23: "W1", 10.33: "W2", 10.43: "W3", 10.73: "W3"}
W1, W2 = 10.23, 10.33


class SlackFamily(Family):
    """Config section ``slack``: variant axis ``aarr`` (default ``options.aarr``), one
    ``lublin99`` workload each (``workload.params`` give typed=false and arar)."""

    name = FAMILY_NAME
    variant_column = "workload"
    metrics = METRICS
    measure = "schedsim.experiments.families.slack_measure"
    claims_module = "schedsim.experiments.families.slack_claims"
    figures_module = "schedsim.experiments.families.slack_figures"
    axes = axis_schemas(aarr=POSITIVE)
    options = options_schema(aarr=POSITIVE)
    policy_families = ("slack", "backfill")

    def variants(self, section: Mapping[str, Any], values: Mapping[str, Any],
                 panel: str) -> list[Variant]:
        given = values.get("aarr", (section.get("options") or {}).get("aarr", W1))
        out = []
        for aarr in given if isinstance(given, list | tuple) else [given]:
            value = float(aarr)
            out.append(Variant(f"aarr{fmt_value(value)}", {"aarr": value},
                               {"panel": panel, "aarr": value,
                                "load_name": WORKLOAD_NAMES.get(value, "")}))
        return out


FAMILY = SlackFamily()


# ----------------------------------------------------------------------------- SLACK-F6


FIG6_WAITS = (5_000.0, 65_000.0, 125_000.0)
FIG6_PAPER = (1.50, 1.21, 1.20)  # the text of sec. 4.3.1 (Fig. 6): "almost 1.50", 1.21, 1.20


@example_function("slack-factor")
def slack_factor_table(spec: TargetSpec | None = None) -> pd.DataFrame:
    """F_slack (eq. 5, Table 3's constants) over predicted waits 0..150,000 s, with the
    thesis's three values beside ours."""
    import pandas as pd

    settings = SlackSettings()
    waits = sorted({*np.arange(0.0, 150_001.0, 2_500.0).tolist(), *FIG6_WAITS})
    paper = dict(zip(FIG6_WAITS, FIG6_PAPER, strict=True))
    return pd.DataFrame({"wait_s": waits,
                         "slack_factor": [slack_factor(w, settings) for w in waits],
                         "paper": [paper.get(w, math.nan) for w in waits]})


# ----------------------------------------------------------------------------- helpers


def rr(settings: Mapping[str, Any], klass: str) -> str:
    """The relative-response column of a class under the claims' tau (10 s or 60 s)."""
    return f"{'RR60' if float(settings.get('tau', 10)) == 60 else 'RR'}_{klass}"


def where(policy: str, aarr: float, goal: str | None = None,
          **params: float) -> dict[str, Any]:
    found: dict[str, Any] = {"policy": policy, "aarr": aarr, **params}
    if goal is not None:
        found["goal"] = goal
    return found


def values(tables: Mapping[str, pd.DataFrame], target: str, metric: str,
           **keys: Any) -> pd.Series:
    return per_seed(seeds_of(tables, target), metric, where(**keys))


def improvement(tables: Mapping[str, pd.DataFrame], target: str, metric: str, aarr: float,
                goal: str, new: str = SLACK, base: str = ORIGINAL) -> pd.Series:
    """Per seed: % improvement of ``new`` (with ``goal``) over ``base`` in ``metric``."""
    ours = values(tables, target, metric, policy=new, aarr=aarr, goal=goal)
    baseline = values(tables, target, metric, policy=base, aarr=aarr)
    return (100.0 * (baseline - ours) / baseline).dropna()


def aarrs(tables: Mapping[str, pd.DataFrame], target: str) -> list[float]:
    return sorted({float(v) for v in seeds_of(tables, target)["aarr"]})


def goals_of(tables: Mapping[str, pd.DataFrame], target: str) -> list[str]:
    """The goals the target ran (G1, G2, in that order)."""
    found = set(seeds_of(tables, target).get("goal", []))
    return [goal for goal in ("G1", "G2") if goal in found]


PAPER_F9 = {"G1": {"long": 10.49, "medium": 7.89, "all": 6.92},
            "G2": {"long": 9.73, "medium": 11.99, "all": 8.13}}


PAPER_T4 = {10.05: 85.29, 10.33: 76.43, 10.43: 71.90, 10.73: 63.29}


# Thesis, sec. 5.4 (Figs. 17-22): % improvement of RR (long, medium, all) per workload, goal.
PAPER_F17 = {(10.43, "G1"): {"long": 5.32, "medium": 4.7, "all": 3.74},
             (10.43, "G2"): {"long": 3.31, "medium": 7.9, "all": 4.51},
             (10.73, "G1"): {"long": 3.12, "medium": 7.32, "all": 3.78},
             (10.73, "G2"): {"long": 4.69, "medium": 8.76, "all": 4.76},
             (10.05, "G1"): {"long": 8.17, "medium": 7.59, "all": 5.8},
             (10.05, "G2"): {"long": 7.48, "medium": 9.86, "all": 5.05}}


# ----------------------------------------------------------------------------- SLACK-F23


@derived_function("slack-improvement")
def improvement_table(spec: TargetSpec, tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Figs. 23-24: per goal, workload and class, the mean % improvement of RR (tau 10 s)
    of Scojo-PECT with slack over the original, with its 95% interval over the seeds."""
    import pandas as pd

    from schedsim.stats import mean_ci

    source = spec.sources[0]
    view = {source: tables[source], f"{source}{SEEDS_SUFFIX}": tables[f"{source}{SEEDS_SUFFIX}"]}
    rows = []
    for goal in goals_of(view, source):
        for aarr in aarrs(view, source):
            for klass in ("long", "medium", "all"):
                found = mean_ci(improvement(view, source, f"RR_{klass}", aarr, goal))
                rows.append({"goal": goal, "aarr": aarr,
                             "workload": WORKLOAD_NAMES.get(aarr, ""), "class": klass,
                             "improvement_mean": found.mean, "improvement_ci_low": found.low,
                             "improvement_ci_high": found.high, "n_seeds": found.n})
    return pd.DataFrame(rows)
