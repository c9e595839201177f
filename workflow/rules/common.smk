# Config validation, the plan of every enabled family, helpers and wildcard
# constraints. No rules here.

import functools
import sys
from pathlib import Path

from snakemake.utils import validate

# Plan with the repository's own package (the jobs run the same code, see
# shell.prefix below).
sys.path.insert(0, str(Path(workflow.basedir) / "src"))
from schedsim.experiments import common as experiments  # noqa: E402

validate(config, "../schemas/config.schema.yaml")

# Relative trace paths (`traces:`) are read from the repository root.
PLAN = experiments.build_plan(config, base=workflow.basedir)
SRC = Path(workflow.basedir) / "src" / "schedsim"


# Every job runs the repository's own package, the code hashed below, whether
# or not (or wherever) it is installed: src/ first on PYTHONPATH, and the
# `schedsim` command as `python -m schedsim.cli`.
# (Snakemake formats the prefix like a command: braces are doubled.)
shell.prefix(
    "set -euo pipefail; "
    f'export PYTHONPATH="{SRC.parent}${{{{PYTHONPATH:+:$PYTHONPATH}}}}"; '
    'schedsim() {{ python -m schedsim.cli "$@"; }}; '
)


# Code versions (params of the rules, so a change reruns what depends on it):
# a simulation depends on the files its policy, its workload model and the point
# runner import (static import closure), a workload on its model and the
# `schedsim` command; aggregation, figures and claims on the whole package
# (they are cheap). See config/README.md, "Reruns".
ANALYSIS_CODE = experiments.code_version(SRC)


@functools.cache
def simulation_code(policy, model):
    return experiments.simulation_code_version(SRC, policy, model)


@functools.cache
def workload_code_of_model(model):
    return experiments.workload_code_version(SRC, model)


wildcard_constraints:
    family="[a-z]+",
    variant="[A-Za-z0-9_.-]+",
    seed="[0-9]+",
    ext="swf|cwf",
    target="[A-Z]+-[A-Z0-9]+",
    policy="[A-Za-z0-9_+-]+",
    point="[A-Za-z0-9_.+-]+",
    tuned="tuned",


# ---------------------------------------------------------------- workloads


def workload_entry(wildcards):
    path = "results/workloads/{}/{}/seed{}.{}".format(
        wildcards.family, wildcards.variant, wildcards.seed, wildcards.ext
    )
    if path not in PLAN.workloads:
        raise ValueError(f"{path} is not a workload of the configured families")
    return PLAN.workloads[path]


def workload_model(wildcards):
    return workload_entry(wildcards)["model"]


def workload_jobs(wildcards):
    return workload_entry(wildcards)["jobs"]


def workload_code(wildcards):
    return workload_code_of_model(workload_model(wildcards))


def workload_args(wildcards):
    params = workload_entry(wildcards)["params"]
    return " ".join(f"--param {key}={value}" for key, value in params.items())


# ---------------------------------------------------------------- simulations


def run_path(wildcards):
    """The run a `simulate` or `simulate_tuned` job makes (the latter has a `tuned`
    wildcard: runs whose parameters are read from another target's table)."""
    folder = f"results/runs/{wildcards.target}/{wildcards.policy}"
    if "tuned" in wildcards.keys():
        folder = f"{folder}/{wildcards.tuned}"
    return f"{folder}/{wildcards.point}.parquet"


def point_entry(wildcards):
    path = run_path(wildcards)
    if path not in PLAN.points:
        raise ValueError(f"{path} is not a point of the configured targets")
    return PLAN.points[path]


def point_workloads(wildcards):
    """Workload files (or the trace) of a point, and the tables its derived
    parameters are read from (e.g. a load sweep's best C_s)."""
    entry = point_entry(wildcards)
    tables = [rule["table"] for rule in entry.get("derived", {}).values()]
    return list(dict.fromkeys([*entry["workloads"].values(), *tables]))


def point_code(wildcards):
    entry = point_entry(wildcards)
    return simulation_code(entry["policy"], entry["model"])


def point_spec(wildcards):
    return experiments.canonical_json(point_entry(wildcards))


# ---------------------------------------------------------------- targets


def target_runs(wildcards):
    return PLAN.runs_of[wildcards.target]


def target_spec(wildcards):
    return experiments.canonical_json(PLAN.targets[wildcards.target])


def target_family(wildcards):
    return PLAN.targets[wildcards.target]["family"]


def all_tables():
    return [f"results/tables/{target}.csv" for target in PLAN.targets]


def all_seed_tables():
    return [f"results/tables/{target}.seeds.csv" for target in PLAN.targets]


def all_figures(ext="png"):
    return [f"results/figures/{target}.{ext}" for target in PLAN.targets]


def all_captions():
    return [f"results/claims/{target}.rst" for target in PLAN.targets]


def claim_settings():
    return experiments.canonical_json(PLAN.claim_settings)


def all_outputs():
    return [
        *all_tables(),
        *all_figures("png"),
        *all_figures("pdf"),
        "results/claims.csv",
        "results/summary.html",
    ]
