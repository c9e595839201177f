"""The verdict tables of the documents, generated from a snapshot of the full run's claims.

``docs/verdicts/`` holds copies of the full configuration's ``results/claims.csv`` and
``results/tables/<FAMILY>-sensitivity.csv``, and ``changes.csv``: per claim, its verdict
at commit 212151e (``new`` for a claim added since) and why it is what it is now. A
document marks each generated block::

    <!-- generated: verdicts hrf -->
    ...
    <!-- end generated -->

Blocks: ``verdicts FAMILY`` (one row per claim: paper, ours, verdict, what decided it),
``counts FAMILY`` (the counts now and at 212151e, and the share "reproduced, or explained
by a named reading" of claims.md), ``changes FAMILY`` (every claim whose verdict is not
its verdict at 212151e, and why), ``sensitivity FAMILY`` (each claim's verdict under each
reading) and ``claims TARGET`` (the registered claims of a target: statement and the
paper's value, for docs/reproduction.md).

    python -m schedsim.verdict_docs                      # rewrite the blocks of docs/*.md
    python -m schedsim.verdict_docs --check              # exit 1 and name the stale blocks
    python -m schedsim.verdict_docs --snapshot results   # first copy a full run's CSVs

So the documents say what the tables say: after a full run, ``--snapshot results``
copies its claims and sensitivity tables and rewrites every block.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from schedsim.claims import DEFAULT_READING, VERDICTS, explained_share

if TYPE_CHECKING:
    import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SNAPSHOT = DOCS / "verdicts"
FAMILIES = ("hrf", "los", "goal", "ihap", "slack")
BEFORE = "212151e"
NEW = "new"
CELL = 300  # longest cell of a generated table, in characters
BLOCK = re.compile(r"(<!-- generated: (\w+) ([\w@.-]+) -->\n)(.*?)(<!-- end generated -->)",
                   re.DOTALL)


class Snapshot:
    """The committed claims, sensitivity tables and changes of the full run."""

    def __init__(self, directory: Path = SNAPSHOT) -> None:
        import pandas as pd

        def read(name: str) -> pd.DataFrame:
            return pd.read_csv(directory / name, keep_default_na=False)

        self.claims = read("claims.csv")
        self.sensitivity = {family: read(f"{family.upper()}-sensitivity.csv")
                            for family in FAMILIES
                            if (directory / f"{family.upper()}-sensitivity.csv").is_file()}
        self.changes = read("changes.csv")

    def family(self, family: str) -> pd.DataFrame:
        return self.claims[self.claims["target"].str.split("-").str[0] == family.upper()]

    def before(self, family: str) -> dict[str, str]:
        rows = self.changes[self.changes["family"] == family]
        return dict(zip(rows["claim_id"], rows["before"], strict=True))

    def why(self, family: str) -> dict[str, str]:
        rows = self.changes[self.changes["family"] == family]
        return dict(zip(rows["claim_id"], rows["why"], strict=True))


def cell(text: object, limit: int | None = CELL) -> str:
    value = " ".join(str(text).split()).replace("|", "/")
    return value if limit is None or len(value) <= limit else value[: limit - 4].rstrip() + " ..."


def table(heads: Sequence[str], rows: Iterable[Sequence[object]],
          whole: Sequence[str] = ()) -> str:
    """A Markdown table; cells are cut at CELL characters except in the ``whole`` columns."""
    limits = [None if head in whole else CELL for head in heads]
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    lines += ["| " + " | ".join(cell(v, limit) for v, limit in zip(row, limits, strict=True))
              + " |" for row in rows]
    return "\n".join(lines) + "\n"


def counts_text(verdicts: Iterable[str]) -> str:
    found = list(verdicts)
    return f"{len(found)} claims: " + ", ".join(f"{found.count(v)} {v}" for v in VERDICTS)


def verdicts_block(snap: Snapshot, family: str) -> str:
    rows = snap.family(family)
    return table(("claim", "target", "paper", "ours", "verdict", "what decided it"),
                 ((r.claim_id, r.target, r.paper_value, r.our_value, f"**{r.verdict}**",
                   r.note) for r in rows.itertuples(index=False)))


def counts_block(snap: Snapshot, family: str) -> str:
    rows = snap.family(family)
    before = [v for v in snap.before(family).values() if v != NEW]
    share = explained_share(rows, [snap.sensitivity[family]] if family in snap.sensitivity
                            else [])
    return (f"Now: {counts_text(rows['verdict'])}.\n\n"
            f"At {BEFORE}: {counts_text(before)}.\n\n"
            f"Share (claims.md, \"Explained\"): {share.text()}.\n")


def changes_block(snap: Snapshot, family: str) -> str:
    before, why = snap.before(family), snap.why(family)
    rows = [(r.claim_id, before.get(r.claim_id, "?"), r.verdict, why.get(r.claim_id, ""))
            for r in snap.family(family).itertuples(index=False)
            if before.get(r.claim_id) != r.verdict]
    return table(("claim", f"at {BEFORE}", "now", "why"), rows, whole=("why",))


def sensitivity_block(snap: Snapshot, family: str) -> str:
    data = snap.sensitivity.get(family)
    if data is None or data.empty:
        return "No reading of this family reruns a claim's target.\n"
    readings = [r for r in dict.fromkeys(data["reading"]) if r != DEFAULT_READING]
    rows = []
    for (_target, claim_id), part in data.groupby(["target", "claim_id"], sort=False):
        found = dict(zip(part["reading"], part["verdict"], strict=True))
        default = found.get(DEFAULT_READING, "")
        rows.append((claim_id, default, *(_mark(found.get(r, ""), default) for r in readings)))
    return ("Bold: the verdict differs from the default reading's; empty: the reading does "
            "not rerun the claim's target.\n\n"
            + table(("claim", DEFAULT_READING, *readings), rows))


def _mark(verdict: str, default: str) -> str:
    return f"**{verdict}**" if verdict and verdict != default else verdict


def claims_block(target: str) -> str:
    from schedsim import claims
    from schedsim.experiments.family import CLAIMS, get_family, load_part

    family = target.split("-")[0].lower()
    load_part(get_family(family), CLAIMS)  # registers its claims
    found = [c for c in claims.registered(family) if c.target == target]
    if not found:
        return "No claim of its own: it feeds other targets.\n"
    return table(("claim", "statement", "the paper"),
                 ((c.claim_id, c.statement, c.paper_value) for c in found),
                 whole=("statement", "the paper"))


BLOCKS: dict[str, Callable[..., str]] = {"verdicts": verdicts_block, "counts": counts_block,
                                         "changes": changes_block,
                                         "sensitivity": sensitivity_block}


def render(text: str, snap: Snapshot | None) -> str:
    """``text`` with every generated block rewritten."""
    def fill(match: re.Match[str]) -> str:
        kind, arg = match.group(2), match.group(3)
        if kind == "claims":
            body = claims_block(arg)
        elif kind in BLOCKS:
            if snap is None:
                raise ValueError(f"block {kind} {arg} needs the snapshot in docs/verdicts")
            body = BLOCKS[kind](snap, arg)
        else:
            raise ValueError(f"unknown generated block {kind!r} (known: claims, "
                             f"{', '.join(BLOCKS)})")
        return f"{match.group(1)}\n{body}\n{match.group(5)}"

    return BLOCK.sub(fill, text)


def documents(docs: Path = DOCS) -> list[Path]:
    return sorted(p for p in docs.glob("*.md") if "<!-- generated:" in p.read_text())


def copy_snapshot(results: Path, directory: Path = SNAPSHOT) -> None:
    """Copy a full run's claims.csv and sensitivity tables into ``directory``."""
    shutil.copy2(results / "claims.csv", directory / "claims.csv")
    for family in FAMILIES:
        source = results / "tables" / f"{family.upper()}-sensitivity.csv"
        if source.is_file():
            shutil.copy2(source, directory / source.name)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 if stale")
    parser.add_argument("--snapshot", type=Path, help="a full run's results/ to copy first")
    args = parser.parse_args(argv)
    if args.snapshot:
        copy_snapshot(args.snapshot)
    snap = Snapshot() if (SNAPSHOT / "claims.csv").is_file() else None
    stale = []
    for path in documents():
        text = path.read_text(encoding="utf-8")
        new = render(text, snap)
        if new != text:
            stale.append(path.relative_to(ROOT))
            if not args.check:
                path.write_text(new, encoding="utf-8")
    if args.check and stale:
        print("stale generated blocks in: " + ", ".join(map(str, stale)) +
              " (python -m schedsim.verdict_docs rewrites them)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
