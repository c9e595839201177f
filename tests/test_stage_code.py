"""Each stage's code version covers the code its job runs, and not other stages' code.

The workflow gives every job the code version of its command (provenance.command_code,
the ``code`` param of the rules in workflow/rules/common.smk): the command line, the
command's module (experiments/commands/<command>.py) and what the command imports by
name (the family's module and the part of it the stage runs, a policy, a workload model,
a measure). Here each stage runs once, as its rule runs it, on the tiny .test config,
and the package modules its process imported are compared with the files its code
version hashes. Then single edits, in a copy of the package, change the code versions
of exactly the stages that run the edited module. The whole workflow's reruns after such
edits: tests/test_workflow.py (test_an_edit_reruns_only_the_stages_that_run_it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from schedsim.experiments import provenance
from schedsim.experiments.family import CLAIMS, FIGURES, family_modules, get_family
from schedsim.experiments.plan import build_plan
from schedsim.experiments.schedules import plan_schedules
from schedsim.experiments.schedules import to_json as schedule_json
from schedsim.experiments.spec import canonical_json, to_json
from schedsim.sources import PACKAGE_DIR, module_path
from schedsim.workloads.base import MODEL_MODULES

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / ".test" / "config" / "config.yaml"
FAMILIES = ("cross", "goal", "hrf", "ihap", "los", "slack")
# ``python -m schedsim.experiments ARGS``, which then writes the package modules it
# imported (at exit, whatever the command did) to $IMPORTED.
RUN_AND_RECORD = """
import atexit, json, os, runpy, sys

def record():
    names = sorted(n for n in sys.modules if n.split(".")[0] == "schedsim")
    with open(os.environ["IMPORTED"], "w") as out:
        json.dump(names, out)

atexit.register(record)
sys.argv = ["python -m schedsim.experiments", *sys.argv[1:]]
runpy.run_module("schedsim.experiments", run_name="__main__", alter_sys=True)
"""
# Files that hold one stage's code (or the planner's): a job may hash one of them only
# if it ran it.
STAGE_CODE = ("experiments/commands/*.py", "experiments/families/*_claims.py",
              "experiments/families/*_figures.py", "experiments/families/*_measure.py",
              "plots.py", "gantt.py", "claims.py", "summary.py", "aggregate.py",
              "experiments/generate.py", "experiments/run.py", "experiments/schedules.py",
              "experiments/plan.py", "experiments/kinds.py", "experiments/configcheck.py")
# What a hash may hold beyond what the job imported (package __init__ files aside): code
# on paths the job did not take, behind imports inside functions. The largest is the
# HRF family module's worked example (HRF-T1's table and a T1 claim run the engine and
# the moldable policy: 24 modules) in every HRF table, figure and claims job. Before the
# stages were split, cli.py's imports put 36 to 46 modules more than their jobs ran into
# the aggregate, figure and claims jobs' hashes.
MAX_UNRUN = 30


@dataclass(frozen=True)
class Job:
    """One stage's run: the package modules it imported, and its code version's entry
    points (as workflow/rules/common.smk gives them)."""

    imported: frozenset[str]
    command: str
    modules: tuple[str, ...]

    def hashed(self) -> set[str]:
        entries = provenance.command_entry_points(self.command, self.modules)
        return relative(provenance.import_closure(PACKAGE_DIR, entries))

    def ran(self) -> set[str]:
        return relative(path for name in self.imported
                        if (path := module_path(PACKAGE_DIR, name)) is not None)


def relative(paths: Iterable[Path]) -> set[str]:
    return {path.relative_to(PACKAGE_DIR).as_posix() for path in paths}


def run(work: Path, command: str, modules: Iterable[str], *args: str) -> Job:
    """Run ``command`` with ``args`` in ``work`` as its rule does (in its own process, no
    step worker); ``modules``: what it imports by name, as its rule's code version has
    them."""
    imported = work / "imported.json"
    env = {k: v for k, v in os.environ.items() if k != "SCHEDSIM_WORKER"}
    env.update(PYTHONPATH=str(PACKAGE_DIR.parent), IMPORTED=str(imported))
    result = subprocess.run([sys.executable, "-c", RUN_AND_RECORD, command, *args], cwd=work,
                            env=env, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    return Job(frozenset(json.loads(imported.read_text())), command, tuple(modules))


@pytest.fixture(scope="module")
def jobs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Job]:
    """Every stage once on HRF-F5 (the light load's point of HRFBf, its table, figure,
    claims and representative schedule), and LOS-CS20's choice from a small table."""
    work = tmp_path_factory.mktemp("stages")
    config = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    plan = build_plan(config, base=ROOT)
    hrf = get_family("hrf")
    target = to_json(plan.targets["HRF-F5"])
    point = plan.points["results/runs/HRF-F5/HRFBf/light_threshold0.9.parquet"]
    schedule = plan_schedules(config, plan)["HRF-F5"]
    policy = provenance.policy_module(point.policy)
    model = provenance.model_module(point.model)
    out: dict[str, Job] = {}
    for batch in plan.batches.values():
        if set(batch.paths) & {*point.inputs, *schedule.inputs}:
            out["generate"] = run(work, "generate", [model], "--spec", to_json(batch))
    out["run-point"] = run(work, "run-point", [policy, point.measure, model],
                           "--spec", to_json(point), "--out", point.run_path)
    table, seeds = "results/tables/HRF-F5.csv", "results/tables/HRF-F5.seeds.csv"
    out["aggregate"] = run(work, "aggregate", family_modules(hrf), "--spec", target,
                           "--out", table, "--seeds-out", seeds, point.run_path)
    out["figure"] = run(work, "figure", family_modules(hrf, FIGURES), "--spec", target,
                        "--table", table, "--seeds", seeds, "--png", "HRF-F5.png",
                        "--pdf", "HRF-F5.pdf")
    out["claims"] = run(work, "claims", family_modules(hrf, CLAIMS),
                        "--modules", canonical_json({"hrf": plan.modules["hrf"]}),
                        "--out", "claims.csv", "--captions", "captions",
                        "--sensitivity-dir", ".", table, seeds)
    out["schedule"] = run(work, "schedule", [policy, model], "--spec", schedule_json(schedule),
                          "--swf", "HRF-F5.swf", "--png", "HRF-F5.schedule.png")
    out["summary"] = run(work, "summary", [], "--claims", "claims.csv", "--sensitivity",
                         "HRF-sensitivity.csv", "--out", "summary.html", "HRF-F5.png")
    choosing = plan.targets["LOS-CS20"]
    rule = choosing.choose
    assert rule is not None
    (work / "cs.csv").write_text(f"policy,{rule.param},{rule.metric}_mean\n" + "".join(
        f"{rule.policy},{value},{10 - value}\n" for value in (1, 2, 3)))
    out["choose"] = run(work, "choose", family_modules(get_family("los")),
                        "--spec", to_json(choosing), "--table", "cs.csv", "--out", "chosen.json")
    return out


STAGES = ("generate", "run-point", "aggregate", "choose", "figure", "claims", "schedule",
          "summary")


def by_name_lookups() -> set[str]:
    """The workload models a job imports to find its own by name
    (``workloads.base.all_models``): their definitions are registered, none of their code
    runs, and a job's hash covers only its own model's (as before this split)."""
    return relative(provenance.import_closure(PACKAGE_DIR, MODEL_MODULES))


@pytest.mark.parametrize("name", STAGES)
def test_a_job_runs_only_code_its_version_covers(jobs: dict[str, Job], name: str) -> None:
    job = jobs[name]
    hashed = job.hashed()
    missing = job.ran() - hashed - by_name_lookups()
    assert not missing, f"{name} ran code its code version does not cover: {sorted(missing)}"
    assert {f"experiments/commands/{name.replace('-', '_')}.py",
            "experiments/cli.py"} <= job.ran()


@pytest.mark.parametrize("name", STAGES)
def test_a_code_version_covers_little_more_than_its_job_runs(jobs: dict[str, Job],
                                                             name: str) -> None:
    job = jobs[name]
    unrun = {path for path in job.hashed() - job.ran() if not path.endswith("__init__.py")}
    others = {path for path in unrun if any(Path(path).match(glob) for glob in STAGE_CODE)}
    assert not others, f"{name} hashes other stages' code it does not run: {sorted(others)}"
    assert len(unrun) <= MAX_UNRUN, f"{name} hashes {len(unrun)} modules it did not import"


# ----------------------------------------------------------------------------- edits


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the package whose modules the edit tests change."""
    copy = tmp_path_factory.mktemp("package") / PACKAGE_DIR.name
    shutil.copytree(PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def code_versions(root: Path) -> dict[str, str]:
    """The code version of a job of every stage, as workflow/rules/common.smk computes
    them, over the package at ``root``."""
    hrf, los = get_family("hrf"), get_family("los")
    policy = provenance.policy_module("HRFBf")
    model = provenance.model_module("cirne01")
    claims = [m for family in FAMILIES for m in family_modules(get_family(family), CLAIMS)]
    entries = {
        "generate": ("generate", (model,)),
        "run-point": ("run-point", (policy, hrf.measure, model)),
        "aggregate": ("aggregate", family_modules(hrf)),
        "choose": ("choose", family_modules(los)),
        "figure": ("figure", family_modules(hrf, FIGURES)),
        "figure of LOS": ("figure", family_modules(los, FIGURES)),
        "claims": ("claims", claims),
        "schedule": ("schedule", (policy, model)),
        "summary": ("summary", ()),
    }
    return {name: provenance.command_code(command, modules, root)
            for name, (command, modules) in entries.items()}


ALL = frozenset(code_versions(PACKAGE_DIR))


@pytest.mark.parametrize(("module", "changed"), [
    # the plotting code: figures, and the schedules' pictures (gantt.py draws with it)
    ("plots.py", {"figure", "figure of LOS", "schedule"}),
    # the judging of claims: the claims, and the summary's share of explained verdicts
    ("claims.py", {"claims", "summary"}),
    ("experiments/families/hrf_claims.py", {"claims"}),
    ("experiments/families/hrf_figures.py", {"figure"}),
    ("experiments/families/los.py", {"choose", "figure of LOS", "claims"}),
    ("experiments/commands/aggregate.py", {"aggregate"}),
    ("experiments/commands/figure.py", {"figure", "figure of LOS"}),
    ("aggregate.py", {"aggregate", "claims"}),  # (the claims command writes with it)
    ("experiments/cli.py", ALL),  # every job's command line
])
def test_an_edit_changes_the_code_version_of_the_stages_that_run_it(
        package: Path, module: str, changed: set[str]) -> None:
    path = package / module
    original = path.read_text(encoding="utf-8")
    before = code_versions(package)
    try:
        path.write_text(original + "\n_CHANGED = 1\n", encoding="utf-8")
        after = code_versions(package)
    finally:
        path.write_text(original, encoding="utf-8")
    assert {name for name in before if before[name] != after[name]} == changed
    assert code_versions(package) == before
