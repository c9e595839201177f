"""The claims table: each paper claim, judged on our aggregated results.

A family module registers its checks with :func:`claim`. A check receives the
aggregated tables (target id -> DataFrame, as written to
``results/tables/<target>.csv``, and ``<target>.seeds`` for the per-seed values)
and the family's claim settings, and returns a :class:`schedsim.verdicts.Judgement`
made by one rule of the shared vocabulary (:mod:`schedsim.verdicts`).
:func:`evaluate` runs every registered check of the given families; a check
whose tables are missing (target disabled or not run) is ``not checkable``.
:func:`sensitivity` judges the same claims again on the tables of each
sensitivity reading. A claim we do not reproduce is reported as such, never
tuned away (docs/reproduction.md).
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from schedsim.verdicts import (
    CONTRADICTED,
    INCONCLUSIVE,
    INFORMATIONAL,
    NOT_CHECKABLE,
    REPRODUCED,
    VERDICTS,
    Judgement,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CONTRADICTED", "INCONCLUSIVE", "INFORMATIONAL", "NOT_CHECKABLE", "REPRODUCED",
           "VERDICTS", "Claim", "Share", "claim", "evaluate", "explained_share", "registered",
           "sensitivity"]

COLUMNS = ("target", "claim_id", "statement", "paper_value", "our_value", "verdict", "rule",
           "note")
SENSITIVITY_COLUMNS = ("claim_id", "target", "reading", "about", "verdict", "default_verdict",
                       "changed", "our_value", "rule", "note")
DEFAULT_READING = "default"

Tables = Mapping[str, "pd.DataFrame"]
CheckFn = Callable[[Tables, Mapping[str, Any]], Judgement]


@dataclass(frozen=True)
class Claim:
    """One paper claim about one target."""

    family: str
    target: str
    claim_id: str
    statement: str
    paper_value: str
    check: CheckFn
    needs: tuple[str, ...]

    def evaluate(self, tables: Tables, settings: Mapping[str, Any],
                 not_run: Mapping[str, str] | None = None) -> Judgement:
        missing = [t for t in self.needs if t not in tables]
        skipped = [t for t in missing if t in (not_run or {})]
        if skipped:
            assert not_run is not None
            return Judgement(NOT_CHECKABLE, "", "", "; ".join(f"{t} not run: {not_run[t]}"
                                                              for t in skipped))
        if missing:
            return Judgement(NOT_CHECKABLE, "", "", f"no results for {', '.join(missing)} "
                                                    "(target disabled or not run)")
        try:
            return self.check(tables, settings)
        except Exception as err:  # a broken check must not hide the others
            where = traceback.extract_tb(err.__traceback__)[-1]
            return Judgement(NOT_CHECKABLE, "", "", f"check failed: {type(err).__name__}: "
                                                    f"{err} (line {where.lineno})")


_CLAIMS: dict[str, dict[str, Claim]] = {}


def claim(
    family: str, target: str, claim_id: str, statement: str, paper_value: str,
    needs: tuple[str, ...] | None = None,
) -> Callable[[CheckFn], CheckFn]:
    """Decorator: register ``fn(tables, settings) -> Judgement`` as a claim check.

    ``needs`` lists the targets whose tables the check reads (default: ``target``).
    """

    def wrap(fn: CheckFn) -> CheckFn:
        entry = Claim(family, target, claim_id, statement, paper_value, fn,
                      needs if needs is not None else (target,))
        registered = _CLAIMS.setdefault(family, {})
        if claim_id in registered and registered[claim_id].check is not fn:
            raise ValueError(f"claim {claim_id!r} registered twice")
        registered[claim_id] = entry
        return fn

    return wrap


def registered(family: str) -> list[Claim]:
    """The claims of ``family``, in registration order."""
    return list(_CLAIMS.get(family, {}).values())


def evaluate(
    families: Iterable[str], tables: Tables, settings: Mapping[str, Mapping[str, Any]],
    targets: Iterable[str] | None = None, not_run: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """The claims table of ``families`` (their modules must be imported already).

    ``targets`` restricts the rows to those targets (default: all registered);
    ``not_run`` (target -> why) makes the claims of targets that did not run
    ``not checkable`` with that reason.
    """
    import pandas as pd

    wanted = set(targets) if targets is not None else None
    rows = []
    for family in families:
        for entry in registered(family):
            if wanted is not None and entry.target not in wanted:
                continue
            rows.append(_row(entry, entry.evaluate(tables, settings.get(family, {}), not_run)))
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _row(entry: Claim, judged: Judgement) -> dict[str, str]:
    return {"target": entry.target, "claim_id": entry.claim_id, "statement": entry.statement,
            "paper_value": entry.paper_value, "our_value": judged.ours,
            "verdict": judged.verdict, "rule": judged.rule, "note": judged.note}


def sensitivity(
    family: str, tables: Tables, settings: Mapping[str, Any],
    readings: Mapping[str, Mapping[str, Any]],
) -> pd.DataFrame:
    """Every claim of ``family`` that a reading reruns, judged under each reading.

    ``readings`` maps a reading's name to ``{"about": text, "targets": {default
    target: the reading's target}, "claims": {setting: value}}`` (``claims``, optional,
    overrides ``settings`` under the reading). A claim is affected by a reading when it
    needs one of the reading's targets; it is judged on the tables with those
    targets (and their per-seed tables) replaced by the reading's. The first row
    of each affected claim is its default verdict.
    """
    import pandas as pd

    from schedsim.tables import SEEDS_SUFFIX

    rows = []
    for entry in registered(family):
        default: Judgement | None = None
        for name, reading in readings.items():
            swapped = dict(reading["targets"])
            if not swapped.keys() & set(entry.needs):
                continue
            if default is None:
                default = entry.evaluate(tables, settings)
                rows.append(_sensitivity_row(entry, DEFAULT_READING, "the default reading",
                                             default, default))
            view = dict(tables)
            for base, other in swapped.items():
                for suffix in ("", SEEDS_SUFFIX):
                    if f"{other}{suffix}" in tables:
                        view[f"{base}{suffix}"] = tables[f"{other}{suffix}"]
                    else:
                        view.pop(f"{base}{suffix}", None)
            judged = entry.evaluate(view, {**settings, **(reading.get("claims") or {})})
            rows.append(_sensitivity_row(entry, name, str(reading.get("about", "")), judged,
                                         default))
    return pd.DataFrame(rows, columns=list(SENSITIVITY_COLUMNS))


def _sensitivity_row(entry: Claim, reading: str, about: str, judged: Judgement,
                     default: Judgement) -> dict[str, Any]:
    return {"claim_id": entry.claim_id, "target": entry.target, "reading": reading,
            "about": about, "verdict": judged.verdict, "default_verdict": default.verdict,
            "changed": judged.verdict != default.verdict, "our_value": judged.ours,
            "rule": judged.rule, "note": judged.note}


JUDGED = (REPRODUCED, CONTRADICTED, INCONCLUSIVE)


@dataclass(frozen=True)
class Share:
    """How many judged claims are reproduced, or explained by a named reading."""

    judged: int
    reproduced: int
    explained: tuple[tuple[str, str], ...]  # (claim id, the readings that reproduce it)

    @property
    def count(self) -> int:
        return self.reproduced + len(self.explained)

    def text(self) -> str:
        if not self.judged:
            return "no judged claim"
        line = (f"reproduced, or explained by a named reading: {self.count} of {self.judged} "
                f"judged claims ({self.count / self.judged:.0%}): {self.reproduced} reproduced, "
                f"{len(self.explained)} explained")
        if self.explained:
            line += " (" + "; ".join(f"{c} by {r}" for c, r in self.explained) + ")"
        return line


def explained_share(claims: pd.DataFrame, sensitivity: Iterable[pd.DataFrame] = ()) -> Share:
    """The share of claims.md, "Explained": of the judged claims (reproduced, contradicted,
    inconclusive under the default reading), those reproduced, and those not reproduced
    that some named reading of the sensitivity tables makes reproduced."""
    judged = claims[claims["verdict"].isin(JUDGED)]
    rescued: dict[tuple[str, str], list[str]] = {}
    for table in sensitivity:
        rows = table[(table["reading"] != DEFAULT_READING) & (table["verdict"] == REPRODUCED)]
        for row in rows.itertuples(index=False):
            rescued.setdefault((str(row.target), str(row.claim_id)), []).append(str(row.reading))
    explained = tuple((str(row.claim_id), ", ".join(rescued[(str(row.target), str(row.claim_id))]))
                      for row in judged.itertuples(index=False)
                      if row.verdict != REPRODUCED and (str(row.target), str(row.claim_id))
                      in rescued)
    return Share(len(judged), int((judged["verdict"] == REPRODUCED).sum()), explained)


def caption_rst(claims: pd.DataFrame, target: str) -> str:
    """The claims of ``target`` as reStructuredText (included in the report captions)."""
    part = claims[claims["target"] == target]
    if part.empty:
        return "No automatic claim is registered for this target.\n"
    lines = []
    for row in part.itertuples(index=False):
        lines.append(f"* **{row.claim_id}** -- *{row.verdict}*: {_rst(row.statement)}")
        lines.append(f"  Paper: {_rst(row.paper_value)}. Ours: {_rst(row.our_value)}.")
        if row.rule:
            lines.append(f"  Rule: {_rst(row.rule)}.")
        if row.note:
            lines.append(f"  Note: {_rst(row.note)}")
    return "\n".join(lines) + "\n"


def _rst(text: str) -> str:
    """Escape characters that reStructuredText would read as markup."""
    out = str(text)
    for char in ("\\", "*", "`", "|", "_"):
        out = out.replace(char, "\\" + char)
    return out
