# A real log that no search directory (traces.search) holds is fetched from the
# Parallel Workloads Archive into resources/traces/, its SHA-256 checked.


rule fetch_trace:
    output:
        "resources/traces/{file}",
    log:
        "logs/fetch_trace/{file}.log",
    localrule: True
    conda:
        "../envs/schedsim.yaml"
    params:
        url=lambda wildcards: fetched_log(wildcards).url,
        checksum=lambda wildcards: (
            f"--sha256 {fetched_log(wildcards).sha256}" if fetched_log(wildcards).sha256 else ""
        ),
        timeout=TRACES.timeout,
        retries=TRACES.retries,
    shell:
        "python -m schedsim.traces fetch --url {params.url:q} --out {output}"
        " --timeout {params.timeout} --retries {params.retries} {params.checksum} > {log} 2>&1"
