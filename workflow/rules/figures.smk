# Per target: the paper's panels (a, b, c) with 95% CIs, as PNG and PDF.


rule figure:
    input:
        table="results/tables/{target}.csv",
        seeds="results/tables/{target}.seeds.csv",
    output:
        png=report(
            "results/figures/{target}.png",
            caption="../report/figure.rst",
            category="Figures",
            labels={"target": "{target}"},
        ),
        pdf="results/figures/{target}.pdf",
    log:
        "logs/figure/{target}.log",
    benchmark:
        "results/benchmarks/figure/{target}.tsv"
    localrule: True
    conda:
        "../envs/schedsim.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        spec=target_spec,
        code=target_code("figure", FIGURES),
    shell:
        "python -m schedsim.experiments figure --spec {params.spec:q}"
        " --table {input.table} --seeds {input.seeds} --png {output.png} --pdf {output.pdf} > {log} 2>&1"
