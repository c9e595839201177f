"""End-to-end tests of profiles/slurm on a real SLURM cluster.

They submit the toy workflows in tests/slurm_wf/ through Snakemake's SLURM
executor plugin and take a minute or two each, so they only run when asked:

    bash scripts/slurm-up.sh                  # throw-away single-node SLURM
    SCHEDSIM_SLURM_TESTS=1 pytest tests/test_slurm.py
    bash scripts/slurm-down.sh

Otherwise (or when SLURM / the plugin is not there) they are skipped with the
reason.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PROFILE = REPO / "profiles" / "slurm"
WORKFLOWS = Path(__file__).resolve().parent / "slurm_wf"
RUN_TIMEOUT = int(os.environ.get("SCHEDSIM_SLURM_TIMEOUT", "420"))
SUBMITTED = re.compile(r"has been submitted with SLURM jobid (\d+)")


def _slurm_skip_reason() -> str | None:
    if os.environ.get("SCHEDSIM_SLURM_TESTS") != "1":
        return "SLURM end-to-end tests are opt-in: set SCHEDSIM_SLURM_TESTS=1"
    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        return "snakemake-executor-plugin-slurm is not installed (pip install -e '.[slurm]')"
    if shutil.which("sinfo") is None or shutil.which("sbatch") is None:
        return "no SLURM client commands on PATH (start one with scripts/slurm-up.sh)"
    try:
        states = subprocess.run(
            ["sinfo", "-h", "-o", "%T"], capture_output=True, text=True, timeout=20
        )
    except subprocess.TimeoutExpired:
        return "sinfo timed out: slurmctld is not answering (scripts/slurm-up.sh)"
    usable = ("idle", "mixed", "allocated", "completing")
    if states.returncode != 0 or not any(s.startswith(usable) for s in states.stdout.split()):
        said = (states.stdout + states.stderr).strip()
        return f"SLURM is not up (sinfo: {said!r}); run scripts/slurm-up.sh"
    return None


_reason = _slurm_skip_reason()
pytestmark = [
    pytest.mark.workflow,
    pytest.mark.skipif(_reason is not None, reason=_reason or ""),
]


def _sacct_works() -> bool:
    res = subprocess.run(["sacct", "-n", "-X", "-o", "JobID"], capture_output=True, timeout=20)
    return res.returncode == 0


def _sacct_states(job_ids: list[str]) -> dict[str, str]:
    out = subprocess.run(
        ["sacct", "-X", "-n", "-P", "-o", "JobID,State", "-j", ",".join(job_ids)],
        capture_output=True,
        text=True,
        check=True,
        timeout=20,
    ).stdout
    return dict(line.split("|", 1) for line in out.splitlines() if "|" in line)


def run_on_slurm(name: str, tmp_path: Path) -> tuple[subprocess.CompletedProcess, Path]:
    """Copy tests/slurm_wf/<name> to tmp_path and run it with the SLURM profile."""
    workdir = tmp_path / name
    shutil.copytree(WORKFLOWS / name, workdir)
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "--workflow-profile",
        str(PROFILE),
        # first status query after 5 s instead of 40 s
        "--slurm-init-seconds-before-status-checks",
        "5",
    ]
    if not _sacct_works():  # no slurmdbd: the plugin's sacct polling would hang forever
        cmd += ["--slurm-status-command", "squeue"]
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    try:
        proc = subprocess.run(
            cmd,
            cwd=workdir,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
        )
    except subprocess.TimeoutExpired as exc:
        subprocess.run(["scancel", "--user", str(os.getuid())], check=False)
        pytest.fail(f"snakemake did not finish within {RUN_TIMEOUT}s:\n{exc.stdout}\n{exc.stderr}")
    return proc, workdir


def test_toy_workflow_runs_grouped_on_slurm(tmp_path):
    proc, workdir = run_on_slurm("ok", tmp_path)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output

    job_ids = sorted(set(SUBMITTED.findall(output)), key=int)
    # 2 generate_workloads + 8 simulate jobs, but grouped: one SLURM job per group
    assert len(job_ids) == 2, output

    # every cluster job really ran inside one of those SLURM jobs ...
    logs = sorted((workdir / "logs").rglob("*.log"))
    assert len(logs) == 10
    for log in logs:
        ran_in = log.read_text().strip().removeprefix("SLURM_JOB_ID=")
        assert ran_in in job_ids, f"{log} ran in SLURM job {ran_in!r}, not in {job_ids}"
    # ... and the local aggregate saw all their results
    summary = (workdir / "results" / "summary.tsv").read_text().splitlines()
    assert len(summary) == 1 + 8

    if _sacct_works():
        states = _sacct_states(job_ids)
        assert states == {j: "COMPLETED" for j in job_ids}, states


def test_failing_rule_names_the_slurm_log(tmp_path):
    proc, workdir = run_on_slurm("fail", tmp_path)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, output

    (job_id,) = set(SUBMITTED.findall(output))
    # Snakemake's error report names the SLURM log of the failed job ...
    match = re.search(r"log: (\S+/slurm_logs/\S+/(\d+)\.log)", output)
    assert match, f"no SLURM log named in the error message:\n{output}"
    log, logged_id = Path(match.group(1)), match.group(2)
    assert logged_id == job_id
    assert log.is_relative_to(workdir / ".snakemake" / "slurm_logs")
    # ... which is kept and holds the failing command's stderr from the node
    assert log.is_file()
    assert f"failing on purpose in SLURM job {job_id}" in log.read_text()

    if _sacct_works():
        assert _sacct_states([job_id]) == {job_id: "FAILED"}
