"""Run the pipeline on two commits and compare their results file by file.

    python scripts/compare_commits.py OLD NEW                 # the .test configuration
    python scripts/compare_commits.py OLD NEW --full results/tables/HRF-F6.csv ...

Each commit is checked out with ``git worktree`` into a scratch directory beside
the repository (so that a config's relative trace paths resolve as they do in the
repository), and the pipeline runs there with the snakemake of this environment.
``NEW`` may be ``WORKTREE``: the current working tree, uncommitted changes
included (copied, not checked out).

Compared: ``results/workloads/**`` (bytes), ``results/tables/**`` (bytes),
``results/claims.csv`` (bytes) and ``results/runs/**`` (parquet column names,
types and values, NaN equal to NaN; the provenance metadata, which names the
commit and the code version, is ignored). Run files that an older layout kept
under ``<policy>/tuned/`` are matched by their path without that folder. Exit code
0 when everything is identical, 1 otherwise.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRATCH = REPO.parent / ".schedsim-compare"
COMPARED = ("results/workloads", "results/tables", "results/runs", "results/claims.csv")


def checkout(rev: str, name: str) -> Path:
    """A worktree of ``rev`` (or a copy of the working tree) at SCRATCH/name/repo."""
    home = SCRATCH / name
    target = home / "repo"
    if target.exists():
        subprocess.run(["git", "worktree", "remove", "--force", str(target)], cwd=REPO,
                       check=False, capture_output=True)
        shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    shared = REPO.parent / "shared"
    if shared.exists():
        (home / "shared").symlink_to(shared)
    if rev == "WORKTREE":
        files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO,
                               check=True, capture_output=True, text=True).stdout.split()
        for rel in files:
            if (REPO / rel).is_file():
                (target / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(REPO / rel, target / rel)
    else:
        subprocess.run(["git", "worktree", "add", "--detach", str(target), rev], cwd=REPO,
                       check=True, capture_output=True)
    return target


def run_pipeline(tree: Path, full: list[str] | None) -> Path:
    """Run snakemake in ``tree``; return the directory holding ``results/``."""
    snakemake = str(Path(sys.executable).with_name("snakemake"))
    if full is None:
        command = [snakemake, "--cores", "2", "--configfile", ".test/config/config.yaml",
                   "--directory", ".test"]
        workdir = tree / ".test"
    else:
        command = [snakemake, "--cores", "2", *full]
        workdir = tree
    print(f"[{tree.parent.name}] {' '.join(command[1:])}", flush=True)
    done = subprocess.run(command, cwd=tree, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"snakemake failed in {tree}:\n{done.stderr[-3000:]}")
    return workdir


def files_of(root: Path) -> dict[str, Path]:
    out = {}
    for name in COMPARED:
        base = root / name
        paths = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
        for path in paths:
            rel = path.relative_to(root).as_posix()
            out[rel.replace("/tuned/", "/")] = path
    return out


def same(a: Path, b: Path) -> bool:
    if a.suffix != ".parquet":
        return a.read_bytes() == b.read_bytes()
    import pyarrow.parquet as pq

    first, second = pq.read_table(a), pq.read_table(b)
    if first.schema.remove_metadata() != second.schema.remove_metadata():
        return False
    return first.to_pandas().equals(second.to_pandas())  # NaN equals NaN here


def compare(old: Path, new: Path) -> int:
    """Print what differs between two result trees; 0 when nothing does."""
    before, after = files_of(old), files_of(new)
    only_old = sorted(set(before) - set(after))
    only_new = sorted(set(after) - set(before))
    differ = sorted(k for k in set(before) & set(after) if not same(before[k], after[k]))
    identical = len(set(before) & set(after)) - len(differ)
    print(f"{identical} files identical; {len(differ)} differ; {len(only_old)} only in the old "
          f"run; {len(only_new)} only in the new run")
    for title, names in (("differ", differ), ("only old", only_old), ("only new", only_new)):
        for name in names[:50]:
            print(f"  {title}: {name}")
    return 0 if not (differ or only_old or only_new) else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", help="commit (or ref) of the first run")
    parser.add_argument("new", help="commit (or ref) of the second run, or WORKTREE")
    parser.add_argument("--compare-only", action="store_true",
                        help="compare the results of the last runs without running again")
    parser.add_argument("--full", nargs="+", metavar="OUTPUT",
                        help="run the full config/config.yaml for these outputs instead of "
                             "the .test configuration")
    args = parser.parse_args()
    if args.compare_only:
        sub = "" if args.full else ".test"
        return compare(*(SCRATCH / name / "repo" / sub for name in ("old", "new")))
    roots = [run_pipeline(checkout(rev, name), args.full)
             for rev, name in ((args.old, "old"), (args.new, "new"))]
    return compare(*roots)


if __name__ == "__main__":
    raise SystemExit(main())
