"""Hand-computed FCFS, EASY and conservative schedules.

Each case lists jobs as (submit, runtime, processors[, estimate]) and the start
times worked out by hand from the definitions (Lifka 1995; Mu'alem & Feitelson 2001) and
the engine's equal-time order (completions, arrivals, one scheduling call).
"""

from __future__ import annotations

import pytest

from helpers import starts

# A case AccaSim's EASY got wrong: correct EASY starts J2 at 100, J3 at 200.
ACCASIM = [(0, 100, 6), (1, 100, 10), (2, 1000, 4)]

FCFS_CASES = {
    "two fit, third waits": (10, [(0, 10, 5), (0, 10, 5), (0, 10, 5)], [0, 0, 10]),
    "blocked head blocks all": (10, ACCASIM, [0, 100, 200]),
    "completion before arrival at same instant": (4, [(0, 10, 4), (10, 5, 4)], [0, 10]),
    "two completions at once free enough": (4, [(0, 10, 2), (0, 10, 2), (5, 5, 4)],
                                            [0, 0, 10]),
    "equal submit times in file order": (4, [(0, 10, 3), (0, 10, 2), (0, 10, 1)],
                                         [0, 10, 10]),
    "idle machine starts at submit": (8, [(5, 3, 8), (20, 3, 8)], [5, 20]),
}

EASY_CASES = {
    "AccaSim counterexample": (10, ACCASIM, [0, 100, 200]),
    "backfill ending at the shadow time": (10, [(0, 100, 6), (0, 50, 10), (0, 100, 4)],
                                           [0, 100, 0]),
    "backfill into extra processors": (10, [(0, 100, 6), (0, 50, 8), (0, 500, 2)],
                                       [0, 100, 0]),
    "no backfill beyond extra": (10, [(0, 100, 6), (0, 50, 8), (0, 500, 3)], [0, 100, 150]),
    "early end lets the head start early": (10, [(0, 50, 6, 100), (0, 50, 10), (0, 80, 4, 100)],
                                            [0, 80, 0]),
    "jobs ending together all count as extra": (
        12, [(0, 100, 5), (0, 100, 5), (0, 10, 7), (0, 500, 2)], [0, 0, 100, 0]),
    "backfill may delay the second queued job": (
        10, [(0, 100, 8), (0, 100, 4), (0, 100, 6), (0, 200, 2)], [0, 100, 200, 0]),
}

CONSERVATIVE_CASES = {
    "AccaSim counterexample": (10, ACCASIM, [0, 100, 200]),
    "backfill that delays nobody": (10, [(0, 100, 6), (0, 50, 8), (0, 500, 2)], [0, 100, 0]),
    "no backfill that would delay the second queued job": (
        10, [(0, 100, 8), (0, 100, 4), (0, 100, 6), (0, 200, 2)], [0, 100, 100, 200]),
    "early end compresses the reservation": (10, [(0, 50, 10, 100), (0, 100, 10)], [0, 50]),
    "completion before arrival at same instant": (4, [(0, 10, 4), (10, 5, 4)], [0, 10]),
    "short job fills the hole before a reservation": (
        10, [(0, 100, 5), (0, 100, 10), (0, 50, 5)], [0, 100, 0]),
}


@pytest.mark.parametrize("case", list(FCFS_CASES))
def test_fcfs_known(case: str) -> None:
    procs, jobs, expected = FCFS_CASES[case]
    assert starts("fcfs", procs, jobs) == expected


@pytest.mark.parametrize("case", list(EASY_CASES))
def test_easy_known(case: str) -> None:
    procs, jobs, expected = EASY_CASES[case]
    assert starts("easy", procs, jobs) == expected


@pytest.mark.parametrize("case", list(CONSERVATIVE_CASES))
def test_conservative_known(case: str) -> None:
    procs, jobs, expected = CONSERVATIVE_CASES[case]
    assert starts("conservative", procs, jobs) == expected


def test_easy_and_conservative_differ_where_expected() -> None:
    _, jobs, _ = EASY_CASES["backfill may delay the second queued job"]
    assert starts("easy", 10, jobs) != starts("conservative", 10, jobs)
