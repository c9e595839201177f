# One job per workload batch: a family's variant, all its seed files written by one
# process (results/workloads/<family>/<variant>/seed<N>.<ext>, each shared by every
# policy and target of the family that uses it). One rule per distinct seed set
# (common.smk, batch_rules), all writing logs and benchmarks under generate_workloads/.
# The group only matters on a cluster (profiles/slurm bundles group jobs); a local
# run ignores it.

_rule_name = _rule_seeds = _rule_batches = None  # a config without generated workloads
for _rule_name, (_rule_seeds, _rule_batches) in batch_rules().items():

    rule:
        name:
            _rule_name
        input:
            batch_inputs,
        output:
            expand("results/workloads/{{batch}}/seed{seed}.{{ext}}", seed=_rule_seeds),
        log:
            "logs/generate_workloads/{batch}.{ext}.log",
        benchmark:
            "results/benchmarks/generate_workloads/{batch}.{ext}.tsv"
        wildcard_constraints:
            batch=_rule_batches,
        group:
            "workloads"
        conda:
            "../envs/schedsim.yaml"
        resources:
            mem_mb=500,
            runtime=10,
        params:
            spec=batch_spec,
            code=batch_code,
        shell:
            "python -m schedsim.experiments generate --spec {params.spec:q}"
            " --out {output} > {log} 2>&1"


# (loop names removed: Snakemake formats shell commands with the module's globals)
del _rule_name, _rule_seeds, _rule_batches
