# Config validation, the plan of every enabled family, helpers and wildcard
# constraints. No rules here.

import functools
import os
import re
import shlex
import shutil
import sys
from pathlib import Path

import yaml

from snakemake.utils import validate

# Plan with the repository's own package (the jobs run the same code, see
# shell.prefix below).
sys.path.insert(0, str(Path(workflow.basedir) / "src"))
from schedsim.errors import InputError  # noqa: E402
from schedsim.experiments import provenance  # noqa: E402
from schedsim.experiments.configcheck import (  # noqa: E402
    config_problem,
    where_defined,
)
from schedsim.experiments.family import (  # noqa: E402
    CLAIMS,
    FIGURES,
    family_modules,
    get_family,
)
from schedsim.experiments.plan import build_plan  # noqa: E402
from schedsim.experiments.schedules import plan_schedules  # noqa: E402
from schedsim.experiments.schedules import to_json as schedule_json  # noqa: E402
from schedsim.experiments.spec import canonical_json, to_json  # noqa: E402
from schedsim.traces import TraceSettings  # noqa: E402

# The config files merged into `config`, each overriding the ones before it: the
# Snakefile's `configfile:`, then each --configfile.
OVERRIDES = [str(f) for f in workflow.overwrite_configfiles]
CONFIG_FILES = [str(f) for f in workflow.configfiles if str(f) not in OVERRIDES] + OVERRIDES


def config_error(problem, keys=()):
    """Stop with one line naming the config file(s) that set the offending key, and exit
    code 2 (as `schedsim`), without Snakemake's frame around it."""
    files = ", ".join(where_defined(keys, CONFIG_FILES)) if CONFIG_FILES else "--config"
    print(f"config {files}: {problem}", file=sys.stderr)
    sys.exit(2)


# Every schema error as one line with its key path and what is allowed (validation
# alone would print the schema); then validate() fills in the schema's defaults.
SCHEMA = Path(workflow.basedir) / "workflow" / "schemas" / "config.schema.yaml"
with open(SCHEMA, encoding="utf-8") as schema_file:
    PROBLEM = config_problem(config, yaml.safe_load(schema_file))
if PROBLEM:
    config_error(PROBLEM, PROBLEM.keys)
validate(config, "../schemas/config.schema.yaml")

# Relative trace paths (`traces:`) are read from the repository root. An unknown
# policy, parameter or value fails here, so `snakemake -n` reports it.
try:
    PLAN = build_plan(config, base=workflow.basedir)
except (InputError, ValueError) as err:
    config_error(err)
SRC = Path(workflow.basedir) / "src" / "schedsim"
TRACES = TraceSettings.of(config)
# One representative schedule per target that names one (`schedule:`), checked here.
try:
    SCHEDULES = plan_schedules(config, PLAN)
except (InputError, ValueError) as err:
    raise WorkflowError(f"config: {err}") from None


# Every job runs the repository's own package, the code hashed below, whether
# or not (or wherever) it is installed: src/ first on PYTHONPATH, and the
# `schedsim` command as `python -m schedsim.cli`.
# (Snakemake formats the prefix like a command: braces are doubled.)
shell.prefix(
    "set -euo pipefail; "
    f'export PYTHONPATH="{SRC.parent}${{{{PYTHONPATH:+:$PYTHONPATH}}}}"; '
    'schedsim() {{ python -m schedsim.cli "$@"; }}; '
)


# Code versions (params of the rules, so that a change of meaning reruns what
# depends on it): each rule depends on the syntax trees, docstrings removed, of
# the modules its entry points import (provenance.command_code): the command line,
# its command's module (experiments/commands/<command>.py) and what that command
# imports by name. A simulation's are its policy's module, its workload model's module
# and its family's measuring module; a workload batch's, its model's module; an
# aggregate's and a choice's, the target's family module; a figure's, the family
# module and its figures module; the claims', every family module and its claims
# module. So an edit of a figure reruns figures only, of a claim the claims only.
@functools.cache
def code_of(command, *modules):
    return provenance.command_code(command, modules)


def family_code(command, family, part=""):
    return code_of(command, *family_modules(get_family(family), part))


def claims_code():
    return code_of("claims", *(module for family in sorted(PLAN.modules)
                               for module in family_modules(get_family(family), CLAIMS)))


SUMMARY_CODE = code_of("summary")


wildcard_constraints:
    family="[a-z]+(@[a-z0-9-]+)?",
    variant="[A-Za-z0-9_.-]+",
    seed="[0-9]+",
    ext="swf|cwf",
    target="[A-Z]+-[A-Z0-9]+(@[a-z0-9-]+)?",
    policy="[A-Za-z0-9_+-]+",
    point="[A-Za-z0-9_.+-]+",
    file="[A-Za-z0-9_.+-]+",


# ---------------------------------------------------------------- workloads


# One job per workload batch: a family's variant, every seed file of it
# (results/workloads/<family>/<variant>/seed<N>.<ext>). A rule's outputs are fixed
# file names, so there is one rule per distinct seed set (workloads.smk), and the
# batch wildcard of each accepts only the batches with its seeds: a file has one rule.
BATCHES = PLAN.batches


def seeds_label(seeds):
    """A rule-name part for a seed set: (1,) -> seed1, (1, ..., 20) -> seeds1to20."""
    if len(seeds) == 1:
        return f"seed{seeds[0]}"
    if seeds == tuple(range(seeds[0], seeds[-1] + 1)):
        return f"seeds{seeds[0]}to{seeds[-1]}"
    return "seeds" + "_".join(str(s) for s in seeds)


def batch_rules():
    """Rule name -> (seeds, the pattern of the batch wildcard), one per seed set."""
    by_seeds = {}
    for name, batch in BATCHES.items():
        by_seeds.setdefault(batch.seeds, []).append(re.escape(name))
    return {f"generate_workloads_{seeds_label(seeds)}": (seeds, "|".join(names))
            for seeds, names in by_seeds.items()}


def batch_entry(wildcards):
    batch = BATCHES.get(wildcards.batch)
    if batch is None or batch.ext != wildcards.ext:
        raise ValueError(f"results/workloads/{wildcards.batch}/*.{wildcards.ext} "
                         "are not workloads of the configured families")
    return batch


def batch_inputs(wildcards):
    """The log the month files are cut from (nothing for generated workloads)."""
    batch = batch_entry(wildcards)
    return [batch.input] if batch.input else []


def batch_code(wildcards):
    return code_of("generate", provenance.model_module(batch_entry(wildcards).model))


def batch_spec(wildcards):
    return to_json(batch_entry(wildcards))


# ---------------------------------------------------------------- simulations


def point_entry(wildcards):
    path = f"results/runs/{wildcards.target}/{wildcards.policy}/{wildcards.point}.parquet"
    if path not in PLAN.points:
        raise ValueError(f"{path} is not a point of the configured targets")
    return PLAN.points[path]


def point_inputs(wildcards):
    """Workload files (or the trace) of a point, the chosen-parameter files it reads, and
    the run files of earlier points that run some of its simulations (experiments.reuse);
    a point that runs none itself needs only those."""
    point = point_entry(wildcards)
    reuse = PLAN.reuse.get(point.run_path)
    if reuse is None:
        return point.inputs
    return [*point.inputs, *reuse.sources] if reuse.simulates else list(reuse.sources)


def point_rows_from(wildcards):
    reuse = PLAN.reuse.get(point_entry(wildcards).run_path)
    return " ".join(f"--rows-from {source}" for source in reuse.sources) if reuse else ""


def point_code(wildcards):
    point = point_entry(wildcards)
    roots = [provenance.policy_module(point.policy), point.measure]
    if point.model != "trace":
        roots.append(provenance.model_module(point.model))
    return code_of("run-point", *roots)


def point_plugins(wildcards):
    """The policy of one's own a point runs (config `plugins:`), loaded by the job."""
    plugin = PLAN.plugins.get(point_entry(wildcards).policy)
    return f"--plugin {shlex.quote(plugin)}" if plugin else ""


def point_spec(wildcards):
    return to_json(point_entry(wildcards))


# ---------------------------------------------------------------- targets


def target_inputs(wildcards):
    return PLAN.inputs_of[wildcards.target]


def target_spec(wildcards):
    return to_json(PLAN.targets[wildcards.target])


def target_code(command, part=""):
    """The code version of a target's ``command`` (the rule's param, per target)."""
    return lambda wildcards: family_code(command, PLAN.targets[wildcards.target].family,
                                         part)


def all_tables():
    return [f"results/tables/{target}.csv" for target in PLAN.targets]


def all_seed_tables():
    return [f"results/tables/{target}.seeds.csv" for target in PLAN.targets]


def figure_targets():
    """Targets drawn in the report: the default reading's (not the sensitivity runs)."""
    return [target for target, spec in PLAN.targets.items() if not spec.reading]


def lead_targets():
    """The summary page's first figures: the cross-paper tables (family `cross`)."""
    return [target for target, spec in PLAN.targets.items()
            if spec.family == "cross" and spec.kind == "derived" and not spec.reading]


def all_figures(ext="png"):
    return [f"results/figures/{target}.{ext}" for target in figure_targets()]


def all_captions():
    return [f"results/claims/{target}.rst" for target in figure_targets()]


def sensitivity_tables():
    return [f"results/tables/{family.upper()}-sensitivity.csv" for family in PLAN.families]


def readings():
    return canonical_json({family: {name: {"about": r.about, "targets": dict(r.targets),
                                           "claims": dict(r.claims)}
                                    for name, r in found.items()}
                           for family, found in PLAN.readings.items()})


def all_chosen():
    return list(PLAN.choosing.values())


# ---------------------------------------------------------------- schedules


def schedule_entry(wildcards):
    if wildcards.target not in SCHEDULES:
        raise ValueError(f"{wildcards.target} has no representative schedule (schedule:)")
    return SCHEDULES[wildcards.target]


def schedule_inputs(wildcards):
    """The point's workload files (or log) and the chosen-parameter files it reads."""
    return schedule_entry(wildcards).inputs


def schedule_spec(wildcards):
    return schedule_json(schedule_entry(wildcards))


def schedule_code(wildcards):
    point = schedule_entry(wildcards).point
    roots = [provenance.policy_module(point.policy)]
    if point.model != "trace":
        roots.append(provenance.model_module(point.model))
    return code_of("schedule", *roots)


def all_schedules():
    return [spec.png for target, spec in SCHEDULES.items() if target in figure_targets()]


def schedule_captions():
    return canonical_json({target: spec.caption() for target, spec in SCHEDULES.items()})


def table_targets():
    """Targets whose figure is their table: the summary page shows the table itself."""
    return [f"results/tables/{target}.csv" for target in figure_targets()
            if PLAN.targets[target].figure.name == "table"]


def fetched_log(wildcards):
    """The configured log whose download path is resources/traces/{file}: one this run
    fetches, or one an earlier run fetched (Snakemake still makes a job for that file
    to check it)."""
    path = f"resources/traces/{wildcards.file}"
    known = {log.download_path: log for log in TRACES.logs.values()}
    if path not in known:
        raise ValueError(f"{path} is not the download path of a log under traces.logs; "
                         f"known: {', '.join(sorted(known)) or '(none)'}")
    return known[path]


def not_run():
    return canonical_json(PLAN.not_run)


def from_root(path):
    """``path`` relative to the repository root when it is inside it, else absolute."""
    relative = os.path.relpath(os.path.abspath(path), workflow.basedir)
    return os.path.abspath(path) if relative.startswith("..") else relative


RUN_DIR = from_root(os.getcwd())  # the working directory (--directory)


def report_not_run():
    """One short line per target not run (the claims keep the whole reason)."""
    for target in PLAN.not_run:
        logs = PLAN.missing_logs.get(target) or [""]
        config = where_defined(("traces", "logs", logs[0]), CONFIG_FILES)[0] \
            if CONFIG_FILES else "CONFIG"
        line = PLAN.not_run_line(target, from_root(config), "" if RUN_DIR == "." else RUN_DIR)
        print(line, file=sys.stderr)


def claim_settings():
    return canonical_json(PLAN.claim_settings)


def family_modules_json():
    """Each family's module (the claims command imports it, and its claims module)."""
    return canonical_json(PLAN.modules)


def all_outputs():
    return [
        *all_tables(),
        *all_figures("png"),
        *all_figures("pdf"),
        *all_chosen(),
        "results/claims.csv",
        *sensitivity_tables(),
        *all_schedules(),
        "results/summary.html",
    ]


STEP_WORKER = []  # the running step worker, if any (schedsim.experiments.worker)


def prepare_local_run():
    """For a local run: no job rate limit, and the step worker started, its socket
    exported to the steps."""
    from schedsim.experiments import worker

    if not (workflow.is_main_process and workflow.local_exec):
        return
    # Snakemake's job rate limiter (--max-jobs-per-timespan, default 100/1s) arms a
    # one-second timer in every scheduling round that ends waiting, and each timer's
    # round arms another: after N finished jobs the scheduler runs about N rounds a
    # second (the full reproduction: about 500,000 rounds and 300 s of Snakemake's own
    # CPU by its 722nd job). A local run has nothing to throttle.
    if getattr(workflow.scheduler, "job_rate_limiter", None) is not None:
        workflow.scheduler.job_rate_limiter = None
    if workflow.deployment_settings.deployment_method:  # conda, containers: their own
        return
    if not worker.AVAILABLE:
        return  # not Linux: every step in its own process, as before
    python = shutil.which("python")
    if python is None:
        return  # the steps' own `python` fails and says so
    STEP_WORKER.append(worker.start(python, Path("logs/worker.log")))
    os.environ[worker.SOCKET_VARIABLE] = STEP_WORKER[0].socket


def stop_step_worker():
    from schedsim.experiments import worker

    while STEP_WORKER:
        STEP_WORKER.pop().stop()
    os.environ.pop(worker.SOCKET_VARIABLE, None)
