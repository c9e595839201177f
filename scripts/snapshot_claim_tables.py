"""Copy the .test configuration's tables into tests/data/claim_tables/ (the shapes the
can-fail test of every claim builds its inputs from, tests/test_claims_can_fail.py).

    snakemake --cores 2 --configfile .test/config/config.yaml --directory .test
    python scripts/snapshot_claim_tables.py

Only the default reading's tables (no ``<target>@<reading>``) are copied; run it after a
change to the .test targets or to the columns a claim reads.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / ".test" / "results" / "tables"
TARGET = ROOT / "tests" / "data" / "claim_tables"


def main() -> int:
    tables = sorted(p for p in SOURCE.glob("*.csv")
                    if "@" not in p.name and not p.name.endswith("-sensitivity.csv"))
    if not tables:
        print(f"no tables in {SOURCE}: run the .test pipeline first", file=sys.stderr)
        return 2
    TARGET.mkdir(parents=True, exist_ok=True)
    for old in TARGET.glob("*.csv"):
        old.unlink()
    for table in tables:
        shutil.copy2(table, TARGET / table.name)
    print(f"{len(tables)} tables -> {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
