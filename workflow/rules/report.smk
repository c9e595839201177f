# One self-contained HTML page: an overview of the verdicts per family, a table of
# contents, then every target's figure (a table target's table), its representative
# schedule and its claims (paper value, ours, verdict), linked to the sensitivity rows.
# `snakemake --report results/report.html` shows the figures and schedules too.


rule report:
    input:
        claims="results/claims.csv",
        figures=all_figures("png"),
        sensitivity=sensitivity_tables(),
        tables=table_targets(),
        schedules=all_schedules(),
    output:
        report(
            "results/summary.html",
            caption="../report/summary.rst",
            category="Claims",
        ),
    log:
        "logs/report/report.log",
    benchmark:
        "results/benchmarks/report/report.tsv"
    localrule: True
    threads: 2  # it ends the run: the pictures reduced on two processes
    conda:
        "../envs/schedsim.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        not_run=not_run(),
        lead=lead_targets(),
        captions=schedule_captions(),
        code=SUMMARY_CODE,
    shell:
        "python -m schedsim.experiments summary --claims {input.claims}"
        " --not-run {params.not_run:q} --sensitivity {input.sensitivity}"
        " --tables {input.tables} --schedules {input.schedules}"
        " --schedule-captions {params.captions:q} --lead {params.lead}"
        " --processes {threads} --out {output} {input.figures} > {log} 2>&1"
