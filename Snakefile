# The reproduction workflow: `snakemake` regenerates every enabled target of the
# configured paper families (tables, figures with 95% CIs, claims, report).
# Layout and conventions: workflow/rules/*.smk, config/README.md.

import atexit

from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/traces.smk"
include: "workflow/rules/workloads.smk"
include: "workflow/rules/simulate.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/schedules.smk"
include: "workflow/rules/claims.smk"
include: "workflow/rules/report.smk"


# Short, local steps: never sent to a cluster (profiles/slurm groups the rest).
localrules:
    all,
    aggregate,
    choose,
    fetch_trace,
    figure,
    schedule,
    claims,
    report,


rule all:
    default_target: True
    input:
        all_outputs(),


# Targets that need a real log that is neither found nor fetchable are left out;
# their claims say so. They are the last lines of a run and of a dry run (printed at
# exit, after Snakemake's own closing lines; not by the jobs a cluster runs).
if workflow.is_main_process:
    atexit.register(report_not_run)


# A local run has no job rate limit and hands every step to one worker process that has
# imported the package once (schedsim.experiments.worker; docs/performance-pipeline.md);
# a cluster, a conda or container deployment and --no-hooks run each step in its own
# process.
onstart:
    prepare_local_run()


onsuccess:
    stop_step_worker()


onerror:
    stop_step_worker()
