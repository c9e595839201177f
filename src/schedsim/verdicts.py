"""Verdicts: judging a paper's claim against our per-replication numbers.

A replication is one seed. Every policy of a replication runs on the same
workload, so comparisons are paired by replication: the difference ``d = A - B``
is taken on the replications both series have (index intersection, NaN
differences dropped), and its mean and Student-t interval come from
:func:`schedsim.stats.mean_ci`. "A is significantly better than B at a point"
means that paired interval excludes 0 on the better side (``high < 0`` when
lower is better, ``low > 0`` when higher is better); "significantly worse" is
the mirror image. With one replication the interval has no width (NaN) and
nothing is significant. "Significant in direction +1 (-1)" means the interval
lies entirely above (below) 0.

A judgement is three-valued (reproduced, contradicted, inconclusive); two more
values mark what is not judged (informational) or cannot be (not checkable).
A multi-point rule given no points at all is not checkable. ``level`` is 0.95
and lower is better unless stated.

* ``beats``: reproduced if A is nowhere significantly worse than B and is
  significantly better at half of the points or more (count >= points / 2);
  contradicted if A is significantly worse at some point; else inconclusive.
* ``at_or_below``: with ``bound = tol * |mean of B|`` (B over the common
  replications, ``tol`` fixed in advance), reproduced if at every point the paired
  interval of A - B lies at or below ``+bound`` (lower is better: ``high <= bound``;
  higher is better, the mirror image: ``low >= -bound``), so A is shown to be no
  worse than B by more than ``tol``; contradicted if at some point the whole
  interval lies beyond the bound (``low > bound``; mirrored ``high < -bound``); else
  inconclusive. "Nowhere significantly worse" alone is absence of evidence: an
  interval that straddles the bound is inconclusive.
* ``close``: with ``bound = tol * |mean of B|`` (B over the common
  replications), reproduced if at every point the interval of A - B lies inside
  ``[-bound, +bound]``; contradicted if at some point it lies entirely outside
  (``low > bound`` or ``high < -bound``); else inconclusive.
* ``best_of``: reproduced if the winner has the best mean at every point (a tie
  counts as best) and is significantly better than the runner-up (the best of
  the others by mean) at half of the points or more; contradicted if some other
  policy is significantly better than the winner at some point; else
  inconclusive.
* ``trend``: a curve (sorted by x) agrees if ``direction * rho >= min_rho``
  (Spearman rho of x against the mean) and the paired last-minus-first change
  is significant in ``direction``; it contradicts if that change is significant
  in the opposite direction. Reproduced if every curve agrees; contradicted if
  any curve contradicts; else inconclusive.
* ``flattens``: with ``drop`` the paired change from the first point to ``x0``
  (x0 minus first), reproduced if the drop is significant in ``direction`` and
  no point beyond x0 differs significantly from x0 by more than ``|drop|/4``
  (the interval of point - x0 entirely above ``+|drop|/4`` or entirely below
  ``-|drop|/4``); contradicted if the drop is significant in the opposite
  direction or some point beyond x0 differs significantly from x0 by more than
  ``|drop|``; else inconclusive.
* ``magnitude``: with NaN values dropped, reproduced if the paper's value lies
  within the central ``coverage`` of our per-replication values (numpy
  quantiles ``(1 - coverage) / 2`` and ``1 - (1 - coverage) / 2``, linear
  interpolation, bounds included); contradicted if outside; not checkable
  without values (or without a paper value); never inconclusive.
* ``ordering``: each adjacent pair ``(order[i], order[i + 1])`` is a ``beats``
  of the first over the second across all points, except a pair whose paper values
  differ by less than ``tol`` (``|p_first - p_second| < tol * |p_second|``, a
  near-tie in the paper), which is a ``close`` within ``tol``. Reproduced if every
  pair is reproduced; contradicted if any pair is contradicted (reversed
  significantly, or beyond ``tol`` for a near-tie); else inconclusive.
* ``formula``: reproduced if ``|value - paper_value| <= tol`` (``tol *
  |paper_value|`` when relative); contradicted otherwise; not checkable if
  either value is NaN; never inconclusive.
* ``combine``: reproduced if every sub-check is reproduced; contradicted if any
  sub-check is contradicted; else inconclusive.
* ``informational`` and ``not_checkable`` judge nothing: the first reports our
  numbers, the second says why the claim cannot be checked.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING

import numpy as np

from schedsim.stats import DEFAULT_LEVEL, Interval, mean_ci
from schedsim.tables import spearman

if TYPE_CHECKING:  # pandas is imported where a series is built: simulation jobs never need it
    import pandas as pd

REPRODUCED = "reproduced"
CONTRADICTED = "contradicted"
INCONCLUSIVE = "inconclusive"
INFORMATIONAL = "informational"
NOT_CHECKABLE = "not checkable"
VERDICTS = (REPRODUCED, CONTRADICTED, INCONCLUSIVE, INFORMATIONAL, NOT_CHECKABLE)

Point = tuple[str, Mapping[str, "pd.Series"]]
"""One point of a multi-policy comparison: a label and each policy's per-replication values."""
CurvePoint = tuple[float, "pd.Series"]
"""One point of a curve: x and the per-replication values at x."""


@dataclass(frozen=True)
class Judgement:
    """A verdict with our numbers, the rule applied and what decided it."""

    verdict: str
    ours: str
    rule: str
    note: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r} is not one of {VERDICTS}")


@dataclass(frozen=True)
class Pair:
    """One point of a comparison: A's and B's values per replication (pd.Series indexed by
    replication id)."""

    label: str
    a: pd.Series
    b: pd.Series


# --- formatting and small predicates -------------------------------------------------------


def _num(x: float) -> str:
    """Four significant digits; whole numbers with thousands separators from 10,000 on."""
    if math.isnan(x):
        return "nan"
    return f"{x:,.0f}" if math.isfinite(x) and abs(x) >= 1e4 else f"{x:.4g}"


def _ci(interval: Interval) -> str:
    """``mean [low, high]``; says so when there is no data or no interval."""
    if interval.n == 0:
        return "no common replications"
    if math.isnan(interval.half_width):
        return f"{_num(interval.mean)} (n={interval.n}, no CI)"
    return f"{_num(interval.mean)} [{_num(interval.low)}, {_num(interval.high)}]"


def _pct(fraction: float) -> str:
    return f"{100 * fraction:g}%"


def _sense(lower_is_better: bool) -> str:
    return "lower is better" if lower_is_better else "higher is better"


def _better(lower_is_better: bool) -> int:
    """The sign of a difference that favours A."""
    return -1 if lower_is_better else 1


def _significant(interval: Interval, direction: int) -> bool:
    """The interval lies entirely above 0 (direction > 0) or entirely below (direction < 0).

    NaN bounds (one replication, no data) compare false: nothing is significant.
    """
    return interval.low > 0 if direction > 0 else interval.high < 0


def _outside(interval: Interval, bound: float) -> bool:
    """The interval lies entirely above ``+bound`` or entirely below ``-bound``."""
    return interval.low > bound or interval.high < -bound


def _decide(contradicted: bool, reproduced: bool) -> str:
    if contradicted:
        return CONTRADICTED
    return REPRODUCED if reproduced else INCONCLUSIVE


def _labels(labels: Iterable[object]) -> str:
    return ", ".join(str(label) for label in labels)


def _check_direction(direction: int) -> None:
    if direction not in (1, -1):
        raise ValueError(f"direction={direction!r} must be +1 (rising) or -1 (falling)")


def _word(direction: int) -> str:
    return "rising" if direction > 0 else "falling"


# --- paired differences -------------------------------------------------------------------


def _as_series(values: pd.Series | Iterable[float]) -> pd.Series:
    import pandas as pd

    if isinstance(values, pd.Series):
        series = values.astype(float)
    else:
        series = pd.Series(list(values), dtype=float)
    if not series.index.is_unique:
        raise ValueError("per-replication values must have one entry per replication id")
    return series


def _common(a: pd.Series | Iterable[float],
            b: pd.Series | Iterable[float]) -> tuple[pd.Series, pd.Series]:
    """``a`` and ``b`` restricted to the replications both have, in the same order."""
    a, b = _as_series(a), _as_series(b)
    common = a.index.intersection(b.index)
    return a.loc[common], b.loc[common]


def _mean(values: pd.Series | Iterable[float]) -> float:
    """Mean over the non-NaN replications (NaN if there are none)."""
    return mean_ci(_as_series(values).dropna()).mean


def paired(a: pd.Series | Iterable[float], b: pd.Series | Iterable[float],
           level: float = DEFAULT_LEVEL) -> Interval:
    """Mean and CI of ``a - b`` over the replications both have (NaN differences dropped)."""
    a, b = _common(a, b)
    return mean_ci((a - b).dropna(), level)


def _not_checkable(rule: str, why: str, ours: str = "") -> Judgement:
    return Judgement(NOT_CHECKABLE, ours, rule, why)


# --- two-policy rules -----------------------------------------------------------------------


def _differences(pairs: Sequence[Pair], level: float) -> list[tuple[str, Interval]]:
    return [(pair.label, paired(pair.a, pair.b, level)) for pair in pairs]


def _differences_text(diffs: Sequence[tuple[str, Interval]]) -> str:
    return "; ".join(f"{label}: diff {_ci(interval)}" for label, interval in diffs)


def beats(pairs: Sequence[Pair], lower_is_better: bool = True,
          level: float = DEFAULT_LEVEL) -> Judgement:
    """A beats B: significantly better at half of the points or more, nowhere worse."""
    rule = f"beats({_sense(lower_is_better)}, {_pct(level)} paired CI)"
    if not pairs:
        return _not_checkable(rule, "no points to compare")
    better = _better(lower_is_better)
    diffs = _differences(pairs, level)
    wins = [label for label, interval in diffs if _significant(interval, better)]
    losses = [label for label, interval in diffs if _significant(interval, -better)]
    verdict = _decide(bool(losses), len(wins) >= len(pairs) / 2)
    note = f"significantly better at {len(wins)} of {len(pairs)} points"
    note += f" ({_labels(wins)})" if wins else ""
    note += f"; significantly worse at {_labels(losses)}" if losses else ""
    return Judgement(verdict, _differences_text(diffs), rule, note)


def _against_bound(pairs: Sequence[Pair], tol: float, level: float,
                   within: Callable[[Interval, float], bool],
                   beyond: Callable[[Interval, float], bool],
                   shown: str) -> tuple[list[str], list[str], list[str]]:
    """Per pair, the paired interval of A - B against ``bound = tol * |mean of B|`` (B over
    the common replications): the pairs ``within`` it, those ``beyond`` it, and each
    pair's text (``shown`` precedes the bound)."""
    parts, inside, outside = [], [], []
    for pair in pairs:
        interval = paired(pair.a, pair.b, level)
        bound = tol * abs(_mean(_common(pair.a, pair.b)[1]))
        if within(interval, bound):
            inside.append(pair.label)
        if beyond(interval, bound):
            outside.append(pair.label)
        parts.append(f"{pair.label}: diff {_ci(interval)} (bound {shown}{_num(bound)})")
    return parts, inside, outside


def at_or_below(pairs: Sequence[Pair], tol: float, lower_is_better: bool = True,
                level: float = DEFAULT_LEVEL) -> Judgement:
    """A is no worse than B by more than ``tol`` (relative to B's mean) at every point."""
    if tol < 0:
        raise ValueError(f"at_or_below: tol={tol} must be >= 0")
    worse = -_better(lower_is_better)
    sign = "+" if worse > 0 else "-"
    rule = (f"at_or_below(A - B {'<=' if worse > 0 else '>='} {sign}{tol:g} x |mean of B|, "
            f"{_sense(lower_is_better)}, {_pct(level)} paired CI)")
    if not pairs:
        return _not_checkable(rule, "no points to compare")

    def far(interval: Interval) -> float:  # the end on the worse side, signed as worse
        return interval.high if worse > 0 else -interval.low

    def near(interval: Interval) -> float:
        return interval.low if worse > 0 else -interval.high

    parts, within, beyond = _against_bound(
        pairs, tol, level, lambda iv, bound: far(iv) <= bound,
        lambda iv, bound: near(iv) > bound, sign)
    verdict = _decide(bool(beyond), len(within) == len(pairs))
    note = f"within the bound at {len(within)} of {len(pairs)} points"
    note += f"; entirely beyond it at {_labels(beyond)}" if beyond else ""
    return Judgement(verdict, "; ".join(parts), rule, note)


def close(pairs: Sequence[Pair], tol: float, level: float = DEFAULT_LEVEL) -> Judgement:
    """A is within ``tol`` (relative to B's mean) of B at every point."""
    if tol < 0:
        raise ValueError(f"close: tol={tol} must be >= 0")
    rule = f"close(|A - B| <= {tol:g} x |mean of B|, {_pct(level)} paired CI)"
    if not pairs:
        return _not_checkable(rule, "no points to compare")
    parts, inside, outside = _against_bound(
        pairs, tol, level, lambda iv, bound: -bound <= iv.low and iv.high <= bound,
        _outside, "+/-")
    verdict = _decide(bool(outside), len(inside) == len(pairs))
    note = f"inside the bound at {len(inside)} of {len(pairs)} points"
    note += f"; entirely outside at {_labels(outside)}" if outside else ""
    return Judgement(verdict, "; ".join(parts), rule, note)


# --- several policies ---------------------------------------------------------------------


def _policy(series: Mapping[str, pd.Series], name: str, label: str) -> pd.Series:
    if name not in series:
        raise ValueError(f"point {label!r} has no values for {name!r} (has {_labels(series)})")
    return series[name]


def _runner_up(means: Mapping[str, float], winner: str, better: int) -> str:
    """The best of the policies other than ``winner`` by mean (NaN means rank last)."""
    others = [name for name in means if name != winner]
    if not others:
        raise ValueError(f"best_of needs a policy other than {winner!r} at every point")
    return max(others, key=lambda n: -math.inf if math.isnan(means[n]) else better * means[n])


def best_of(points: Sequence[Point], winner: str, lower_is_better: bool = True,
            level: float = DEFAULT_LEVEL) -> Judgement:
    """``winner`` is the best policy at every point, significantly so at half of them or more."""
    rule = f"best_of({winner}, {_sense(lower_is_better)}, {_pct(level)} paired CI vs runner-up)"
    if not points:
        return _not_checkable(rule, "no points to compare")
    better = _better(lower_is_better)
    parts, not_best, wins, beaten = [], [], [], []
    for label, series in points:
        ours = _policy(series, winner, label)
        means = {name: _mean(values) for name, values in series.items()}
        runner = _runner_up(means, winner, better)
        is_best = better * means[winner] >= better * means[runner]
        vs_runner = paired(ours, series[runner], level)
        if not is_best:
            not_best.append(label)
        if _significant(vs_runner, better):
            wins.append(label)
        beaten += [f"{name} at {label}" for name in series if name != winner
                   and _significant(paired(series[name], ours, level), better)]
        listing = ", ".join(f"{name} {_num(mean)}" for name, mean in means.items())
        parts.append(f"{label}: best {winner if is_best else runner} ({listing}); "
                     f"{winner} - {runner} {_ci(vs_runner)}")
    verdict = _decide(bool(beaten), not not_best and len(wins) >= len(points) / 2)
    note = f"{winner} best mean at {len(points) - len(not_best)} of {len(points)} points"
    note += f" (not at {_labels(not_best)})" if not_best else ""
    note += f"; significantly better than the runner-up at {len(wins)} of {len(points)}"
    note += f"; significantly better than {winner}: {_labels(beaten)}" if beaten else ""
    return Judgement(verdict, "; ".join(parts), rule, note)


def ordering(points: Sequence[Point], order: Sequence[str], lower_is_better: bool = True,
             level: float = DEFAULT_LEVEL, paper_values: Mapping[str, float] | None = None,
             tol: float = 0.0) -> Judgement:
    """The policies rank as ``order`` (best first): each beats the next across all points;
    a pair the paper shows as a near-tie (its values within ``tol``) is ``close`` instead."""
    if len(order) < 2:
        raise ValueError(f"ordering needs at least two policies, got {list(order)}")
    if tol < 0:
        raise ValueError(f"ordering: tol={tol} must be >= 0")
    values = paper_values or {}
    missing = [name for name in order if paper_values is not None and name not in values]
    if missing:
        raise ValueError(f"ordering: no paper value for {_labels(missing)}")
    rule = (f"ordering({' > '.join(order)}: each adjacent pair beats({_sense(lower_is_better)},"
            f" {_pct(level)} paired CI)")
    rule += (f", a pair within {_pct(tol)} in the paper close within {_pct(tol)})"
             if paper_values is not None else ")")
    if not points:
        return _not_checkable(rule, "no points to compare")
    results = []
    for first, second in pairwise(order):
        pairs = [Pair(label, _policy(series, first, label), _policy(series, second, label))
                 for label, series in points]
        if paper_values is not None and _near_tie(values[first], values[second], tol):
            results.append((f"{first} ~ {second}", close(pairs, tol, level)))
        else:
            results.append((f"{first} > {second}", beats(pairs, lower_is_better, level)))
    verdicts = [judgement.verdict for _, judgement in results]
    verdict = _decide(CONTRADICTED in verdicts, all(v == REPRODUCED for v in verdicts))
    ours = "; ".join(f"{name}: ({judgement.ours})" for name, judgement in results)
    note = "; ".join(f"{name}: {judgement.verdict} ({judgement.note})"
                     for name, judgement in results)
    return Judgement(verdict, ours, rule, note)


def _near_tie(first: float, second: float, tol: float) -> bool:
    """The paper's values of a pair differ by less than ``tol`` (relative to the second)."""
    return abs(first - second) < tol * abs(second)


# --- curves ---------------------------------------------------------------------------------


def _sorted(curve: Sequence[CurvePoint]) -> list[CurvePoint]:
    if not curve:
        raise ValueError("a curve needs at least one point")
    return sorted(curve, key=lambda point: float(point[0]))


def trend(curves: Sequence[tuple[str, Sequence[CurvePoint]]], direction: int,
          min_rho: float = 0.7, level: float = DEFAULT_LEVEL) -> Judgement:
    """Every curve rises (direction +1) or falls (-1): rank correlation and a significant change."""
    _check_direction(direction)
    rule = (f"trend({_word(direction)}: Spearman rho >= {min_rho:g} and last - first "
            f"significant, {_pct(level)} paired CI)")
    if not curves:
        return _not_checkable(rule, "no curves")
    parts, disagreeing, contradicting = [], [], []
    for label, curve in curves:
        ordered = _sorted(curve)
        rho = spearman([float(x) for x, _ in ordered], [_mean(s) for _, s in ordered])
        change = paired(ordered[-1][1], ordered[0][1], level)
        if _significant(change, -direction):
            contradicting.append(label)
        elif not (direction * rho >= min_rho and _significant(change, direction)):
            disagreeing.append(label)
        parts.append(f"{label}: rho {_num(rho)}, last - first {_ci(change)}")
    verdict = _decide(bool(contradicting), not disagreeing and not contradicting)
    notes = []
    if contradicting:
        notes.append(f"significant change against the claim: {_labels(contradicting)}")
    if disagreeing:
        notes.append(f"not agreeing: {_labels(disagreeing)}")
    note = "; ".join(notes) or f"all {len(curves)} curves agree"
    return Judgement(verdict, "; ".join(parts), rule, note)


def _position(curve: Sequence[CurvePoint], x0: float) -> int:
    for index, (x, _) in enumerate(curve):
        if math.isclose(float(x), x0, rel_tol=1e-9, abs_tol=1e-12):
            if index == 0:
                raise ValueError(f"x0={x0:g} is the first point: there is no drop to measure")
            return index
    raise ValueError(f"x0={x0:g} is not a point of the curve ({_labels(x for x, _ in curve)})")


def flattens(curve: Sequence[CurvePoint], x0: float, direction: int = -1,
             level: float = DEFAULT_LEVEL) -> Judgement:
    """The curve changes significantly up to ``x0`` and stays flat beyond it."""
    _check_direction(direction)
    rule = (f"flattens({_word(direction)} from the first point to {x0:g}, beyond it no "
            f"significant difference from {x0:g} by more than |drop|/4, {_pct(level)} paired CI)")
    ordered = _sorted(curve)
    index = _position(ordered, x0)
    first_x, first = ordered[0]
    at_x0 = ordered[index][1]
    drop = paired(at_x0, first, level)
    size = abs(drop.mean)
    beyond = [(x, paired(values, at_x0, level)) for x, values in ordered[index + 1:]]
    drifts = [f"{x:g}" for x, interval in beyond if _outside(interval, size / 4)]
    jumps = [f"{x:g}" for x, interval in beyond if _outside(interval, size)]
    wrong_way = _significant(drop, -direction)
    verdict = _decide(wrong_way or bool(jumps), _significant(drop, direction) and not drifts)
    parts = [f"drop {first_x:g} -> {x0:g}: {_ci(drop)}"]
    parts += [f"{x:g} - {x0:g}: {_ci(interval)}" for x, interval in beyond]
    return Judgement(verdict, "; ".join(parts), rule,
                     _flattens_note(drop, direction, drifts, jumps))


def _flattens_note(drop: Interval, direction: int, drifts: Sequence[str],
                   jumps: Sequence[str]) -> str:
    notes = []
    if _significant(drop, -direction):
        notes.append("the drop is significant in the wrong direction")
    elif not _significant(drop, direction):
        notes.append("the drop is not significant")
    if jumps:
        notes.append(f"differs significantly from x0 by more than |drop| at {_labels(jumps)}")
    elif drifts:
        notes.append(f"differs significantly from x0 by more than |drop|/4 at {_labels(drifts)}")
    return "; ".join(notes) or "significant drop, flat beyond x0"


# --- single values --------------------------------------------------------------------------


def magnitude(paper_value: float, values: pd.Series | Iterable[float],
              coverage: float = 0.95) -> Judgement:
    """The paper's value lies within the central ``coverage`` of our per-replication values."""
    if not 0 < coverage <= 1:
        raise ValueError(f"magnitude: coverage={coverage} must be in (0, 1]")
    rule = f"magnitude(paper value within the central {_pct(coverage)} of per-replication values)"
    data = np.asarray(list(values), dtype=float)
    data = data[~np.isnan(data)]
    if data.size == 0:
        return _not_checkable(rule, "no per-replication values")
    tail = round((1 - coverage) / 2, 12)  # 0.1, not 0.09999999999999998, for coverage 0.8
    low, high = (float(q) for q in np.quantile(data, [tail, 1 - tail], method="linear"))
    ours = (f"mean {_num(float(data.mean()))}, central {_pct(coverage)} [{_num(low)}, "
            f"{_num(high)}], range {_num(float(data.min()))}..{_num(float(data.max()))} "
            f"(n={data.size})")
    if math.isnan(paper_value):
        return _not_checkable(rule, "no paper value", ours)
    where = "below" if paper_value < low else "above" if paper_value > high else "inside"
    verdict = REPRODUCED if where == "inside" else CONTRADICTED
    return Judgement(verdict, ours, rule, f"paper {_num(paper_value)} {where} our central "
                                          f"{_pct(coverage)}")


def formula(value: float, paper_value: float, tol: float, relative: bool = False) -> Judgement:
    """Our value equals the paper's within ``tol`` (times ``|paper_value|`` when relative)."""
    if tol < 0:
        raise ValueError(f"formula: tol={tol} must be >= 0")
    rule = f"formula(|ours - paper| <= {tol:g}{' x |paper|' if relative else ''})"
    if math.isnan(value) or math.isnan(paper_value):
        return _not_checkable(rule, f"ours {_num(value)}, paper {_num(paper_value)}", _num(value))
    allowed = tol * abs(paper_value) if relative else tol
    gap = abs(value - paper_value)
    verdict = REPRODUCED if gap <= allowed else CONTRADICTED
    note = f"paper {_num(paper_value)}, difference {_num(gap)} (allowed {_num(allowed)})"
    return Judgement(verdict, _num(value), rule, note)


def informational(ours: str, note: str = "") -> Judgement:
    """Numbers reported for information, not judged."""
    return Judgement(INFORMATIONAL, ours, "informational (not judged)", note)


def not_checkable(why: str) -> Judgement:
    """A claim our results cannot check, and why."""
    return Judgement(NOT_CHECKABLE, "", "not checkable", why)


def combine(judgements: Sequence[Judgement], label: str) -> Judgement:
    """A claim made of several sub-checks: all must be reproduced, any contradiction decides.

    ``label`` names the claim in the note, ahead of the count of reproduced sub-checks.
    """
    if not judgements:
        raise ValueError(f"combine({label!r}) needs at least one judgement")
    verdicts = [judgement.verdict for judgement in judgements]
    verdict = _decide(CONTRADICTED in verdicts, all(v == REPRODUCED for v in verdicts))
    summary = f"{label}: {verdicts.count(REPRODUCED)} of {len(verdicts)} sub-checks reproduced"
    notes = [summary, *(judgement.note for judgement in judgements if judgement.note)]
    return Judgement(verdict, "; ".join(j.ours for j in judgements if j.ours),
                     "all of: " + "; ".join(j.rule for j in judgements), "; ".join(notes))
