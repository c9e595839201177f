"""Print the claims (or sensitivity) table of one family as Markdown, for docs/results-*.md.

    python scripts/claims_markdown.py results/claims.csv --prefix HRF
    python scripts/claims_markdown.py results/tables/LOS-sensitivity.csv --sensitivity
"""

from __future__ import annotations

import argparse

import pandas as pd


def cell(text: object, limit: int) -> str:
    value = str(text).replace("|", "/").replace("\n", " ")
    return value if len(value) <= limit else value[: limit - 3] + "..."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("csv")
    parser.add_argument("--prefix", default="", help="only targets starting with this")
    parser.add_argument("--sensitivity", action="store_true")
    parser.add_argument("--width", type=int, default=400, help="longest cell")
    args = parser.parse_args()
    table = pd.read_csv(args.csv, keep_default_na=False)
    if args.sensitivity:
        print("| claim | reading | verdict | changed | ours |")
        print("|---|---|---|---|---|")
        for row in table.itertuples(index=False):
            print(f"| {row.claim_id} | {row.reading} | {row.verdict} | "
                  f"{'yes' if str(row.changed) == 'True' else ''} | "
                  f"{cell(row.our_value, args.width)} |")
        return
    table = table[table["target"].str.startswith(args.prefix)]
    print("| claim | paper | ours | verdict | rule |")
    print("|---|---|---|---|---|")
    for row in table.itertuples(index=False):
        print(f"| {row.claim_id} | {cell(row.paper_value, args.width)} | "
              f"{cell(row.our_value, args.width)} | {row.verdict} | {cell(row.rule, 80)} |")
    counts = table["verdict"].value_counts()
    print()
    print(", ".join(f"{v} {k}" for k, v in counts.items()))


if __name__ == "__main__":
    main()
