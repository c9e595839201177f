"""The claims table: each paper claim, checked on our aggregated results.

A family module registers its checks with :func:`claim`. A check receives the
aggregated tables (target id -> DataFrame, as written to
``results/tables/<target>.csv``) and the family's claim settings, and returns an
:class:`Outcome`. :func:`evaluate` runs every registered check of the given
families; a check whose tables are missing (target disabled or not run) is
``not checkable``. A claim we do not reproduce is reported as such, never tuned
away (docs/reproduction.md).
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
NOT_CHECKABLE = "not checkable"
VERDICTS = (REPRODUCED, NOT_REPRODUCED, NOT_CHECKABLE)
COLUMNS = ("target", "claim_id", "statement", "paper_value", "our_value", "verdict", "note")

Tables = Mapping[str, "pd.DataFrame"]
CheckFn = Callable[[Tables, Mapping[str, Any]], "Outcome"]


@dataclass(frozen=True)
class Outcome:
    """What a check found: our value as text, the verdict, and a note."""

    our_value: str
    verdict: str
    note: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r} is not one of {VERDICTS}")


def verdict_of(holds: bool) -> str:
    """``reproduced`` when ``holds``, else ``not reproduced``."""
    return REPRODUCED if holds else NOT_REPRODUCED


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
                 not_run: Mapping[str, str] | None = None) -> Outcome:
        missing = [t for t in self.needs if t not in tables]
        skipped = [t for t in missing if t in (not_run or {})]
        if skipped:
            assert not_run is not None
            return Outcome("", NOT_CHECKABLE, "; ".join(f"{t} not run: {not_run[t]}"
                                                        for t in skipped))
        if missing:
            return Outcome("", NOT_CHECKABLE, f"no results for {', '.join(missing)} "
                                              "(target disabled or not run)")
        try:
            return self.check(tables, settings)
        except Exception as err:  # a broken check must not hide the others
            where = traceback.extract_tb(err.__traceback__)[-1]
            return Outcome("", NOT_CHECKABLE, f"check failed: {type(err).__name__}: {err} "
                                              f"(line {where.lineno})")


_CLAIMS: dict[str, dict[str, Claim]] = {}


def claim(
    family: str, target: str, claim_id: str, statement: str, paper_value: str,
    needs: tuple[str, ...] | None = None,
) -> Callable[[CheckFn], CheckFn]:
    """Decorator: register ``fn(tables, settings) -> Outcome`` as a claim check.

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
            outcome = entry.evaluate(tables, settings.get(family, {}), not_run)
            rows.append({"target": entry.target, "claim_id": entry.claim_id,
                         "statement": entry.statement, "paper_value": entry.paper_value,
                         "our_value": outcome.our_value, "verdict": outcome.verdict,
                         "note": outcome.note})
    return pd.DataFrame(rows, columns=list(COLUMNS))


def caption_rst(claims: pd.DataFrame, target: str) -> str:
    """The claims of ``target`` as reStructuredText (included in the report captions)."""
    part = claims[claims["target"] == target]
    if part.empty:
        return "No automatic claim is registered for this target.\n"
    lines = []
    for row in part.itertuples(index=False):
        lines.append(f"* **{row.claim_id}** -- *{row.verdict}*: {_rst(row.statement)}")
        lines.append(f"  Paper: {_rst(row.paper_value)}. Ours: {_rst(row.our_value)}.")
        if row.note:
            lines.append(f"  Note: {_rst(row.note)}")
    return "\n".join(lines) + "\n"


def _rst(text: str) -> str:
    """Escape characters that reStructuredText would read as markup."""
    out = str(text)
    for char in ("\\", "*", "`", "|", "_"):
        out = out.replace(char, "\\" + char)
    return out
