# Per target: mean and 95% CI over seeds of ATT, AWT, ART (and more) per point,
# and the per-seed values (paired comparisons in the claims).


rule aggregate:
    input:
        runs=target_runs,
    output:
        table=report(
            "results/tables/{target}.csv",
            caption="../report/table.rst",
            category="Tables",
            labels={"target": "{target}"},
        ),
        seeds="results/tables/{target}.seeds.csv",
    log:
        "logs/aggregate/{target}.log",
    benchmark:
        "results/benchmarks/aggregate/{target}.tsv"
    localrule: True
    conda:
        "../envs/schedsim.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        spec=target_spec,
        code=ANALYSIS_CODE,
    shell:
        "python -m schedsim.experiments aggregate --spec {params.spec:q}"
        " --out {output.table} --seeds-out {output.seeds} {input.runs} > {log} 2>&1"
