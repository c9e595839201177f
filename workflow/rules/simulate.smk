# One job per (target, policy, sweep point): every seed of the point (and every
# value of the target's `inner` parameters) runs inside, one row per simulation.


rule simulate:
    input:
        workloads=point_workloads,
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
    shell:
        "python -m schedsim.experiments run-point --spec {params.spec:q}"
        " --code-version {params.code} --out {output} > {log} 2>&1"


# Runs whose parameters are read from another target's table (e.g. a load sweep
# using the best C_s of a C_s sweep): the same job, as its own rule, so that a
# cluster profile groups them apart from the runs that table comes from.
use rule simulate as simulate_tuned with:
    output:
        "results/runs/{target}/{policy}/{tuned}/{point}.parquet",
    log:
        "logs/simulate/{target}/{policy}/{tuned}/{point}.log",
    benchmark:
        "results/benchmarks/simulate/{target}/{policy}/{tuned}/{point}.tsv"
