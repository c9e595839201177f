# One job per (target, policy, sweep point): every seed of the point (and every
# value of the target's `inner` parameters) runs inside, one row per simulation.
# A simulation an earlier point already runs (a parameter its policy does not read, a
# default value under another name, a grid crossing another's) is not run again: the
# point relabels that point's rows and simulates only the rest.
# A point that takes a parameter chosen by another target reads that target's
# results/chosen/<target>.json (an input, so the choice runs first).


rule simulate:
    input:
        point_inputs,
    output:
        "results/runs/{target}/{policy}/{point}.parquet",
    log:
        "logs/simulate/{target}/{policy}/{point}.log",
    benchmark:
        "results/benchmarks/simulate/{target}/{policy}/{point}.tsv"
    conda:
        "../envs/schedsim.yaml"
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        spec=point_spec,
        code=point_code,
        rows_from=point_rows_from,
        plugins=point_plugins,
    shell:
        "python -m schedsim.experiments run-point --spec {params.spec:q}"
        " --code-version {params.code} {params.rows_from} {params.plugins} --out {output}"
        " > {log} 2>&1"
