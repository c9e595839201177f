# Per target: its table and per-seed table. A sweep aggregates its run files (mean
# and 95% CI over seeds per point); a derived target computes its table from its
# sources' tables; an example target computes its table directly.


rule aggregate:
    input:
        target_inputs,
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
        code=target_code("aggregate"),
    shell:
        "python -m schedsim.experiments aggregate --spec {params.spec:q}"
        " --out {output.table} --seeds-out {output.seeds} {input} > {log} 2>&1"


# A parameter one target chooses for others (e.g. the best C_s of a C_s sweep):
# a small file the dependent simulations take as an input.
rule choose:
    input:
        "results/tables/{target}.csv",
    output:
        "results/chosen/{target}.json",
    log:
        "logs/choose/{target}.log",
    localrule: True
    conda:
        "../envs/schedsim.yaml"
    params:
        spec=target_spec,
        code=target_code("choose"),
    shell:
        "python -m schedsim.experiments choose --spec {params.spec:q}"
        " --table {input} --out {output} > {log} 2>&1"
