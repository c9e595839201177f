"""Three-valued verdicts on paired per-replication numbers (schedsim.verdicts).

Every series is built from a fixed base workload per replication plus a chosen
offset plus a small zero-mean jitter, so whether a paired interval excludes 0
(and on which side) is known by construction: an offset of 5 is always
significant, an offset of 0 or 0.2 never is.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedsim.stats import mean_ci
from schedsim.verdicts import (
    CONTRADICTED,
    INCONCLUSIVE,
    INFORMATIONAL,
    NOT_CHECKABLE,
    REPRODUCED,
    VERDICTS,
    Judgement,
    Pair,
    at_or_below,
    beats,
    best_of,
    close,
    combine,
    flattens,
    formula,
    informational,
    magnitude,
    not_checkable,
    ordering,
    paired,
    trend,
)

BASE = np.array([100.0, 120.0, 90.0, 110.0, 105.0, 95.0, 130.0, 80.0, 100.0, 115.0])
JITTER = np.array([1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 1.5, -1.5, 0.3, -0.3])  # mean 0


def series(values: np.ndarray | list[float], start: int = 0) -> pd.Series:
    """Values indexed by replication id ``start, start + 1, ...``."""
    return pd.Series(values, index=range(start, start + len(values)), dtype=float)


def noisy(offset: float, shift: int = 0, n: int = 10) -> pd.Series:
    """Base workload plus ``offset`` plus the jitter rotated by ``shift``."""
    return series((BASE + offset + np.roll(JITTER, shift))[:n])


def pair(label: str, delta: float, n: int = 10) -> Pair:
    """A - B has mean ``delta`` (plus jitter of mean 0 when n = 10)."""
    return Pair(label, series((BASE + delta + JITTER)[:n]), series(BASE[:n]))


def policies(offsets: Mapping[str, float], n: int = 10) -> dict[str, pd.Series]:
    return {name: noisy(offset, shift, n) for shift, (name, offset) in enumerate(offsets.items())}


def curve(offsets: list[float], xs: list[float] | None = None,
          n: int = 10) -> list[tuple[float, pd.Series]]:
    xs = xs if xs is not None else [float(i + 1) for i in range(len(offsets))]
    return [(x, noisy(offset, i, n)) for i, (x, offset) in enumerate(zip(xs, offsets, strict=True))]


def test_construction_is_as_described() -> None:
    assert JITTER.mean() == pytest.approx(0.0)
    assert paired(noisy(5.0, 3), noisy(0.0, 0)).low > 0
    assert paired(noisy(0.2, 3), noisy(0.0, 0)).low < 0


# --- Judgement and the constants ------------------------------------------------------------


def test_verdict_constants() -> None:
    assert VERDICTS == ("reproduced", "contradicted", "inconclusive", "informational",
                        "not checkable")


@pytest.mark.parametrize("verdict", VERDICTS)
def test_judgement_accepts_every_verdict(verdict: str) -> None:
    assert Judgement(verdict, "ours", "rule").note == ""


def test_judgement_rejects_an_unknown_verdict() -> None:
    with pytest.raises(ValueError, match="not reproduced"):
        Judgement("not reproduced", "ours", "rule")


# --- paired -------------------------------------------------------------------------------


def test_paired_uses_only_common_replications() -> None:
    a = series([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0])  # ids 0..9
    b = series([0.0] * 5 + [1000.0] * 5, start=5)  # ids 5..14; 1000s unmatched
    interval = paired(a, b)
    assert interval.n == 5
    assert interval.mean == pytest.approx(8.0)  # 6..10 minus 0
    assert interval == mean_ci([6.0, 7.0, 8.0, 9.0, 10.0])


def test_paired_drops_nan_and_accepts_lists() -> None:
    assert paired(series([1.0, math.nan, 5.0]), series([0.0, 0.0, 1.0])).n == 2
    assert paired([3.0, 5.0], [1.0, 1.0]).mean == pytest.approx(3.0)


def test_paired_one_replication_has_no_interval() -> None:
    interval = paired(series([3.0]), series([1.0]))
    assert interval.mean == 2.0 and math.isnan(interval.half_width)


def test_paired_rejects_repeated_replication_ids() -> None:
    with pytest.raises(ValueError, match="one entry per replication"):
        paired(pd.Series([1.0, 2.0], index=[0, 0]), series([1.0]))


# --- beats --------------------------------------------------------------------------------


def test_beats_reproduced_when_better_everywhere() -> None:
    judgement = beats([pair("light", -5.0), pair("heavy", -8.0)])
    assert judgement.verdict == REPRODUCED
    assert judgement.ours.startswith("light: diff -5 [")
    assert "; heavy: diff -8 [" in judgement.ours
    assert judgement.rule == "beats(lower is better, 95% paired CI)"
    assert "2 of 2" in judgement.note


@pytest.mark.parametrize(("deltas", "verdict"), [
    ([-5.0, -5.0, 0.0, 0.0], REPRODUCED),     # 2 of 4: exactly half
    ([-5.0, 0.0, 0.0, 0.0], INCONCLUSIVE),    # 1 of 4
    ([-5.0, -5.0, 0.0], REPRODUCED),          # 2 of 3
    ([-5.0, 0.0, 0.0], INCONCLUSIVE),         # 1 of 3 < 1.5
    ([-5.0], REPRODUCED),
    ([0.0], INCONCLUSIVE),
])
def test_beats_half_of_the_points_boundary(deltas: list[float], verdict: str) -> None:
    pairs = [pair(f"p{i}", delta) for i, delta in enumerate(deltas)]
    assert beats(pairs).verdict == verdict


def test_beats_contradicted_when_significantly_worse_somewhere() -> None:
    judgement = beats([pair("light", -5.0), pair("mid", -5.0), pair("heavy", 5.0)])
    assert judgement.verdict == CONTRADICTED
    assert "significantly worse at heavy" in judgement.note


def test_beats_inconclusive_when_nothing_is_significant() -> None:
    judgement = beats([pair("light", 0.0), pair("heavy", 0.2)])
    assert judgement.verdict == INCONCLUSIVE
    assert "0 of 2" in judgement.note


@pytest.mark.parametrize(("delta", "verdict"), [
    (5.0, REPRODUCED), (-5.0, CONTRADICTED), (0.0, INCONCLUSIVE)])
def test_beats_higher_is_better(delta: float, verdict: str) -> None:
    judgement = beats([pair("light", delta), pair("heavy", delta)], lower_is_better=False)
    assert judgement.verdict == verdict
    assert "higher is better" in judgement.rule


def test_beats_with_one_replication_is_inconclusive() -> None:
    judgement = beats([pair("light", -50.0, n=1), pair("heavy", 50.0, n=1)])
    assert judgement.verdict == INCONCLUSIVE
    assert "n=1, no CI" in judgement.ours


def test_beats_level_is_in_the_rule_and_the_interval() -> None:
    # Mean -1, spread ~1.3 over 10 replications: significant at 80%, not at 99.9%.
    assert beats([pair("p", -1.0)], level=0.8).verdict == REPRODUCED
    judgement = beats([pair("p", -1.0)], level=0.999)
    assert judgement.verdict == INCONCLUSIVE and "99.9%" in judgement.rule


def test_beats_without_points_is_not_checkable() -> None:
    assert beats([]).verdict == NOT_CHECKABLE


@st.composite
def significant_points(draw: st.DrawFn) -> list[Pair]:
    pairs = []
    for index in range(draw(st.integers(1, 4))):
        n = draw(st.integers(3, 10))
        base = draw(st.lists(st.floats(0, 1000), min_size=n, max_size=n))
        jitter = draw(st.lists(st.floats(-1, 1), min_size=n, max_size=n))
        delta = draw(st.floats(5, 50)) * draw(st.sampled_from([-1, 1]))
        b = series(base)
        pairs.append(Pair(f"p{index}", b + delta + series(jitter), b))
    return pairs


@settings(max_examples=60, deadline=None)
@given(significant_points(), st.booleans())
def test_beats_is_antisymmetric_when_every_point_is_significant(
        pairs: list[Pair], lower_is_better: bool) -> None:
    intervals = [paired(p.a, p.b) for p in pairs]
    assert all(iv.low > 0 or iv.high < 0 for iv in intervals)  # by construction
    forward = beats(pairs, lower_is_better)
    backward = beats([Pair(p.label, p.b, p.a) for p in pairs], lower_is_better)
    assert forward.verdict in (REPRODUCED, CONTRADICTED)
    if forward.verdict == REPRODUCED:
        assert backward.verdict == CONTRADICTED
    else:
        assert backward.verdict in (REPRODUCED, CONTRADICTED)


# --- at_or_below --------------------------------------------------------------------------


def wide_pair(label: str, delta: float) -> Pair:
    """A - B has mean ``delta`` and an interval of about +/-19 (twenty times the jitter)."""
    return Pair(label, series(BASE + delta + 20 * JITTER), series(BASE))


@pytest.mark.parametrize(("deltas", "lower_is_better", "verdict"), [
    ([0.0, -5.0], True, REPRODUCED),        # upper ends about +0.9 and -4.1, bound +10.45
    ([5.0, 0.0], True, REPRODUCED),         # significantly worse, but by less than 10%
    ([0.0, 20.0], True, CONTRADICTED),      # [19.1, 20.9] entirely above +10.45
    ([0.0, 10.0], True, INCONCLUSIVE),      # [9.1, 10.9] straddles the bound
    ([0.0, 5.0], False, REPRODUCED),        # higher is better: the mirror image
    ([0.0, -5.0], False, REPRODUCED),
    ([0.0, -20.0], False, CONTRADICTED),
    ([0.0, -10.0], False, INCONCLUSIVE),
])
def test_at_or_below(deltas: list[float], lower_is_better: bool, verdict: str) -> None:
    pairs = [pair(label, delta) for label, delta in zip(("light", "heavy"), deltas, strict=True)]
    judgement = at_or_below(pairs, 0.1, lower_is_better)
    assert judgement.verdict == verdict
    assert judgement.ours.count("10.45") == 2
    if verdict == CONTRADICTED:
        assert judgement.note == "within the bound at 1 of 2 points; entirely beyond it at heavy"
    if verdict == INCONCLUSIVE:
        assert judgement.note == "within the bound at 1 of 2 points"


def test_at_or_below_rule_names_the_bound() -> None:
    assert at_or_below([pair("p", 0.0)], 0.1).rule == (
        "at_or_below(A - B <= +0.1 x |mean of B|, lower is better, 95% paired CI)")
    assert at_or_below([pair("p", 0.0)], 0.1, lower_is_better=False).rule == (
        "at_or_below(A - B >= -0.1 x |mean of B|, higher is better, 95% paired CI)")


def test_at_or_below_absence_of_evidence_is_inconclusive() -> None:
    """Nowhere significantly worse is not support: a wide interval across the bound."""
    wide = wide_pair("light", 0.0)
    assert paired(wide.a, wide.b).high > 10.45 and paired(wide.a, wide.b).low < 0
    assert at_or_below([wide], 0.1).verdict == INCONCLUSIVE
    # With no tolerance a tie is inconclusive and only a significant gain is support.
    assert at_or_below([pair("p", 0.0)], 0.0).verdict == INCONCLUSIVE
    assert at_or_below([pair("p", -5.0)], 0.0).verdict == REPRODUCED
    assert at_or_below([pair("p", 5.0)], 0.0).verdict == CONTRADICTED


def test_at_or_below_with_one_replication_is_inconclusive() -> None:
    """No interval: neither within the bound nor beyond it."""
    assert at_or_below([pair("light", 50.0, n=1)], 0.1).verdict == INCONCLUSIVE
    assert at_or_below([pair("light", -50.0, n=1)], 0.1).verdict == INCONCLUSIVE


def test_at_or_below_bound_uses_the_common_replications_of_b() -> None:
    p = pair("light", 10.0)
    b = pd.concat([p.b, pd.Series([1e6], index=[10])])  # unmatched, would widen the bound
    assert at_or_below([Pair("light", p.a, b)], 0.1).verdict == INCONCLUSIVE


def test_at_or_below_rejects_a_negative_tolerance_and_needs_points() -> None:
    with pytest.raises(ValueError):
        at_or_below([pair("light", 0.0)], -0.1)
    assert at_or_below([], 0.1).verdict == NOT_CHECKABLE


# --- close --------------------------------------------------------------------------------


@pytest.mark.parametrize(("delta", "verdict"), [
    (0.0, REPRODUCED),      # CI about +/-0.93, bound 10.45
    (20.0, CONTRADICTED),   # entirely above the bound
    (-20.0, CONTRADICTED),  # entirely below minus the bound
    (10.0, INCONCLUSIVE),   # CI straddles the bound
])
def test_close(delta: float, verdict: str) -> None:
    judgement = close([pair("light", 0.0), pair("heavy", delta)], tol=0.1)
    assert judgement.verdict == verdict
    assert "bound +/-10.45" in judgement.ours
    if verdict == CONTRADICTED:
        assert "entirely outside at heavy" in judgement.note


def test_close_with_one_replication_is_inconclusive() -> None:
    assert close([pair("light", 0.0, n=1)], tol=0.1).verdict == INCONCLUSIVE


def test_close_bound_uses_the_common_replications_of_b() -> None:
    p = pair("light", 0.0)
    b = pd.concat([p.b, pd.Series([1e6], index=[10])])  # unmatched, would widen the bound
    judgement = close([Pair("light", p.a, b), pair("heavy", 20.0)], tol=0.1)
    assert judgement.verdict == CONTRADICTED
    assert judgement.ours.count("bound +/-10.45") == 2


def test_close_rejects_a_negative_tolerance_and_needs_points() -> None:
    with pytest.raises(ValueError):
        close([pair("light", 0.0)], tol=-0.1)
    assert close([], tol=0.1).verdict == NOT_CHECKABLE


# --- best_of ------------------------------------------------------------------------------


def test_best_of_reproduced_and_names_the_best() -> None:
    points = [("light", policies({"easy": -5.0, "fcfs": 0.0, "sjf": 3.0})),
              ("heavy", policies({"easy": -9.0, "fcfs": 2.0, "sjf": 0.0}))]
    judgement = best_of(points, "easy")
    assert judgement.verdict == REPRODUCED
    assert judgement.ours.startswith("light: best easy (")
    assert "easy - fcfs -5 [" in judgement.ours
    assert "heavy: best easy" in judgement.ours and "easy - sjf -9 [" in judgement.ours


@pytest.mark.parametrize(("winner_offsets", "verdict"), [
    ([-5.0, -0.2], REPRODUCED),          # significant at 1 of 2: half
    ([-5.0, -0.2, -0.2], INCONCLUSIVE),  # significant at 1 of 3
    ([-5.0, -5.0, -0.2], REPRODUCED),    # 2 of 3
])
def test_best_of_half_of_the_points_boundary(winner_offsets: list[float], verdict: str) -> None:
    points = [(f"p{i}", policies({"easy": offset, "fcfs": 0.0, "sjf": 4.0}))
              for i, offset in enumerate(winner_offsets)]
    assert best_of(points, "easy").verdict == verdict


def test_best_of_inconclusive_when_not_best_everywhere() -> None:
    points = [("light", policies({"easy": -5.0, "fcfs": 0.0})),
              ("heavy", policies({"easy": 0.2, "fcfs": 0.0}))]  # worse mean, not significantly
    judgement = best_of(points, "easy")
    assert judgement.verdict == INCONCLUSIVE
    assert "(not at heavy)" in judgement.note
    assert "heavy: best fcfs" in judgement.ours


def test_best_of_contradicted_when_another_is_significantly_better() -> None:
    points = [("light", policies({"easy": -5.0, "fcfs": 0.0, "sjf": 2.0})),
              ("heavy", policies({"easy": 0.0, "fcfs": -5.0, "sjf": -4.0}))]
    judgement = best_of(points, "easy")
    assert judgement.verdict == CONTRADICTED
    assert "significantly better than easy: fcfs at heavy, sjf at heavy" in judgement.note


@pytest.mark.parametrize(("offset", "verdict"), [
    (5.0, REPRODUCED), (-5.0, CONTRADICTED), (0.2, INCONCLUSIVE)])
def test_best_of_higher_is_better(offset: float, verdict: str) -> None:
    points = [("light", policies({"easy": offset, "fcfs": 0.0})),
              ("heavy", policies({"easy": offset, "fcfs": 0.0}))]
    judgement = best_of(points, "easy", lower_is_better=False)
    assert judgement.verdict == verdict
    assert "higher is better" in judgement.rule


def test_best_of_with_one_replication_is_inconclusive() -> None:
    points = [("light", policies({"easy": -50.0, "fcfs": 0.0}, n=1))]
    judgement = best_of(points, "easy")
    assert judgement.verdict == INCONCLUSIVE
    assert "light: best easy" in judgement.ours


def test_best_of_needs_the_winner_and_a_rival() -> None:
    with pytest.raises(ValueError, match="no values for 'easy'"):
        best_of([("light", policies({"fcfs": 0.0, "sjf": 1.0}))], "easy")
    with pytest.raises(ValueError, match="other than 'easy'"):
        best_of([("light", policies({"easy": 0.0}))], "easy")
    assert best_of([], "easy").verdict == NOT_CHECKABLE


# --- ordering -----------------------------------------------------------------------------


POINTS = [("light", policies({"easy": -10.0, "sjf": -5.0, "fcfs": 0.0, "lifo": -4.8})),
          ("heavy", policies({"easy": -12.0, "sjf": -6.0, "fcfs": 0.0, "lifo": -5.8}))]


def test_ordering_reproduced() -> None:
    judgement = ordering(POINTS, ["easy", "sjf", "fcfs"])
    assert judgement.verdict == REPRODUCED
    assert judgement.note.startswith("easy > sjf: reproduced (")
    assert "sjf > fcfs: reproduced (" in judgement.note
    assert judgement.ours.startswith("easy > sjf: (light: diff -5 [")


def test_ordering_with_one_reversed_pair_is_contradicted() -> None:
    judgement = ordering(POINTS, ["easy", "fcfs", "sjf"])
    assert judgement.verdict == CONTRADICTED
    assert "easy > fcfs: reproduced" in judgement.note
    assert "fcfs > sjf: contradicted (" in judgement.note


def test_ordering_with_an_undecided_pair_is_inconclusive() -> None:
    judgement = ordering(POINTS, ["easy", "sjf", "lifo", "fcfs"])  # sjf vs lifo: 0.2 apart
    assert judgement.verdict == INCONCLUSIVE
    assert "sjf > lifo: inconclusive" in judgement.note


def test_ordering_higher_is_better() -> None:
    assert ordering(POINTS, ["fcfs", "sjf", "easy"], lower_is_better=False).verdict == REPRODUCED
    assert ordering(POINTS, ["easy", "sjf"], lower_is_better=False).verdict == CONTRADICTED


def test_ordering_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="at least two"):
        ordering(POINTS, ["easy"])
    with pytest.raises(ValueError, match="no values for 'cbf'"):
        ordering(POINTS, ["easy", "cbf"])
    with pytest.raises(ValueError, match="no paper value for fcfs"):
        ordering(POINTS, ["easy", "fcfs"], paper_values={"easy": 1.0}, tol=0.05)
    with pytest.raises(ValueError, match="tol"):
        ordering(POINTS, ["easy", "fcfs"], tol=-0.1)
    assert ordering([], ["easy", "fcfs"]).verdict == NOT_CHECKABLE


# The paper's values: sjf and lifo 2.4% apart (a near-tie within 5%), the others far apart.
PAPER = {"easy": 10.0, "sjf": 20.0, "lifo": 20.5, "fcfs": 40.0}


def test_ordering_near_tie_is_a_close() -> None:
    judgement = ordering(POINTS, ["easy", "sjf", "lifo", "fcfs"], paper_values=PAPER, tol=0.05)
    assert judgement.verdict == REPRODUCED  # sjf - lifo = -0.2, inside +-5% of about 100
    assert "sjf ~ lifo: reproduced (inside the bound at 2 of 2 points)" in judgement.note
    assert "easy > sjf: reproduced" in judgement.note
    assert "close within 5%" in judgement.rule


def test_ordering_pair_apart_in_the_paper_is_a_beats() -> None:
    apart = {**PAPER, "lifo": 30.0}  # 50% apart: sjf must beat lifo, which it does not
    judgement = ordering(POINTS, ["easy", "sjf", "lifo", "fcfs"], paper_values=apart, tol=0.05)
    assert judgement.verdict == INCONCLUSIVE
    assert "sjf > lifo: inconclusive" in judgement.note


def test_ordering_near_tie_beyond_the_tolerance_is_contradicted() -> None:
    tie = {**PAPER, "sjf": 10.02}  # easy and sjf tie in the paper; ours are 5 apart (> 1%)
    judgement = ordering(POINTS, ["easy", "sjf", "fcfs"], paper_values=tie, tol=0.01)
    assert judgement.verdict == CONTRADICTED
    assert "easy ~ sjf: contradicted" in judgement.note


# --- trend --------------------------------------------------------------------------------


def test_trend_reproduced_rising_and_falling() -> None:
    rising = [("light", curve([0.0, 10.0, 20.0, 30.0])), ("heavy", curve([0.0, 5.0, 30.0]))]
    assert trend(rising, +1).verdict == REPRODUCED
    falling = [("light", curve([30.0, 20.0, 10.0, 0.0]))]
    judgement = trend(falling, -1)
    assert judgement.verdict == REPRODUCED
    assert judgement.ours.startswith("light: rho -1, last - first -30 [")
    assert judgement.note == "all 1 curves agree"


def test_trend_sorts_by_x() -> None:
    points = curve([0.0, 10.0, 20.0, 30.0])
    assert trend([("light", points[::-1])], +1).verdict == REPRODUCED


def test_trend_contradicted_by_a_significant_change_the_other_way() -> None:
    curves = [("light", curve([0.0, 10.0, 20.0])), ("heavy", curve([20.0, 10.0, 0.0]))]
    judgement = trend(curves, +1)
    assert judgement.verdict == CONTRADICTED
    assert "against the claim: heavy" in judgement.note


def test_trend_low_rho_with_a_significant_change_is_inconclusive() -> None:
    # means rank 1, 5, 3, 2, 4 against x: rho 0.3; last - first = +20, significant
    curves = [("light", curve([0.0, 10.0, 20.0])), ("bumpy", curve([0.0, 30.0, 10.0, 5.0, 20.0]))]
    judgement = trend(curves, +1)
    assert "bumpy: rho 0.3," in judgement.ours
    assert judgement.verdict == INCONCLUSIVE
    assert judgement.note == "not agreeing: bumpy"
    assert trend(curves, +1, min_rho=0.3).verdict == REPRODUCED


def test_trend_high_rho_without_a_significant_change_is_inconclusive() -> None:
    assert trend([("light", curve([0.0, 0.1, 0.2, 0.3]))], +1).verdict == INCONCLUSIVE
    one = trend([("light", curve([0.0, 10.0, 20.0, 30.0], n=1))], +1)
    assert one.verdict == INCONCLUSIVE and "n=1, no CI" in one.ours


def test_trend_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="direction"):
        trend([("light", curve([0.0, 1.0, 2.0]))], 0)
    with pytest.raises(ValueError, match="at least one point"):
        trend([("light", [])], 1)
    assert trend([], 1).verdict == NOT_CHECKABLE


# --- flattens -----------------------------------------------------------------------------


XS = [1.0, 2.0, 4.0, 8.0, 16.0]


@pytest.mark.parametrize(("offsets", "verdict", "note"), [
    ([100.0, 60.0, 40.0, 41.0, 39.0], REPRODUCED, "significant drop, flat beyond x0"),
    ([40.0, 60.0, 100.0, 100.0, 100.0], CONTRADICTED, "wrong direction"),
    ([100.0, 60.0, 40.0, 41.0, 110.0], CONTRADICTED, "more than |drop| at 16"),     # +70 > 60
    ([100.0, 60.0, 40.0, 41.0, -30.0], CONTRADICTED, "more than |drop| at 16"),     # -70
    ([100.0, 60.0, 40.0, 41.0, 70.0], INCONCLUSIVE, "more than |drop|/4 at 16"),    # +30 > 15
    ([100.0, 60.0, 40.0, 20.0, 40.0], INCONCLUSIVE, "more than |drop|/4 at 8"),     # -20
    ([100.0, 100.0, 100.0, 100.0, 100.0], INCONCLUSIVE, "drop is not significant"),
])
def test_flattens(offsets: list[float], verdict: str, note: str) -> None:
    judgement = flattens(curve(offsets, XS), x0=4.0)
    assert judgement.verdict == verdict
    assert note in judgement.note


def test_flattens_rising_and_unsorted() -> None:
    points = curve([0.0, 50.0, 80.0, 81.0, 79.0], XS)
    judgement = flattens(points[::-1], x0=4.0, direction=+1)
    assert judgement.verdict == REPRODUCED
    assert judgement.ours.startswith("drop 1 -> 4: 80 [")
    assert "; 8 - 4: 1 [" in judgement.ours
    assert flattens(points, x0=4.0).verdict == CONTRADICTED  # a rise claimed as a fall


def test_flattens_with_one_replication_is_inconclusive() -> None:
    judgement = flattens(curve([100.0, 60.0, 40.0, 41.0], XS[:4], n=1), x0=4.0)
    assert judgement.verdict == INCONCLUSIVE


def test_flattens_with_nothing_beyond_x0_needs_only_the_drop() -> None:
    assert flattens(curve([100.0, 60.0, 40.0], XS[:3]), x0=4.0).verdict == REPRODUCED


def test_flattens_rejects_bad_x0() -> None:
    points = curve([100.0, 60.0, 40.0], XS[:3])
    with pytest.raises(ValueError, match="not a point"):
        flattens(points, x0=3.0)
    with pytest.raises(ValueError, match="first point"):
        flattens(points, x0=1.0)
    with pytest.raises(ValueError, match="direction"):
        flattens(points, x0=4.0, direction=2)


# --- magnitude ----------------------------------------------------------------------------


ELEVEN = [float(v) for v in range(11)]  # central 80%: [1, 9]


@pytest.mark.parametrize(("paper", "verdict", "where"), [
    (5.0, REPRODUCED, "inside"),
    (9.0, REPRODUCED, "inside"),    # upper bound, inclusive
    (1.0, REPRODUCED, "inside"),    # lower bound, inclusive
    (9.01, CONTRADICTED, "above"),
    (0.99, CONTRADICTED, "below"),
])
def test_magnitude(paper: float, verdict: str, where: str) -> None:
    judgement = magnitude(paper, ELEVEN, coverage=0.8)
    assert judgement.verdict == verdict
    assert judgement.ours == "mean 5, central 80% [1, 9], range 0..10 (n=11)"
    assert judgement.note == f"paper {paper:.4g} {where} our central 80%"


def test_magnitude_default_coverage_and_series_input() -> None:
    values = series(ELEVEN)  # central 95%: [0.25, 9.75]
    assert magnitude(9.75, values).verdict == REPRODUCED
    assert magnitude(9.8, values).verdict == CONTRADICTED
    assert magnitude(0.2, values).verdict == CONTRADICTED


def test_magnitude_drops_nan_and_needs_values() -> None:
    judgement = magnitude(3.0, [math.nan, 1.0, 2.0, 3.0], coverage=1.0)
    assert judgement.verdict == REPRODUCED and "(n=3)" in judgement.ours
    assert magnitude(3.0, [math.nan, math.nan]).verdict == NOT_CHECKABLE
    assert magnitude(3.0, []).verdict == NOT_CHECKABLE
    assert magnitude(math.nan, ELEVEN).verdict == NOT_CHECKABLE
    with pytest.raises(ValueError):
        magnitude(3.0, ELEVEN, coverage=0.0)


# --- formula, informational, not_checkable ------------------------------------------------


@pytest.mark.parametrize(("value", "paper", "tol", "relative", "verdict"), [
    (1.5, 1.0, 0.5, False, REPRODUCED),     # boundary
    (1.6, 1.0, 0.5, False, CONTRADICTED),
    (0.4, 1.0, 0.5, False, CONTRADICTED),
    (1.5, 2.0, 0.25, True, REPRODUCED),     # boundary: 0.5 <= 0.25 * 2
    (1.5, 2.0, 0.2, True, CONTRADICTED),
    (-1.5, -2.0, 0.25, True, REPRODUCED),   # |paper| for a negative paper value
    (1.5, 2.0, 0.5, False, REPRODUCED),     # same numbers, absolute
])
def test_formula(value: float, paper: float, tol: float, relative: bool, verdict: str) -> None:
    judgement = formula(value, paper, tol, relative)
    assert judgement.verdict == verdict
    assert judgement.ours == f"{value:g}"
    assert ("x |paper|" in judgement.rule) == relative


def test_formula_nan_and_negative_tolerance() -> None:
    assert formula(math.nan, 1.0, 0.1).verdict == NOT_CHECKABLE
    assert formula(1.0, math.nan, 0.1).verdict == NOT_CHECKABLE
    with pytest.raises(ValueError):
        formula(1.0, 1.0, -0.1)


def test_informational_and_not_checkable() -> None:
    assert informational("mean 3", "for context") == Judgement(
        INFORMATIONAL, "mean 3", "informational (not judged)", "for context")
    judgement = not_checkable("table missing")
    assert judgement.verdict == NOT_CHECKABLE and judgement.note == "table missing"


# --- combine ------------------------------------------------------------------------------


def _j(verdict: str, tag: str) -> Judgement:
    return Judgement(verdict, f"ours {tag}", f"rule {tag}", f"note {tag}")


@pytest.mark.parametrize(("verdicts", "expected"), [
    ([REPRODUCED, REPRODUCED], REPRODUCED),
    ([REPRODUCED, CONTRADICTED, INCONCLUSIVE], CONTRADICTED),
    ([REPRODUCED, INCONCLUSIVE], INCONCLUSIVE),
    ([REPRODUCED, NOT_CHECKABLE], INCONCLUSIVE),
    ([REPRODUCED, INFORMATIONAL], INCONCLUSIVE),
])
def test_combine(verdicts: list[str], expected: str) -> None:
    parts = [_j(verdict, str(i)) for i, verdict in enumerate(verdicts)]
    judgement = combine(parts, "claim 3")
    assert judgement.verdict == expected
    assert judgement.ours == "; ".join(f"ours {i}" for i in range(len(verdicts)))
    assert judgement.rule == "all of: " + "; ".join(f"rule {i}" for i in range(len(verdicts)))
    assert judgement.note.startswith(
        f"claim 3: {verdicts.count(REPRODUCED)} of {len(verdicts)} sub-checks reproduced; note 0")


def test_combine_needs_judgements() -> None:
    with pytest.raises(ValueError):
        combine([], "claim")
