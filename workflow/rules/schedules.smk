# One representative schedule per target that names one (`schedule:` in the config:
# policy, the values that pick a point, seed and window): the point simulated once more
# for that seed up to the window's end, written as `schedsim simulate` writes a schedule
# (results/schedules/<target>.swf) and drawn as `schedsim plot` draws it (.png). A local
# rule: one short simulation each, not worth a cluster job.


rule schedule:
    input:
        schedule_inputs,
    output:
        swf="results/schedules/{target}.swf",
        png=report(
            "results/schedules/{target}.png",
            caption="../report/schedule.rst",
            category="Schedules",
            labels={"target": "{target}"},
        ),
    log:
        "logs/schedule/{target}.log",
    benchmark:
        "results/benchmarks/schedule/{target}.tsv"
    localrule: True
    conda:
        "../envs/schedsim.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        spec=schedule_spec,
        code=schedule_code,
    shell:
        "python -m schedsim.experiments schedule --spec {params.spec:q}"
        " --swf {output.swf} --png {output.png} > {log} 2>&1"
