# Every claim of the enabled families, checked on the aggregated tables, plus one
# reStructuredText snippet per target that the figure captions include.


rule claims:
    input:
        tables=all_tables(),
        seeds=all_seed_tables(),
    output:
        csv=report(
            "results/claims.csv",
            caption="../report/claims.rst",
            category="Claims",
        ),
        captions=all_captions(),
        sensitivity=report(
            sensitivity_tables(),
            caption="../report/sensitivity.rst",
            category="Claims",
        ),
    log:
        "logs/claims/claims.log",
    benchmark:
        "results/benchmarks/claims/claims.tsv"
    localrule: True
    threads: 2  # it ends the run: the families' judgements on two processes
    conda:
        "../envs/schedsim.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        modules=family_modules_json(),
        settings=claim_settings(),
        not_run=not_run(),
        readings=readings(),
        code=claims_code(),
    shell:
        "python -m schedsim.experiments claims --modules {params.modules:q}"
        " --settings {params.settings:q} --not-run {params.not_run:q}"
        " --readings {params.readings:q} --sensitivity-dir results/tables"
        " --out {output.csv} --captions results/claims --processes {threads}"
        " {input.tables} {input.seeds} > {log} 2>&1"
