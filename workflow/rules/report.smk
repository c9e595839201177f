# One self-contained HTML page: every target's figure beside its claims (paper
# value, ours, verdict). `snakemake --report results/report.html` shows it too.


rule report:
    input:
        claims="results/claims.csv",
        figures=all_figures("png"),
        sensitivity=sensitivity_tables(),
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
    conda:
        "../envs/schedsim.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        not_run=not_run(),
        lead=lead_targets(),
        code=SUMMARY_CODE,
    shell:
        "python -m schedsim.experiments summary --claims {input.claims}"
        " --not-run {params.not_run:q} --sensitivity {input.sensitivity}"
        " --lead {params.lead} --out {output} {input.figures} > {log} 2>&1"
