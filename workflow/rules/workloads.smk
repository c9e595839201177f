# One workload file per (family, variant, seed), shared by every policy and
# target of the family that uses it.


rule generate_workload:
    input:
        workload_inputs,
    output:
        "results/workloads/{family}/{variant}/seed{seed}.{ext}",
    log:
        "logs/generate_workload/{family}/{variant}/seed{seed}.{ext}.log",
    benchmark:
        "results/benchmarks/generate_workload/{family}/{variant}/seed{seed}.{ext}.tsv"
    conda:
        "../envs/schedsim.yaml"
    resources:
        mem_mb=500,
        runtime=10,
    params:
        model=workload_model,
        jobs=workload_jobs,
        args=workload_args,
        code=workload_code,
    shell:
        "schedsim generate {params.model} --jobs {params.jobs} --seed {wildcards.seed}"
        " {params.args} --out {output} > {log} 2>&1"
